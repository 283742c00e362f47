"""Which project a prompt is about, and which items the agent may see for it.

Resolution order (docs/read-path.md, "Scope"): an explicit project wins; else the rule
the write path files sessions by (``memory_repo.attribution``): the cwd, mapped through
the registry's path roots, then a prompt naming exactly one project; else none (global
memory only). The visible set is then the
intersection of the token's projects and the profile's scope, expressed as a query
prefilter.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from memory_repo.attribution import attribute
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
    """An explicit project wins; else the write path's rule (``memory_repo.attribution``):
    the cwd (as written, through symlinks, a worktree's main checkout), then a prompt
    naming exactly one project. ``how`` is ``explicit``, ``cwd``, ``prompt`` or ``none``."""
    if project:
        return Resolution(project if registry.get(project) else None, "explicit")
    found = attribute(registry, cwd=cwd, words=prompt)
    if found.project is None:
        return Resolution(None, "none")
    return Resolution(found.project, "prompt" if found.how == "named" else "cwd")


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


def gate_project(profile: Profile, where: Resolution) -> str | None:
    """The project the gate judges candidates against (an item of it is "this project's",
    of any other "another project's"): the resolved one, except that a personal agent's
    working directory says where its process runs, not what the person asks about, so a
    calendar agent started in a code checkout still hears "when is my weekly review?" as
    a question about the person's life."""
    if profile.scope == ScopeKind.personal and where.how == "cwd":
        return None
    return where.project
