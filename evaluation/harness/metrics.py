"""Metrics of dose and quality per system, with session-clustered bootstrap CIs.

Per turn we record counts; every metric is a ratio of sums of those counts, so a bootstrap
resample (sessions drawn with replacement, since turns of one session are not independent)
is one matrix product, and 2,000 resamples take milliseconds.

Definitions (a "turn" is one probe answered by one system):
- items_per_turn, bytes_per_turn: mean injected items / bytes over all turns
- injection_rate: share of turns with anything injected
- hit_rate: share of memory-needing turns with at least one useful (necessary or helpful) item
- useful_content: on memory-needing turns, the mean share of injected bytes that are useful
  (0 on a turn that got nothing)
- useful_rate, harmful_rate: useful / harmful items over all injected items (0 if none)
- harmful_turn_rate: share of turns with at least one harmful item injected
- silence: share of turns needing no memory on which nothing was injected
- routine_injection_rate: injection rate on probes tagged ``routine`` (coding steps)
- composite = 0.5 * hit_rate + 0.5 * silence - harmful_turn_rate, in [-1, 1]: needing
  and not needing memory weigh the same however many turns each has, and every turn that
  misled the agent costs a full turn's worth.

In session context (evaluation/harness/session_scoring.py; docs/read-path.md, "Session-aware
dose"): an agent that keeps its injections (``Profile.kept_by``) holds, on each turn,
every item given on an earlier turn of its session in the text it was given. An item
injected again in that text is a *repeat*: neutral, neither useful nor counted as new.
- session_hit_rate: share of memory-needing turns with a useful item injected or held
- repeat_rate: repeats over all injected items; repeat_byte_share: their bytes over all
  injected bytes
- session_useful_rate: useful items that are not repeats, over all injected items
- bytes_per_session: injected bytes per session
- useful_per_session: distinct items per session that were useful on a turn the agent
  had them (injected or held)
- session_composite = 0.5 * session_hit_rate + 0.5 * silence - harmful_turn_rate: the
  composite with the session's held items; thresholds are tuned on it (evaluation/harness/run.py)
For an agent that does not keep its injections nothing is held, and the session metrics
equal their per-turn counterparts.

Task state (probes whose gold names ``necessary_tasks``, evaluation/harness/task_feed.py):
- task_status_hit_rate: of task probes with necessary tasks, the share where every one of
  them was injected
- task_silence: of task probes whose right answer is silence (``necessary_tasks: []``: a
  run that never existed, another project's task), the share with nothing injected
- task_hit_rate: both together, over all task probes
- served: share of memory-needing turns served; a turn with necessary tasks is served only
  when all of them were injected (and, if it names useful cards too, one of those), any
  other memory-needing turn when it is a hit. Before task state no status follow-up could
  be served: ``dose-mem/no-tasks`` runs the same probes with task state disabled. In
  session context a task or card the agent holds from an earlier turn counts as given
  (task_hit and served; not hit_rate, which stays per turn).

By language (probe tags ``lang:<prompt>-><card>`` on memory turns, ``lang:<prompt>`` on
the rest; evaluation/envs/demo/README.md): ``by_language_pair`` is hit_rate per pair over
the memory-needing turns, ``silence_by_language`` is silence per prompt language over the
turns needing none. Same notions of hit and silence as above, same bootstrap.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, Field

from evaluation.harness.judges import USEFUL, Label, Verdict
from evaluation.harness.probes import Probe
from evaluation.harness.systems import Injection

COLUMNS = (
    "turns",
    "injected",
    "items",
    "bytes",
    "need",
    "need_hit",
    "need_useful_share",
    "noneed",
    "noneed_silent",
    "useful_items",
    "harmful_items",
    "harmful_turns",
    "routine",
    "routine_injected",
    "task_need",
    "task_need_hit",
    "task_quiet",
    "task_quiet_silent",
    "served",
    "sessions",
    "session_hit",
    "repeat_items",
    "repeat_bytes",
    "new_useful_items",
    "distinct_useful",
)
METRICS = (
    "hit_rate",
    "useful_content",
    "useful_rate",
    "harmful_rate",
    "harmful_turn_rate",
    "silence",
    "injection_rate",
    "routine_injection_rate",
    "items_per_turn",
    "bytes_per_turn",
    "composite",
    "task_hit_rate",
    "task_status_hit_rate",
    "task_silence",
    "served",
    "session_hit_rate",
    "repeat_rate",
    "repeat_byte_share",
    "session_useful_rate",
    "bytes_per_session",
    "useful_per_session",
    "session_composite",
)
RESAMPLES = 2000
SEED = 20260907
LANG_TAG = "lang:"
TRAP_TAG = "trap:"
PAIR_ORDER = ("en->en", "zh->zh", "zh->en", "en->zh", "mixed->en", "mixed->zh")
LANG_ORDER = ("en", "zh", "mixed")


def language_tag(tags: list[str]) -> str | None:
    """The value of a probe's ``lang:`` tag (``zh->en``, ``zh`` ...), if it has one."""
    return next((t.removeprefix(LANG_TAG) for t in tags if t.startswith(LANG_TAG)), None)


class TurnRecord(BaseModel):
    probe_id: str
    session_id: str
    system: str
    items: list[str]
    labels: dict[str, Label]
    bytes: int
    needs_memory: bool
    routine: bool
    useful_bytes: int
    lang: str | None = None
    trap: str | None = None
    task_need: bool = False
    task_quiet: bool = False
    task_hit: bool = False
    served: bool = False
    # Session context (``session_scoring.score_turns``): what the agent held from earlier
    # turns of its session, which injected items were repeats of it, whether this is the
    # session's first turn here, and the useful items first counted for the session now.
    held: list[str] = Field(default_factory=list)
    repeats: list[str] = Field(default_factory=list)
    repeat_bytes: int = 0
    first_turn: bool = False
    distinct_useful: int = 0

    @property
    def hit(self) -> bool:
        """A memory-needing turn that got at least one useful item (hit_rate's numerator)."""
        return self.needs_memory and any(self.labels.get(i) in USEFUL for i in self.items)

    @property
    def useful_ids(self) -> set[str]:
        """The items useful on this turn that the agent has: injected now, or held."""
        return {i for i in [*self.items, *self.held] if self.labels.get(i) in USEFUL}

    @property
    def session_hit(self) -> bool:
        """A memory-needing turn on which the agent has a useful item (injected or held)."""
        return self.needs_memory and bool(self.useful_ids)

    def counts(self) -> list[float]:
        n_items = len(self.items)
        useful = sum(self.labels.get(i) in USEFUL for i in self.items)
        repeated = set(self.repeats)
        new_useful = sum(self.labels.get(i) in USEFUL for i in self.items if i not in repeated)
        harmful = sum(self.labels.get(i) == Label.harmful for i in self.items)
        injected = n_items > 0
        share = self.useful_bytes / self.bytes if self.bytes else 0.0
        return [
            1,
            injected,
            n_items,
            self.bytes,
            self.needs_memory,
            self.hit,
            share if self.needs_memory else 0.0,
            not self.needs_memory,
            not self.needs_memory and not injected,
            useful,
            harmful,
            harmful > 0,
            self.routine,
            self.routine and injected,
            self.task_need,
            self.task_need and self.task_hit,
            self.task_quiet,
            self.task_quiet and self.task_hit,
            self.served,
            self.first_turn,
            self.session_hit,
            len(repeated),
            self.repeat_bytes,
            new_useful,
            self.distinct_useful,
        ]


def turn_record(
    system: str,
    probe: Probe,
    injection: Injection,
    verdict: Verdict,
    held: list[str] | None = None,
) -> TurnRecord:
    """One turn's counts. ``held``: what the agent holds from earlier turns of its
    session (``session_scoring.score_turns``; labelled in ``verdict`` too): a task the
    agent holds counts as given, and ``served`` counts a held useful card."""
    useful_bytes = sum(i.bytes for i in injection.items if verdict.labels.get(i.id) in USEFUL)
    gold = probe.gold
    wanted = set(gold.task_names(gold.necessary_tasks or [])) if gold else set()
    task_probe = gold is not None and gold.is_task_probe
    has = [*injection.ids, *(held or [])]
    got = wanted <= set(has) if wanted else not injection.items
    hit = verdict.needs_memory and any(verdict.labels.get(i) in USEFUL for i in has)
    if wanted:
        cards = gold is not None and bool(gold.necessary or gold.helpful)
        card_hit = any(verdict.labels.get(i) in USEFUL for i in has if i not in wanted)
        served = verdict.needs_memory and got and (card_hit or not cards)
    else:
        served = hit
    return TurnRecord(
        probe_id=probe.id,
        session_id=probe.session_id,
        system=system,
        items=injection.ids,
        labels=verdict.labels,
        bytes=injection.bytes,
        needs_memory=verdict.needs_memory,
        routine="routine" in probe.tags,
        useful_bytes=useful_bytes,
        lang=language_tag(probe.tags),
        trap=next((t.removeprefix(TRAP_TAG) for t in probe.tags if t.startswith(TRAP_TAG)), None),
        task_need=task_probe and bool(wanted),
        task_quiet=task_probe and not wanted,
        task_hit=task_probe and got,
        served=served,
        held=held or [],
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros_like(num, dtype=float), where=den > 0)


def metrics_from_sums(s: np.ndarray) -> dict[str, np.ndarray]:
    """Metrics from column sums; ``s`` is (..., len(COLUMNS)), so it works on resamples too."""
    c = {name: s[..., i].astype(float) for i, name in enumerate(COLUMNS)}
    out = {
        "hit_rate": _ratio(c["need_hit"], c["need"]),
        "useful_content": _ratio(c["need_useful_share"], c["need"]),
        "useful_rate": _ratio(c["useful_items"], c["items"]),
        "harmful_rate": _ratio(c["harmful_items"], c["items"]),
        "harmful_turn_rate": _ratio(c["harmful_turns"], c["turns"]),
        "silence": _ratio(c["noneed_silent"], c["noneed"]),
        "injection_rate": _ratio(c["injected"], c["turns"]),
        "routine_injection_rate": _ratio(c["routine_injected"], c["routine"]),
        "items_per_turn": _ratio(c["items"], c["turns"]),
        "bytes_per_turn": _ratio(c["bytes"], c["turns"]),
    }
    out["composite"] = 0.5 * out["hit_rate"] + 0.5 * out["silence"] - out["harmful_turn_rate"]
    out["task_hit_rate"] = _ratio(
        c["task_need_hit"] + c["task_quiet_silent"], c["task_need"] + c["task_quiet"]
    )
    out["task_status_hit_rate"] = _ratio(c["task_need_hit"], c["task_need"])
    out["task_silence"] = _ratio(c["task_quiet_silent"], c["task_quiet"])
    out["served"] = _ratio(c["served"], c["need"])
    out["session_hit_rate"] = _ratio(c["session_hit"], c["need"])
    out["repeat_rate"] = _ratio(c["repeat_items"], c["items"])
    out["repeat_byte_share"] = _ratio(c["repeat_bytes"], c["bytes"])
    out["session_useful_rate"] = _ratio(c["new_useful_items"], c["items"])
    out["bytes_per_session"] = _ratio(c["bytes"], c["sessions"])
    out["useful_per_session"] = _ratio(c["distinct_useful"], c["sessions"])
    out["session_composite"] = (
        0.5 * out["session_hit_rate"] + 0.5 * out["silence"] - out["harmful_turn_rate"]
    )
    return out


def session_matrix(records: list[TurnRecord]) -> np.ndarray:
    """Per-session column sums, sessions in first-seen order: the bootstrap's clusters."""
    order: dict[str, int] = {}
    for r in records:
        order.setdefault(r.session_id, len(order))
    matrix = np.zeros((len(order), len(COLUMNS)))
    for r in records:
        matrix[order[r.session_id]] += np.asarray(r.counts(), dtype=float)
    return matrix


def point_estimates(records: list[TurnRecord]) -> dict[str, float]:
    sums = session_matrix(records).sum(axis=0)
    return {k: float(v) for k, v in metrics_from_sums(sums).items()}


def bootstrap_sums(matrix: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Column sums of ``resamples`` session-level resamples: (resamples, columns)."""
    n = matrix.shape[0]
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples)
    return weights @ matrix


def percentile_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(values, [tail, 100 - tail])
    return float(lo), float(hi)


class Estimate(BaseModel):
    value: float
    ci: tuple[float, float]


def summarise(
    records: list[TurnRecord], resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, Estimate]:
    """Every metric with its 95% session-clustered bootstrap CI."""
    matrix = session_matrix(records)
    point = metrics_from_sums(matrix.sum(axis=0))
    boot = metrics_from_sums(bootstrap_sums(matrix, resamples, seed))
    return {
        name: Estimate(
            value=round(float(point[name]), 4),
            ci=tuple(round(x, 4) for x in percentile_ci(boot[name])),
        )
        for name in METRICS
    }


class Share(BaseModel):
    """``count`` of ``probes`` turns (hits, or silent turns), their rate and its 95% CI."""

    probes: int
    count: int
    rate: float
    ci: tuple[float, float]


def _share(
    records: list[TurnRecord],
    metric: str,
    column: str,
    resamples: int,
    seed: int,
    probes: str | None = None,
) -> Share:
    matrix = session_matrix(records)
    sums = matrix.sum(axis=0)
    boot = metrics_from_sums(bootstrap_sums(matrix, resamples, seed))[metric]
    probes = probes or ("need" if metric == "hit_rate" else "noneed")
    return Share(
        probes=int(sums[COLUMNS.index(probes)]),
        count=int(sums[COLUMNS.index(column)]),
        rate=round(float(metrics_from_sums(sums)[metric]), 4),
        ci=tuple(round(x, 4) for x in percentile_ci(boot)),
    )


def _by_lang(
    records: list[TurnRecord],
    keep: Callable[[TurnRecord], bool],
    order: tuple[str, ...],
    metric: str,
    column: str,
    resamples: int,
    seed: int,
) -> dict[str, dict[str, Share]]:
    groups: dict[str, dict[str, list[TurnRecord]]] = {}
    for r in records:
        if r.lang is not None and keep(r):
            groups.setdefault(r.lang, {}).setdefault(r.system, []).append(r)
    rank = {lang: i for i, lang in enumerate(order)}
    return {
        lang: {
            system: _share(mine, metric, column, resamples, seed)
            for system, mine in groups[lang].items()
        }
        for lang in sorted(groups, key=lambda g: (rank.get(g, len(rank)), g))
    }


def by_language_pair(
    records: list[TurnRecord], resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, dict[str, Share]]:
    """Pair -> system -> hit rate over that pair's memory-needing turns."""
    return _by_lang(
        records,
        lambda r: r.needs_memory and "->" in (r.lang or ""),
        PAIR_ORDER,
        "hit_rate",
        "need_hit",
        resamples,
        seed,
    )


def silence_by_language(
    records: list[TurnRecord], resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, dict[str, Share]]:
    """Prompt language -> system -> silence over that language's turns needing no memory."""
    return _by_lang(
        records,
        lambda r: not r.needs_memory and "->" not in (r.lang or ""),
        LANG_ORDER,
        "silence",
        "noneed_silent",
        resamples,
        seed,
    )


def task_shares(
    records: list[TurnRecord], resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, dict[str, Share]]:
    """System -> the task-state shares: ``task_hit_rate`` (every task probe),
    ``task_status_hit_rate`` (probes with necessary tasks), ``task_silence`` (probes whose
    right answer is silence) and ``served`` (memory-needing turns). Empty without task
    probes."""
    if not any(r.task_need or r.task_quiet for r in records):
        return {}
    by_system: dict[str, list[TurnRecord]] = {}
    for r in records:
        by_system.setdefault(r.system, []).append(r)
    return {
        system: {
            "task_hit_rate": _task_all(mine, resamples, seed),
            "task_status_hit_rate": _share(
                mine, "task_status_hit_rate", "task_need_hit", resamples, seed, "task_need"
            ),
            "task_silence": _share(
                mine, "task_silence", "task_quiet_silent", resamples, seed, "task_quiet"
            ),
            "served": _share(mine, "served", "served", resamples, seed, "need"),
        }
        for system, mine in by_system.items()
    }


def _task_all(records: list[TurnRecord], resamples: int, seed: int) -> Share:
    matrix = session_matrix(records)
    sums = matrix.sum(axis=0)
    boot = metrics_from_sums(bootstrap_sums(matrix, resamples, seed))["task_hit_rate"]
    col = {name: int(sums[i]) for i, name in enumerate(COLUMNS)}
    return Share(
        probes=col["task_need"] + col["task_quiet"],
        count=col["task_need_hit"] + col["task_quiet_silent"],
        rate=round(float(metrics_from_sums(sums)["task_hit_rate"]), 4),
        ci=tuple(round(x, 4) for x in percentile_ci(boot)),
    )


def task_hits_by_trap(records: list[TurnRecord]) -> dict[str, dict[str, tuple[int, int]]]:
    """Trap (a task probe's ``trap:`` tag) -> system -> (task hits, task probes)."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for r in records:
        if not (r.task_need or r.task_quiet):
            continue
        row = out.setdefault(r.trap or "-", {})
        hits, n = row.get(r.system, (0, 0))
        row[r.system] = (hits + r.task_hit, n + 1)
    return dict(sorted(out.items()))
