"""The report of one evaluation: report.md, results.json and two PNG figures."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from evaluation.harness.metrics import (
    METRICS,
    Share,
    by_language_pair,
    silence_by_language,
    task_hits_by_trap,
    task_shares,
)
from evaluation.harness.run import EvalResult

TABLE = METRICS[: METRICS.index("task_hit_rate")]  # the task metrics: TASK_TABLE, TASK_ROWS
QUALITY = ("hit_rate", "useful_rate", "harmful_rate", "silence", "composite")
# Shown beside TABLE when the environment has task probes.
TASK_TABLE = ("task_hit_rate", "served")
TASK_ROWS = {
    "task_hit_rate": "task-state hit rate (all task probes)",
    "task_status_hit_rate": "status follow-ups: every necessary task injected",
    "task_silence": "silence probes: nothing injected",
    "served": "memory-needing turns served",
}
WITH_TASKS, WITHOUT_TASKS = "dose-mem", "dose-mem/no-tasks"
# The turns in session context (session_scoring.py): its own table.
SESSION_TABLE = METRICS[METRICS.index("session_hit_rate") :]


def _share_json(share: Share) -> dict[str, object]:
    return {**share.model_dump(), "ci": list(share.ci)}


def _shares(table: dict[str, dict[str, Share]]) -> dict[str, dict[str, object]]:
    return {lang: {name: _share_json(s) for name, s in row.items()} for lang, row in table.items()}


def _finite(value: float) -> float | None:
    """JSON has no NaN: a metric with no turns to measure (no routine probe...) is null."""
    return None if math.isnan(value) else value


def summary_json(result: EvalResult) -> dict[str, object]:
    """The one object ``dose-mem eval run --json`` prints: every metric of every system
    (value and 95% CI), the thresholds chosen on dev, the split counts and the systems
    that were skipped with their reason (evaluation/README.md, "The --json summary")."""
    return {
        "env": result.env,
        "judge": result.judge,
        "probes": result.probes,
        "splits": {"dev": result.dev_probes, "test": result.test_probes},
        "systems": {
            name: {
                k: {"value": _finite(e.value), "ci": [_finite(x) for x in e.ci]}
                for k, e in s.metrics.items()
            }
            for name, s in result.systems.items()
        },
        "thresholds": {
            name: {
                "chosen": s.thresholds,
                "dev_composite": {g: _finite(v) for g, v in s.dev_composite.items()},
            }
            for name, s in result.systems.items()
        },
        "skipped": [s.model_dump() for s in result.skipped],
        "agreement": result.agreement,
        "language_pairs": _shares(by_language_pair(result.records)),
        "silence_by_language": _shares(silence_by_language(result.records)),
        **task_json(result),
    }


def task_json(result: EvalResult) -> dict[str, object]:
    """``task_state`` (system -> the four task shares) and ``served`` (with and without
    task state), only when the environment has task probes."""
    shares = task_shares(result.records)
    if not shares:
        return {}
    out: dict[str, object] = {"task_state": _shares(shares)}
    if WITH_TASKS in shares and WITHOUT_TASKS in shares:
        out["served"] = {
            "with_task_state": _share_json(shares[WITH_TASKS]["served"]),
            "without_task_state": _share_json(shares[WITHOUT_TASKS]["served"]),
        }
    out["task_problems"] = result.task_problems
    return out


def _cell(result: EvalResult, name: str, metric: str) -> str:
    e = result.systems[name].metrics[metric]
    digits = 1 if metric in ("bytes_per_turn", "bytes_per_session") else 3
    return f"{e.value:.{digits}f} [{e.ci[0]:.{digits}f}, {e.ci[1]:.{digits}f}]"


def _share_cell(share: Share | None) -> str:
    if share is None:
        return "-"
    return f"{share.rate:.3f} [{share.ci[0]:.2f}, {share.ci[1]:.2f}] ({share.count}/{share.probes})"


def _header(first: str, columns: Iterable[str]) -> list[str]:
    """A Markdown table's header and rule: ``| first | c1 | c2 |`` then ``|---|---|---|``."""
    columns = list(columns)
    lead = f"| {first} | " if first else "| | "
    return [lead + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]


def _language_table(table: dict[str, dict[str, Share]], names: list[str]) -> list[str]:
    langs = list(table)
    lines = _header("system", langs)
    lines += [
        "| " + name + " | " + " | ".join(_share_cell(table[g].get(name)) for g in langs) + " |"
        for name in names
    ]
    return lines


def language_sections(result: EvalResult) -> list[str]:
    """The two tables by language, or nothing when no test probe carries a ``lang:`` tag."""
    names = list(result.systems)
    lines: list[str] = []
    pairs = by_language_pair(result.records)
    if pairs:
        lines += [
            "",
            "## Hit rate by language pair",
            "",
            "Memory-needing test probes by their `lang:<prompt>-><card>` tag: the share that "
            "got a useful item (as hit_rate), 95% CI, (hits/probes).",
            "",
            *_language_table(pairs, names),
        ]
    quiet = silence_by_language(result.records)
    if quiet:
        lines += [
            "",
            "## Silence by prompt language",
            "",
            "Test probes needing no memory by their `lang:<prompt>` tag: the share with "
            "nothing injected, 95% CI, (silent/probes).",
            "",
            *_language_table(quiet, names),
        ]
    return lines


def task_sections(result: EvalResult) -> list[str]:
    """Task state with and without, every system's task shares, and hits by trap; nothing
    when no test probe is a task probe."""
    shares = task_shares(result.records)
    if not shares:
        return []
    names = list(result.systems)
    pair = [n for n in (WITH_TASKS, WITHOUT_TASKS) if n in shares]
    any_row = shares[names[0]]
    lines = [
        "",
        "## Task state",
        "",
        f"{any_row['task_hit_rate'].probes} test task probes "
        f"({any_row['task_status_hit_rate'].probes} status follow-ups that need a task, "
        f"{any_row['task_silence'].probes} whose right answer is silence) over "
        f"{result.task_events} task events; each probe sees the events strictly before its "
        "time. A follow-up is a hit when every necessary task was injected, a silence probe "
        "when nothing was. `dose-mem/no-tasks` is the same service with task state disabled "
        "(today's number). Rate, 95% CI, (count/probes).",
        "",
        *_header("", (f"`{n}`" for n in pair)),
    ]
    lines += [
        f"| {label} | " + " | ".join(_share_cell(shares[n][key]) for n in pair) + " |"
        for key, label in TASK_ROWS.items()
    ]
    lines += [
        "",
        "Every system:",
        "",
        *_header("system", TASK_ROWS),
    ]
    lines += [
        f"| {n} | " + " | ".join(_share_cell(shares[n][k]) for k in TASK_ROWS) + " |" for n in names
    ]
    traps = task_hits_by_trap(result.records)
    lines += [
        "",
        "Task probes by trap (`trap:` tag): hits/probes.",
        "",
        *_header("trap", names),
    ]
    for trap, row in traps.items():
        cells = [f"{row[n][0]}/{row[n][1]}" if n in row else "-" for n in names]
        lines.append(f"| {trap} | " + " | ".join(cells) + " |")
    if result.task_problems:
        lines += ["", "Task event lines extraction did not attribute as the environment says:", ""]
        lines += [f"- {p}" for p in result.task_problems]
    return lines


def markdown(result: EvalResult) -> str:
    names = list(result.systems)
    table = TABLE + (TASK_TABLE if task_shares(result.records) else ())
    lines = [
        f"# Evaluation of `{result.env}` (judge: {result.judge})",
        "",
        f"{result.probes} probes: {result.dev_probes} dev (thresholds tuned there), "
        f"{result.test_probes} test (reported here). Values are point estimates with 95% "
        "CIs from 2,000 session-clustered bootstrap resamples.",
        "",
        *_header("system", table),
    ]
    lines += [
        "| " + name + " | " + " | ".join(_cell(result, name, m) for m in table) + " |"
        for name in names
    ]
    lines += [
        "",
        "## In session context",
        "",
        "An agent that keeps its injections holds what it was given earlier in the session: "
        "a repeat is neutral, a held useful item meets the need (evaluation/README.md).",
        "",
        *_header("system", SESSION_TABLE),
    ]
    lines += [
        "| " + name + " | " + " | ".join(_cell(result, name, m) for m in SESSION_TABLE) + " |"
        for name in names
    ]
    lines += task_sections(result)
    lines += language_sections(result)
    lines += ["", "## Thresholds chosen on dev", ""]
    lines += [
        f"- {n}: {result.systems[n].thresholds} (dev session composite "
        f"{result.systems[n].dev_composite})"
        for n in names
    ]
    if result.skipped:
        lines += ["", "## Skipped systems", ""]
        lines += [f"- {s.name}: {s.reason}" for s in result.skipped]
    if result.agreement:
        lines += ["", "## Judge agreement", ""]
        lines += [f"- {k}: {v}" for k, v in result.agreement.items()]
    lines += ["", "![quality](quality.png)", "", "![dose](dose.png)", ""]
    return "\n".join(lines)


def _bars(result: EvalResult, metrics: tuple[str, ...], path: Path, title: str) -> None:
    names = list(result.systems)
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics), 3.6), squeeze=False)
    for ax, metric in zip(axes[0], metrics, strict=True):
        values = [result.systems[n].metrics[metric].value for n in names]
        lo = [
            v - result.systems[n].metrics[metric].ci[0] for n, v in zip(names, values, strict=True)
        ]
        hi = [
            result.systems[n].metrics[metric].ci[1] - v for n, v in zip(names, values, strict=True)
        ]
        ax.bar(range(len(names)), values, yerr=[lo, hi], capsize=3, color="#008080")
        ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=7)
        ax.set_title(metric, fontsize=9)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(result: EvalResult, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(markdown(result), encoding="utf-8")
    data = {
        **summary_json(result),
        "full": result.model_dump(mode="json"),
        "turns": [r.model_dump(mode="json") for r in result.records],
    }
    (out / "results.json").write_text(
        json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    _bars(result, QUALITY, out / "quality.png", "Quality on the test split (95% CI)")
    _bars(
        result,
        ("items_per_turn", "bytes_per_turn", "injection_rate"),
        out / "dose.png",
        "Dose per turn on the test split (95% CI)",
    )
    return [out / "report.md", out / "results.json", out / "quality.png", out / "dose.png"]
