"""The systems under evaluation, behind one interface: given what a person just said (a
``SystemInput``, which has no follow-ups) and the week's snapshot, what would be injected?

Systems defined here (every one under the environment's shared budget at most):

- ``dose-mem``: each probe under its own agent's profile (hermes -> full, coding agents ->
  working, calendar -> personal), one threshold tuned per profile. This is the deployed
  configuration, its thresholds tuned on dev like every other system's.
- ``dose-mem/shipped``: the same, with the thresholds exactly as shipped in
  ``profiles/*.yaml`` (no tuning): what a user gets out of the box.
- ``dose-mem/relevance``: ``dose-mem`` with every profile's gate in mode ``relevance``
  (``in_relevance_mode``), one threshold tuned per profile the same way.
- ``dose-mem/per-turn``: ``dose-mem/shipped`` with every profile's ``kept_by`` emptied
  (``per_turn``): each passing item given on every turn, as before session-aware dose
  (docs/read-path.md); untuned, so beside ``dose-mem/shipped`` it is the before and after
  of that change in one run.
- ``dose-mem/full``, ``dose-mem/working``, ``dose-mem/personal``: that one profile applied
  to every probe (the agent's identity still limits which projects it may see).
- ``dose-mem/no-tasks``: ``dose-mem`` with task state disabled (``engine.tasks = None``),
  tuned the same way: what the service did before task state existed. Listed only when
  the environment has task events.

Every ``dose-mem`` system answers status questions from the environment's task events
strictly before the probe's time (``evaluation/harness/task_feed.py``); the retrieval baselines
and the external systems never see task events.
- ``dense``, ``bm25``: the index's single retrieval leg over every allowed project, as a
  plain vector or keyword store would do it: no trigger, no lifecycle (superseded and
  archived cards stay findable), no gate beyond a threshold on the leg's own score; the
  top items rendered at L0+L1 within the shared budget and item cap.

The adapters for other memory systems (``mem0``, ``openviking``) live in
``evaluation/harness/external.py``, which builds on this module's ``Injection``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel, Field

from evaluation.harness.environment import EnvSpec
from evaluation.harness.probes import SystemInput
from evaluation.harness.snapshots import Snapshot
from evaluation.harness.task_feed import TaskBoards
from memory_repo.index.hits import Hit
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.models import GLOBAL
from profiles.model import Gate, GateMode, Level, Profile, Trigger
from recall_api.assemble import assemble
from recall_api.models import RecallRequest

DEPTH = 10
SHIPPED = -1.0  # the "threshold" that means: the profile's own, untuned


class InjectedCard(BaseModel):
    id: str
    text: str
    bytes: int


class Injection(BaseModel):
    """What a system put in front of the agent for one probe (empty = stayed silent)."""

    items: list[InjectedCard] = Field(default_factory=list)
    bytes: int = 0

    @property
    def ids(self) -> list[str]:
        return [i.id for i in self.items]


class System(Protocol):
    name: str
    grid: list[float]

    def group(self, inp: SystemInput) -> str:
        """Probes sharing a group share one tuned threshold."""
        ...

    def start_pass(self) -> None:
        """Forget session state: a new replay of the probes begins."""
        ...

    def answer(self, inp: SystemInput, snapshot: Snapshot, threshold: float) -> Injection: ...


def recall_request(inp: SystemInput) -> RecallRequest:
    """What the agent's client would send for this turn."""
    return RecallRequest(
        prompt=inp.prompt,
        session_id=inp.session_id,
        turn=inp.turn,
        cwd=inp.cwd,
        project=inp.project,
    )


class DoseMem:
    """The read path itself (``RecallEngine.recall``), with the gate threshold overridden."""

    def __init__(
        self,
        name: str,
        profiles: dict[str, Profile],
        spec: EnvSpec,
        profile: str | None = None,
        *,
        shipped: bool = False,
        tasks: TaskBoards | None = None,
    ) -> None:
        self.name = name
        self.profiles = profiles
        self.spec = spec
        self.fixed_profile = profile
        self.tasks = tasks
        self.grid = [SHIPPED] if shipped else [round(0.05 * i, 2) for i in range(4, 17)]
        self._snapshots: set[int] = set()

    def group(self, inp: SystemInput) -> str:
        return self.fixed_profile or inp.profile

    def start_pass(self) -> None:
        self._snapshots.clear()

    def answer(self, inp: SystemInput, snapshot: Snapshot, threshold: float) -> Injection:
        if id(snapshot) not in self._snapshots:
            snapshot.engine.forget_sessions()  # a fresh replay
            self._snapshots.add(id(snapshot))
        base = self.profiles[self.group(inp)]
        profile = (
            base
            if threshold == SHIPPED
            else base.model_copy(
                update={"gate": base.gate.model_copy(update={"threshold": threshold})}
            )
        )
        request = recall_request(inp)
        snapshot.set_day(inp.timestamp)
        tasks = self.tasks
        snapshot.engine.tasks = tasks.at(inp.timestamp) if tasks is not None else None
        try:
            result = snapshot.engine.recall(self.spec.identity(inp.agent), request, profile)
        finally:
            snapshot.engine.tasks = None  # the engine is shared with the other systems
        return Injection(
            items=[
                InjectedCard(
                    id=tasks.name(i.id) if tasks is not None and tasks.is_task(i.id) else i.id,
                    text=i.text,
                    bytes=i.bytes,
                )
                for i in result.items
            ],
            bytes=result.bytes,
        )


class RetrievalBaseline:
    """One retrieval leg (dense or BM25) with a threshold on that leg's own score."""

    def __init__(
        self, mode: str, spec: EnvSpec, grid: list[float], score: Callable[[Hit], float]
    ) -> None:
        self.name = mode
        self.mode = mode
        self.spec = spec
        self.grid = grid
        self.score = score
        self.profile = Profile(
            name=f"baseline-{mode}",
            triggers=[Trigger.every_turn],
            scope="full",
            level=Level.l0_l1,
            budget_bytes=spec.budget_bytes,
            max_items=spec.max_items,
            gate=Gate(threshold=0.0),
        )

    def group(self, inp: SystemInput) -> str:
        return "all"

    def start_pass(self) -> None:
        """Stateless: every turn is answered on its own."""

    def answer(self, inp: SystemInput, snapshot: Snapshot, threshold: float) -> Injection:
        allowed = self.spec.identity(inp.agent).projects
        projects = sorted(snapshot.memory.registry.ids if allowed is None else allowed)
        prefilter = Prefilter(
            clauses=[ScopeClause(projects=[*projects, GLOBAL])],
            automatic=False,
            today=inp.timestamp.date(),
        )
        hits = snapshot.index.search(inp.prompt, prefilter, k=DEPTH, mode=self.mode)
        ranked = sorted(hits, key=lambda h: -self.score(h))
        kept = [(h, self.score(h)) for h in ranked if self.score(h) >= threshold]
        items, text = assemble(kept, self.profile)
        return Injection(
            items=[InjectedCard(id=i.id, text=i.text, bytes=i.bytes) for i in items],
            bytes=len(text.encode("utf-8")),
        )


# A profile switched to relevance (docs/read-path.md, "Gate"): a coding profile's
# later-turn bar, and the cue relief (the model reads a cue as a feature already).
NEW_SUBJECT = 0.9
CUE_RELIEF = 0.1


def in_relevance_mode(profile: Profile) -> Profile:
    """The profile with its gate in mode ``relevance``: no headline rule, a cue relief of
    at most ``CUE_RELIEF``, and a coding profile (one with the ``first_turn`` trigger)
    also searching on later turns (``new_subject``, at ``NEW_SUBJECT``)."""
    triggers = list(profile.triggers)
    gate: dict[str, object] = {
        "mode": GateMode.relevance,
        "min_l0_overlap": 0,
        "cue_relief": min(profile.gate.cue_relief, CUE_RELIEF),
    }
    if Trigger.first_turn in triggers and Trigger.new_subject not in triggers:
        triggers.append(Trigger.new_subject)
        gate["new_subject"] = NEW_SUBJECT
    return profile.model_copy(
        update={"triggers": triggers, "gate": profile.gate.model_copy(update=gate)}
    )


def per_turn(profile: Profile) -> Profile:
    """The profile for agents taken not to keep their injections (``kept_by`` empty):
    every item that passes is given on every turn."""
    return profile.model_copy(update={"kept_by": []})


def dose_mem_systems(
    profiles: dict[str, Profile], spec: EnvSpec, tasks: TaskBoards | None = None
) -> list[DoseMem]:
    fixed = [
        DoseMem(f"dose-mem/{name}", profiles, spec, profile=name, tasks=tasks)
        for name in ("full", "working", "personal")
        if name in profiles
    ]
    before = [DoseMem("dose-mem/no-tasks", profiles, spec)] if tasks is not None else []
    relevance = {name: in_relevance_mode(p) for name, p in profiles.items()}
    resent = {name: per_turn(p) for name, p in profiles.items()}
    return [
        DoseMem("dose-mem", profiles, spec, tasks=tasks),
        DoseMem("dose-mem/shipped", profiles, spec, shipped=True, tasks=tasks),
        DoseMem("dose-mem/per-turn", resent, spec, shipped=True, tasks=tasks),
        DoseMem("dose-mem/relevance", relevance, spec, tasks=tasks),
        *fixed,
        *before,
    ]


def baseline_systems(spec: EnvSpec) -> list[RetrievalBaseline]:
    return [
        RetrievalBaseline(
            "dense", spec, [round(0.05 * i, 2) for i in range(0, 17)], lambda h: h.cosine
        ),
        RetrievalBaseline(
            "bm25", spec, [0.0, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15], lambda h: h.bm25
        ),
    ]
