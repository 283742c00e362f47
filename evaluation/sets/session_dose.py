"""``python -m evaluation.sets.session_dose ENV_DIR [ENV_DIR ...]``: session-aware dose, before
and after, on evaluation environments (docs/read-path.md, "Session-aware dose").

Before is ``dose-mem/per-turn`` (every passing item given on every turn), after is
``dose-mem/shipped`` (an item the agent holds is not given again); both run the shipped
thresholds untuned, so the difference is that change alone. Beside them the baselines
``dense`` and ``bm25`` (tuned on dev as always) and the per-profile rows of both
dose-mem systems (each probe under its agent's profile: hermes full, coding agents
working, calendar personal). Every turn is scored in session context
(``harness/session_scoring.py``): repeats are neutral, a held useful item meets the need.

The three checks, per environment:

- the after system's session hit rate is not lower than the before system's per-turn
  hit rate;
- the full profile's bytes per session fall by at least the share of repeats (of items)
  measured before (the share of repeated bytes is reported beside it);
- no more harmful items than before.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import BaseModel

from evaluation.harness.judges import Label
from evaluation.harness.metrics import Estimate, TurnRecord, summarise
from evaluation.harness.probes import Probe, load_probes
from evaluation.harness.run import run_evaluation
from memory_repo.settings import Settings, get_settings

BEFORE = "dose-mem/per-turn"
AFTER = "dose-mem/shipped"
SYSTEMS = (BEFORE, AFTER, "dense", "bm25")
SHOWN = (
    "hit_rate",
    "session_hit_rate",
    "repeat_rate",
    "repeat_byte_share",
    "harmful_rate",
    "bytes_per_turn",
    "bytes_per_session",
    "useful_per_session",
    "composite",
    "session_composite",
)


class Row(BaseModel):
    """One system (or one profile of it) on one environment's test split."""

    system: str
    profile: str
    sessions: int
    turns: int
    items: int
    harmful_items: int
    metrics: dict[str, Estimate]


class Checks(BaseModel):
    """The issue's three bars on one environment, each with the numbers it compares."""

    hit_not_lower: bool
    before_hit_rate: float
    after_session_hit_rate: float
    full_bytes_fall: float
    full_repeat_share_before: float
    full_repeat_byte_share_before: float
    full_bytes_fall_enough: bool
    harmful_before: int
    harmful_after: int
    harmful_not_more: bool


class EnvMeasure(BaseModel):
    env: str
    rows: list[Row]
    checks: Checks


def row(system: str, profile: str, records: list[TurnRecord]) -> Row:
    return Row(
        system=system,
        profile=profile,
        sessions=len({r.session_id for r in records}),
        turns=len(records),
        items=sum(len(r.items) for r in records),
        harmful_items=sum(r.labels.get(i) == Label.harmful for r in records for i in r.items),
        metrics=summarise(records),
    )


def measure(env_dir: Path, settings: Settings) -> EnvMeasure:
    """Run the four systems on ``env_dir`` and measure them in session context."""
    result = run_evaluation(env_dir, settings, only=list(SYSTEMS))
    probes: dict[str, Probe] = {p.id: p for p in load_probes(env_dir / "probes.jsonl")}
    by_system: dict[str, list[TurnRecord]] = {}
    for r in result.records:
        by_system.setdefault(r.system, []).append(r)
    rows = [row(name, "all", by_system[name]) for name in SYSTEMS if name in by_system]
    for name in (BEFORE, AFTER):
        for profile in ("full", "working", "personal"):
            mine = [r for r in by_system[name] if probes[r.probe_id].profile == profile]
            if mine:
                rows.append(row(name, profile, mine))
    return EnvMeasure(env=result.env, rows=rows, checks=checks(rows))


def checks(rows: list[Row]) -> Checks:
    """The three bars, from the before and after rows (all probes, and full's)."""

    def find(system: str, profile: str) -> Row:
        return next(r for r in rows if r.system == system and r.profile == profile)

    before, after = find(BEFORE, "all"), find(AFTER, "all")
    full_before, full_after = find(BEFORE, "full"), find(AFTER, "full")
    hit_before = before.metrics["hit_rate"].value
    hit_after = after.metrics["session_hit_rate"].value
    per_session_before = full_before.metrics["bytes_per_session"].value
    per_session_after = full_after.metrics["bytes_per_session"].value
    fall = 1 - per_session_after / per_session_before if per_session_before else 0.0
    repeats = full_before.metrics["repeat_rate"].value
    return Checks(
        hit_not_lower=hit_after >= hit_before,
        before_hit_rate=hit_before,
        after_session_hit_rate=hit_after,
        full_bytes_fall=round(fall, 4),
        full_repeat_share_before=repeats,
        full_repeat_byte_share_before=full_before.metrics["repeat_byte_share"].value,
        full_bytes_fall_enough=fall >= repeats,
        harmful_before=before.harmful_items,
        harmful_after=after.harmful_items,
        harmful_not_more=after.harmful_items <= before.harmful_items,
    )


def markdown(measures: list[EnvMeasure]) -> str:
    """One table per environment, then its checks."""
    lines: list[str] = []
    for m in measures:
        lines += [
            f"### {m.env}",
            "",
            "| system | profile | sessions | " + " | ".join(SHOWN) + " | harmful items |",
            "|---|---|---|" + "---|" * len(SHOWN) + "---|",
        ]
        for r in m.rows:
            cells = [_cell(r.metrics[k], k) for k in SHOWN]
            lines.append(
                f"| {r.system} | {r.profile} | {r.sessions} | "
                + " | ".join(cells)
                + f" | {r.harmful_items} |"
            )
        c = m.checks
        lines += [
            "",
            f"- session hit rate after {c.after_session_hit_rate:.3f} >= per-turn hit rate "
            f"before {c.before_hit_rate:.3f}: {_yes(c.hit_not_lower)}",
            f"- full bytes per session fall {c.full_bytes_fall:.1%} >= repeat share before "
            f"{c.full_repeat_share_before:.1%} of items: {_yes(c.full_bytes_fall_enough)} "
            f"({c.full_repeat_byte_share_before:.1%} of bytes)",
            f"- harmful items {c.harmful_after} <= {c.harmful_before}: {_yes(c.harmful_not_more)}",
            "",
        ]
    return "\n".join(lines)


def _cell(e: Estimate, metric: str) -> str:
    ratio = any(w in metric for w in ("rate", "share", "composite"))
    digits = 0 if "bytes_" in metric else 3 if ratio else 2
    return f"{e.value:.{digits}f} [{e.ci[0]:.{digits}f}-{e.ci[1]:.{digits}f}]"


def _yes(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("envs", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    measures = [measure(env, get_settings()) for env in args.envs]
    if args.json:
        print(json.dumps([m.model_dump(mode="json") for m in measures], indent=1))
    else:
        print(markdown(measures))
    return 0 if all(_passed(m.checks) for m in measures) else 1


def _passed(c: Checks) -> bool:
    return c.hit_not_lower and c.full_bytes_fall_enough and c.harmful_not_more


if __name__ == "__main__":
    sys.exit(main())
