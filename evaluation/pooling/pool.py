"""``dose-mem eval pool SUMMARY...``: many users' summaries in one report.

- **Metrics per profile** from the summed count columns (``metrics.metrics_from_sums``),
  with 95% CIs from a bootstrap that resamples *users* (each user's sums are one cluster)
  and the spread between users (each user's own value: min, median, max).
- **Where the profiles fail**: memory-needing turns served, per profile and language
  pair and per profile and prompt kind, summed over the users whose bucket was not
  suppressed.
- **A pooled calibration** (``calibrate``): the relevance model and every profile's bars
  refit on every user's shared candidates, with each user's simulated metrics under it.
  ``dose-mem eval pool --propose`` stores it as a proposal that ``dose-mem profiles
  apply`` commits to the memory repository and ``dose-mem rollback`` undoes
  (``propose``).

The report holds only what the summaries held: numbers and the summaries' vocabulary.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from pydantic import BaseModel

from evaluation.harness.metrics import COLUMNS, metrics_from_sums
from evaluation.pooling.calibrate import Calibration, calibrate, calibrated_profiles, simulate
from evaluation.pooling.summary import Summary
from profiles.model import Profile

RESAMPLES = 2000
SEED = 7
REPORTED = ("hit_rate", "silence", "routine_injection_rate", "harmful_rate", "composite")


class Pooled(BaseModel):
    value: float
    ci: tuple[float, float]
    users: int
    spread: tuple[float, float, float]


class Failure(BaseModel):
    profile: str
    by: str
    value: str
    memory_turns: int
    served: int
    users: int


class PoolReport(BaseModel):
    users: int
    turns: int
    metrics: dict[str, dict[str, Pooled]]
    failures: list[Failure]
    calibration: Calibration
    simulated: list[dict[str, dict[str, float]]]


def _pooled(per_user: list[np.ndarray], metric: str) -> Pooled:
    stack = np.vstack(per_user)
    point = float(metrics_from_sums(stack.sum(axis=0))[metric])
    rng = np.random.default_rng(SEED)
    n = len(per_user)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=RESAMPLES)
    boot = metrics_from_sums(weights @ stack)[metric]
    lo, hi = np.percentile(boot, [2.5, 97.5])
    own = [float(metrics_from_sums(v)[metric]) for v in per_user]
    return Pooled(
        value=round(point, 4),
        ci=(round(float(lo), 4), round(float(hi), 4)),
        users=n,
        spread=(round(min(own), 4), round(float(np.median(own)), 4), round(max(own), 4)),
    )


def pool(summaries: list[Summary], profiles: dict[str, Profile]) -> PoolReport:
    """The pooled report; raises ``ValueError`` for summaries of another column layout."""
    for s in summaries:
        if s.columns != list(COLUMNS):
            raise ValueError("a summary's columns differ from this version's; re-share it")
    by_profile: dict[str, list[np.ndarray]] = defaultdict(list)
    for s in summaries:
        for name, sums in s.profiles.items():
            if sums is not None:
                by_profile[name].append(np.asarray(sums))
    metrics = {
        name: {m: _pooled(vs, m) for m in REPORTED} for name, vs in sorted(by_profile.items())
    }
    need, hit = COLUMNS.index("need"), COLUMNS.index("need_hit")
    cells: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    users: dict[tuple[str, str, str], set[int]] = defaultdict(set)
    for n, s in enumerate(summaries):
        for b in s.buckets:
            if b.sums is None or b.kind != "memory":
                continue
            for by, value in (("language", b.lang or "-"), ("kind", b.kind)):
                cell = cells[(b.profile, by, value)]
                cell[0] += b.sums[need]
                cell[1] += b.sums[hit]
                users[(b.profile, by, value)].add(n)
    failures = [
        Failure(
            profile=p,
            by=by,
            value=v,
            memory_turns=int(c[0]),
            served=int(c[1]),
            users=len(users[(p, by, v)]),
        )
        for (p, by, v), c in sorted(cells.items())
    ]
    cal = calibrate(summaries, profiles)
    tuned = calibrated_profiles(profiles, cal)
    simulated = [
        {
            name: {k: round(v, 4) for k, v in simulate(s.turns, cal.model, p).items()}
            for name, p in tuned.items()
            if name in cal.bars
        }
        for s in summaries
    ]
    return PoolReport(
        users=len(summaries),
        turns=sum(len(s.turns) for s in summaries),
        metrics=metrics,
        failures=failures,
        calibration=cal,
        simulated=simulated,
    )


def render_report(report: PoolReport) -> str:
    lines = [
        f"# Pooled evaluation: {report.users} users, {report.turns} judged turns",
        "",
        "Per profile as shipped; 95% CI from resampling users; spread = min / median / max "
        "of the users' own values.",
        "",
        "| profile | metric | pooled | 95% CI | users | spread |",
        "|---|---|---|---|---|---|",
    ]
    for name, ms in report.metrics.items():
        for metric, v in ms.items():
            lines.append(
                f"| {name} | {metric} | {v.value:.3f} | {v.ci[0]:.3f}-{v.ci[1]:.3f} | "
                f"{v.users} | {v.spread[0]:.3f} / {v.spread[1]:.3f} / {v.spread[2]:.3f} |"
            )
    lines += [
        "",
        "## Where the profiles fail (memory turns served)",
        "",
        "| profile | by | value | served | of | users |",
        "|---|---|---|---|---|---|",
    ]
    for f in report.failures:
        lines.append(
            f"| {f.profile} | {f.by} | {f.value} | {f.served} | {f.memory_turns} | {f.users} |"
        )
    cal = report.calibration
    lines += [
        "",
        "## Pooled calibration",
        "",
        f"Relevance model refit on {cal.turns} turns of {cal.users} users; bars per profile "
        "(gate mode relevance):",
        "",
    ]
    lines += [f"- {name}: {bars}" for name, bars in cal.bars.items()]
    lines += [f"- {name}: stays as shipped ({why})" for name, why in cal.kept.items()]
    lines += ["", "Simulated on each user's shared turns under the calibration:", ""]
    for n, sim in enumerate(report.simulated, 1):
        cells = "; ".join(
            f"{p} served {m['hit_rate']:.2f}, routine {m['routine_injection_rate']:.2f}, "
            f"composite {m['composite']:.2f}"
            for p, m in sim.items()
            if m["turns"]
        )
        lines.append(f"- user {n}: {cells}")
    return "\n".join(lines) + "\n"
