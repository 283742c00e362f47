"""Which project a prompt is about, and which items the agent may see for it.

Resolution order (docs/read-path.md, "Scope"): an explicit project wins; else the cwd,
mapped through the registry's path roots by the longest matching prefix; else a prompt
naming exactly one project; else none (global memory only). The visible set is then the
intersection of the token's projects and the profile's scope, expressed as a query
prefilter.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass

from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.models import GLOBAL, CardType, ProjectKind, Registry
from profiles.model import Profile, ScopeKind
from recall_api.models import Identity


@dataclass(frozen=True)
class Resolution:
    project: str | None
    how: str  # explicit | cwd | prompt | none


def allowed(identity: Identity, project: str) -> bool:
    return project == GLOBAL or identity.projects is None or project in identity.projects


def resolve_project(
    registry: Registry, *, project: str | None, cwd: str | None, prompt: str
) -> Resolution:
    if project:
        return Resolution(project if registry.get(project) else None, "explicit")
    if cwd and (found := project_for_cwd(registry, cwd)):
        return Resolution(found, "cwd")
    named = projects_named_in(registry, prompt)
    if len(named) == 1:
        return Resolution(named[0], "prompt")
    return Resolution(None, "none")


def project_for_cwd(registry: Registry, cwd: str) -> str | None:
    """Longest registry root that contains ``cwd``, compared by whole path components."""
    here = posixpath.normpath(cwd)
    best: tuple[int, str] | None = None
    for proj in registry.projects:
        for root in proj.paths:
            base = posixpath.normpath(root)
            if (here == base or here.startswith(base.rstrip("/") + "/")) and (
                best is None or len(base) > best[0]
            ):
                best = (len(base), proj.id)
    return best[1] if best else None


def projects_named_in(registry: Registry, prompt: str) -> list[str]:
    """Projects whose name, id, alias or nickname occurs in the prompt as a whole word."""
    text = prompt.casefold()
    hits = []
    for proj in registry.projects:
        for name in proj.names:
            needle = name.casefold().strip()
            if needle and _mentions(text, needle):
                hits.append(proj.id)
                break
    return hits


def _mentions(text: str, needle: str) -> bool:
    if not needle.isascii():
        return needle in text
    return re.search(rf"(?<![\w-]){re.escape(needle)}(?![\w-])", text) is not None


def prefilter_for(
    profile: Profile,
    identity: Identity,
    registry: Registry,
    project: str | None,
    today: dt.date,
    *,
    automatic: bool = True,
) -> Prefilter:
    """The profile's scope intersected with the token's projects, as one query predicate."""
    visible = [p.id for p in registry.projects if allowed(identity, p.id)]
    clauses: list[ScopeClause]
    if profile.scope == ScopeKind.full:
        clauses = [ScopeClause(projects=[GLOBAL, *visible])]
    elif profile.scope == ScopeKind.working:
        clauses = [ScopeClause(projects=[GLOBAL], types=list(profile.global_types))]
        if project and project in visible:
            clauses.append(ScopeClause(projects=[project]))
    else:
        personal = [p.id for p in registry.projects if p.kind == ProjectKind.personal]
        clauses = [ScopeClause(projects=[GLOBAL, *visible], types=[CardType.habit])]
        if mine := [p for p in personal if p in visible]:
            clauses.append(ScopeClause(projects=mine))
    return Prefilter(clauses=clauses, automatic=automatic, today=today)
