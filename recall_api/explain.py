"""A dry run of recall for the inspector: what an agent would receive, and why not the rest.

``explain`` runs the engine's own steps (``resolve_project``, ``fired``, ``prefilter_for``,
``Index.search``, ``gate.decide``, ``assemble``) without observing the session tracker, so
looking never changes what an agent gets next. Each gated candidate carries its score
against its bar and, whatever the gate's mode, its relevance with the features behind it
(``relevance.FEATURES``). Besides the hits the agent's scope
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
from recall_api.evidence import read_prompt
from recall_api.gate import Judged, decide
from recall_api.models import Identity, Reason, RecallRequest, RecallResult
from recall_api.relevance import FEATURES, Context, features
from recall_api.scoping import allowed, gate_project, prefilter_for, resolve_project
from recall_api.triggers import SessionState, cue_in, fired


class Fate(StrEnum):
    """What became of one candidate."""

    injected = "injected"
    below_threshold = "below_threshold"
    headline_off_topic = "headline_off_topic"  # mode score: the working profile's L0 overlap
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
    score: float | None = Field(
        default=None, description="what the gate judged by: the score or the relevance"
    )
    bar: float | None = None
    relevance: float | None = Field(
        default=None, description="the relevance model's probability, in either gate mode"
    )
    features: dict[str, float] = Field(default_factory=dict)
    because: dict[str, float] = Field(
        default_factory=dict,
        description="the features that moved the relevance most, as log-odds, largest first",
    )


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
    held: dict[str, int] = Field(
        default_factory=dict,
        description="item id -> the turn the inspected session was given it on: what a real "
        "recall in that session holds back as already given",
    )


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
    judged = list(
        decide(
            prompt,
            hits,
            profile,
            engine.relevance,
            cued=cued,
            project=gate_project(profile, where),
            trigger=trigger or "",
        )
    )
    items, text = assemble(((j.hit, j.score) for j in judged if j.passed), profile)
    injected = {i.id for i in items}
    context = Context(cued=cued, project=gate_project(profile, where))
    rows = features(prompt, [j.hit for j in judged], context)
    relevance = engine.relevance.probability(rows) if judged else []
    candidates = [
        Candidate(
            id=j.hit.item_id,
            project=j.hit.project,
            type=j.hit.type.value,
            l0=j.hit.l0,
            fate=_gated_fate(j.hit.item_id in injected, j, trigger is not None),
            score=round(j.score, 3),
            bar=round(j.bar, 3),
            relevance=round(float(p), 3),
            features={name: round(float(v), 3) for name, v in zip(FEATURES, row, strict=True)},
            because={
                k: round(v, 2) for k, v in list(engine.relevance.contributions(row).items())[:4]
            },
        )
        for j, row, p in zip(judged, rows, relevance, strict=True)
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


def _gated_fate(injected: bool, judged: Judged, triggered: bool) -> Fate:
    if judged.score < judged.bar:
        return Fate.below_threshold
    if not judged.headline:
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
