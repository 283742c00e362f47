"""A dry run of recall for the inspector: what an agent would receive, and why not the rest.

``explain`` runs the engine's own steps (``resolve_project``, ``fired``, ``prefilter_for``,
``Index.search``, ``gate.passes``, ``assemble``) without observing the session tracker, so
looking never changes what an agent gets next. Besides the hits the agent's scope
admits, it searches every project with the lifecycle rule off, so the page can also show
the candidates the scope or the lifecycle kept out, each with its reason.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, Field

from memory_repo.index.hits import Hit
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.lifecycle import retirement, superseded_ids
from memory_repo.models import GLOBAL, Item, Registry
from memory_repo.store import load_memory
from profiles.model import Profile
from recall_api.assemble import assemble
from recall_api.engine import CANDIDATES, RecallEngine
from recall_api.gate import bar, l0_overlap, read_prompt, score
from recall_api.models import Identity, Reason, RecallRequest, RecallResult
from recall_api.scoping import allowed, prefilter_for, resolve_project
from recall_api.triggers import SessionState, cue_in, fired


class Fate(StrEnum):
    """What became of one candidate."""

    injected = "injected"
    below_threshold = "below_threshold"
    headline_off_topic = "headline_off_topic"  # the working profile's L0 overlap
    over_budget = "over_budget"  # passed the gate; the dose was full (bytes or items)
    not_triggered = "not_triggered"  # passed the gate, but this turn does not recall
    out_of_scope = "out_of_scope"
    superseded = "superseded"
    archived = "archived"
    expired = "expired"


class Candidate(BaseModel):
    id: str
    project: str
    type: str
    l0: str
    fate: Fate
    score: float | None = None
    bar: float | None = None
    l0_overlap: int | None = None


class Explanation(BaseModel):
    """One agent's dose for one prompt: the result it would get and every candidate."""

    agent: str
    profile: str
    projects: list[str] | None
    budget_bytes: int
    max_items: int
    project: str | None
    resolved_by: str
    result: RecallResult
    candidates: list[Candidate] = Field(default_factory=list)


class Lifecycle(BaseModel):
    """What ``explain`` needs to know of the repository beyond the index."""

    items: dict[str, Item]
    superseded: set[str]
    registry: Registry

    @classmethod
    def load(cls, memory_root: Path) -> Lifecycle:
        memory = load_memory(memory_root)
        return cls(
            items=memory.items,
            superseded=superseded_ids(memory.items.values()),
            registry=memory.registry,
        )

    def fate(self, item_id: str, today: dt.date) -> Fate | None:
        item = self.items.get(item_id)
        if item is None:
            return None
        why = retirement(item, today, self.superseded, self.registry)
        return Fate(why) if why is not None else None


def explain(
    engine: RecallEngine,
    identity: Identity,
    request: RecallRequest,
    lifecycle: Lifecycle,
    *,
    k: int = CANDIDATES,
) -> Explanation:
    """``request.turn`` 1 is a session's first turn; a later turn is read as the same
    session, same project. Task-state answers are not explained here: the page shows
    cards.
    """
    profile: Profile = engine.profile(identity)
    registry = engine.registry
    today = engine.today()
    where = resolve_project(
        registry, project=request.project, cwd=request.cwd, prompt=request.prompt
    )
    before = None if request.turn == 1 else SessionState(where.project, request.turn - 1)
    trigger = fired(
        profile, turn=request.turn, before=before, project=where.project, prompt=request.prompt
    )
    base = Explanation(
        agent=identity.agent,
        profile=profile.name,
        projects=identity.projects,
        budget_bytes=profile.budget_bytes,
        max_items=profile.max_items,
        project=where.project,
        resolved_by=where.how,
        result=RecallResult.quiet(Reason.out_of_scope, profile=profile.name, trigger=trigger),
    )
    explicit_refused = where.how == "explicit" and (
        where.project is None or not allowed(identity, where.project)
    )
    prefilter = prefilter_for(profile, identity, registry, where.project, today)
    hits = (
        []
        if explicit_refused or prefilter.is_empty()
        else engine.index.search(request.prompt, prefilter, k=k)
    )
    prompt = read_prompt(request.prompt, engine.index.parts, engine.bridge)
    cued = cue_in(request.prompt, profile.cues) is not None
    scored: list[tuple[Hit, float, float, int]] = []
    for hit in hits:
        value = score(prompt, hit)
        need = bar(profile, hit, cued=cued, project=where.project)
        scored.append((hit, value, need, l0_overlap(prompt, hit)))
    passing = [
        (hit, value)
        for hit, value, need, overlap in scored
        if value >= need and overlap >= profile.gate.min_l0_overlap
    ]
    items, text = assemble(passing, profile)
    injected = {i.id for i in items}
    candidates = [
        Candidate(
            id=hit.item_id,
            project=hit.project,
            type=hit.type.value,
            l0=hit.l0,
            fate=_gated_fate(
                hit.item_id in injected,
                value >= need,
                overlap >= profile.gate.min_l0_overlap,
                trigger is not None,
            ),
            score=round(value, 3),
            bar=round(need, 3),
            l0_overlap=overlap,
        )
        for hit, value, need, overlap in scored
    ]
    candidates += _kept_out(engine, request.prompt, registry, prefilter, hits, lifecycle, k=k)
    if trigger is None:
        result = RecallResult.quiet(Reason.not_triggered, profile=profile.name)
    elif not hits:
        result = base.result
    elif not items:
        result = RecallResult.quiet(
            Reason.below_threshold,
            profile=profile.name,
            trigger=trigger,
            project=where.project,
            considered=len(hits),
        )
    else:
        result = RecallResult.dose(
            items,
            text,
            profile=profile.name,
            trigger=trigger,
            project=where.project,
            considered=len(hits),
        )
    return base.model_copy(update={"result": result, "candidates": candidates})


def _gated_fate(injected: bool, over_bar: bool, headline: bool, triggered: bool) -> Fate:
    if not over_bar:
        return Fate.below_threshold
    if not headline:
        return Fate.headline_off_topic
    if not triggered:
        return Fate.not_triggered
    return Fate.injected if injected else Fate.over_budget


def _kept_out(
    engine: RecallEngine,
    prompt: str,
    registry: Registry,
    scope: Prefilter,
    seen: list[Hit],
    lifecycle: Lifecycle,
    *,
    k: int,
) -> list[Candidate]:
    """Hits of a search over every project with the lifecycle rule off that the agent's
    own search did not return: out of scope, else superseded, archived or expired."""
    everything = Prefilter(
        clauses=[ScopeClause(projects=[GLOBAL, *(p.id for p in registry.projects)])],
        automatic=False,
        today=scope.today,
    )
    known = {h.item_id for h in seen}
    out: list[Candidate] = []
    for hit in engine.index.search(prompt, everything, k=k):
        if hit.item_id in known:
            continue
        in_scope = _in_scope(scope, hit)
        fate = lifecycle.fate(hit.item_id, scope.today) if in_scope else Fate.out_of_scope
        if fate is None:  # in scope and alive, yet ranked below the agent's own k
            continue
        out.append(
            Candidate(
                id=hit.item_id, project=hit.project, type=hit.type.value, l0=hit.l0, fate=fate
            )
        )
    return out


def _in_scope(scope: Prefilter, hit: Hit) -> bool:
    return any(
        hit.project in clause.projects and (clause.types is None or hit.type in clause.types)
        for clause in scope.clauses
    )
