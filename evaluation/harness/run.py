"""Run an evaluation: replay every probe against its weekly snapshot, tune each system's
threshold on the dev split, answer the test split once, judge, and measure.

Thresholds are chosen on dev by the session composite (``metrics.py``: the composite
with what each agent held from earlier turns of its session; ties: fewer bytes per turn;
the working group also within a routine-injection limit), one per tuning group
(``System.group``). ``dose-mem/shipped`` is not tuned: it runs the profiles exactly as
shipped in ``profiles/*.yaml``. Task state needs no tuning (no threshold applies to it);
the dose-mem systems answer status questions from the task events before each probe.
Tuning uses the gold labels when every dev probe has them
(the LLM judge is not asked once per grid point); the report is on the test split only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from evaluation.harness.environment import Environment, load_environment
from evaluation.harness.external import Skipped, external_systems
from evaluation.harness.judges import Verdict, gold_labels, gold_verdict
from evaluation.harness.llm_judge import LLMJudge, agreement
from evaluation.harness.metrics import Estimate, TurnRecord, point_estimates, summarise
from evaluation.harness.probes import Probe, Split, system_input
from evaluation.harness.session_scoring import Keeps, score_turns
from evaluation.harness.snapshots import SnapshotStore
from evaluation.harness.systems import Injection, System, baseline_systems, dose_mem_systems
from evaluation.harness.task_feed import boards_for
from memory_repo.errors import DoseMemError
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import Settings
from memory_repo.store import load_memory
from profiles.model import Profile, load_profiles

Tick = Callable[[str], None]
# What thresholds are tuned on: the composite in session context.
TUNED_ON = "session_composite"


class EvaluationError(DoseMemError):
    """An evaluation that can not run as asked (no labels to tune on, no LLM endpoint)."""


class SystemResult(BaseModel):
    thresholds: dict[str, float]
    metrics: dict[str, Estimate]
    dev_composite: dict[str, float]


class EvalResult(BaseModel):
    env: str
    judge: str
    probes: int
    dev_probes: int
    test_probes: int
    snapshots: dict[str, str]
    systems: dict[str, SystemResult]
    skipped: list[Skipped] = Field(default_factory=list)
    agreement: dict[str, float | int | str] = Field(default_factory=dict)
    task_events: int = 0
    task_problems: list[str] = Field(default_factory=list)
    records: list[TurnRecord] = Field(default_factory=list, exclude=True)


def answer_all(
    system: System,
    probes: list[Probe],
    env: Environment,
    store: SnapshotStore,
    threshold: Callable[[str], float],
    tick: Tick | None = None,
) -> dict[str, Injection]:
    """One replay of ``probes`` in time order; a probe before any memory gets nothing."""
    system.start_pass()
    out: dict[str, Injection] = {}
    for probe in sorted(probes, key=lambda p: (p.timestamp, p.id)):
        commit = env.snapshot_for(probe)
        inp = system_input(probe)
        if commit is None:
            out[probe.id] = Injection()
        else:
            out[probe.id] = system.answer(inp, store.get(commit), threshold(system.group(inp)))
        if tick:
            tick(system.name)
    return out


def gold_records(
    name: str, probes: list[Probe], answers: dict[str, Injection], keeps: Keeps | None = None
) -> list[TurnRecord]:
    """The probes judged by their gold labels, in session context (``keeps``: whose agent
    keeps its injections; None: nobody's, the per-turn scoring)."""
    verdicts = {p.id: gold_verdict(p, answers[p.id]) for p in probes}
    return score_turns(name, probes, answers, verdicts, keeps, gold_labels)


def keeping(profiles: dict[str, Profile]) -> Keeps:
    """Whether a probe's agent keeps its injections, by its profile's ``kept_by``."""
    return lambda p: p.profile in profiles and profiles[p.profile].keeps(p.agent)


def tune(
    system: System,
    dev: list[Probe],
    env: Environment,
    store: SnapshotStore,
    tick: Tick | None = None,
    limits: dict[str, float] | None = None,
    keeps: Keeps | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """Per tuning group: the grid threshold with the best dev session composite (then
    fewest bytes), within the group's routine-injection limit (``limits``, by profile
    name: the profile's ``routine_limit``; the working profile's contract is to stay
    quiet on routine coding steps). ``keeps``: as ``gold_records``."""
    groups = {system.group(system_input(p)) for p in dev}
    best: dict[str, tuple[float, float, float]] = {}
    for t in system.grid:
        answers = answer_all(system, dev, env, store, lambda _g, t=t: t, tick)
        records = gold_records(system.name, dev, answers, keeps)
        for group in groups:
            ids = {p.id for p in dev if system.group(system_input(p)) == group}
            m = point_estimates([r for r in records if r.probe_id in ids])
            if m["routine_injection_rate"] > (limits or {}).get(group, 1.0):
                continue
            key = (m[TUNED_ON], -m["bytes_per_turn"], t)
            if group not in best or key[:2] > best[group][:2]:
                best[group] = key
    for group in groups - best.keys():
        best[group] = (float("nan"), 0.0, max(system.grid))
    return ({g: v[2] for g, v in best.items()}, {g: round(v[0], 4) for g, v in best.items()})


def run_evaluation(
    env_dir: Path,
    settings: Settings,
    *,
    judge: str = "gold",
    second_model: str | None = None,
    workdir: Path | None = None,
    progress: Callable[[int], Tick] | None = None,
    only: list[str] | None = None,
) -> EvalResult:
    """``progress(total)`` returns a callback ticked once per answered probe."""
    if judge not in ("gold", "llm"):
        raise EvaluationError(f"unknown judge {judge!r} (use gold or llm)")
    if judge == "llm" and not settings.llm_base_url:
        raise EvaluationError("--judge llm needs an LLM endpoint (DOSE_MEM_LLM_BASE_URL)")
    with tempfile.TemporaryDirectory(prefix="dose-mem-eval-") as tmp:
        work = Path(workdir or tmp)
        env = load_environment(Path(env_dir), work)
        profiles = load_profiles(settings.profiles_path)
        store = SnapshotStore(env, work, make_embedder(settings), profiles)
        external, skipped = external_systems(settings.llm_base_url)
        boards = boards_for(env.tasks, work / "task-boards", settings)
        systems: list[System] = [
            *dose_mem_systems(profiles, env.spec, boards),
            *baseline_systems(env.spec),
            *external,
        ]
        if only:
            systems = [s for s in systems if s.name in only]
        dev = [p for p in env.probes if p.split == Split.dev]
        test = [p for p in env.probes if p.split == Split.test]
        if any(p.gold is None for p in dev):
            raise EvaluationError("every dev probe needs gold labels to tune thresholds")
        total = sum(len(s.grid) * len(dev) + len(test) for s in systems)
        tick = progress(total) if progress else None
        tuned: dict[str, tuple[dict[str, float], dict[str, float]]] = {}
        limits = {name: p.routine_limit for name, p in profiles.items()}
        keeps = keeping(profiles)
        answers: dict[str, dict[str, Injection]] = {}
        for system in systems:
            tuned[system.name] = tune(system, dev, env, store, tick, limits, keeps)
            chosen = tuned[system.name][0]
            answers[system.name] = answer_all(
                system, test, env, store, lambda g, c=chosen: c.get(g, max(c.values())), tick
            )
        agreed: dict[str, float | int | str] = {}
        if judge == "gold":
            verdicts = {
                name: {p.id: gold_verdict(p, a[p.id]) for p in test} for name, a in answers.items()
            }
        else:
            verdicts, agreed = llm_verdicts(settings, env, test, answers, second_model)
        records: list[TurnRecord] = []
        results: dict[str, SystemResult] = {}
        for system in systems:
            name = system.name
            held_by = gold_labels if judge == "gold" else None
            mine = score_turns(name, test, answers[name], verdicts[name], keeps, held_by)
            records.extend(mine)
            results[name] = SystemResult(
                thresholds=tuned[name][0],
                dev_composite=tuned[name][1],
                metrics=summarise(mine),
            )
        snaps = {p.id: (c.sha[:10] if (c := env.snapshot_for(p)) else "none") for p in env.probes}
        return EvalResult(
            env=env.spec.name,
            judge=judge,
            probes=len(env.probes),
            dev_probes=len(dev),
            test_probes=len(test),
            snapshots=snaps,
            systems=results,
            skipped=skipped,
            records=records,
            agreement=agreed,
            task_events=len(env.tasks.events) if env.tasks else 0,
            task_problems=env.tasks.problems if env.tasks else [],
        )


def llm_verdicts(
    settings: Settings,
    env: Environment,
    test: list[Probe],
    answers: dict[str, dict[str, Injection]],
    second_model: str | None,
) -> tuple[dict[str, dict[str, Verdict]], dict[str, float | int | str]]:
    """The rubric judge on every test probe, and its agreement on a sampled 20%."""
    items = load_memory(env.repo).items
    judge = LLMJudge(settings, items)
    verdicts = judge(test, answers)
    second = LLMJudge(settings, items, model=second_model) if second_model else None
    agreed = agreement(verdicts, test, answers, second)
    return verdicts, {**agreed, **judge.stats.model_dump()}
