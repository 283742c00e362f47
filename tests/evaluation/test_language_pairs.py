"""The report's tables by language: memory-needing probes are counted per ``lang:`` pair tag
and the rate is the share that got a useful card; quiet probes give silence per prompt
language. On the tiny environment with language tags and a few Chinese turns added."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from evaluation.harness.environment import load_environment
from evaluation.harness.judges import gold_verdict
from evaluation.harness.metrics import (
    TurnRecord,
    by_language_pair,
    language_tag,
    point_estimates,
    silence_by_language,
    turn_record,
)
from evaluation.harness.probes import Probe, Split
from evaluation.harness.systems import InjectedCard, Injection
from tests.evaluation.cli import eval_json
from tests.evaluation.tiny_env import TZ

# The tiny env's test probes get a tag each; t6-2 ("ok") stays untagged and is not counted.
TAGS = {"t5-1": "en->en", "t5-2": "en", "t6-1": "mixed->en"}
# One more test-week session per agent, in Chinese: (id, agent, cwd, prompt, needs, n, x, tag)
EXTRA = [
    (
        "x7-1",
        "coder",
        "/code/beta",
        "按我的习惯把环境配好",
        True,
        ["beta-env"],
        ["alpha-env"],
        "zh->en",
    ),
    ("x7-2", "coder", "/code/beta", "把 foo 改名叫 bar", False, [], [], "mixed"),
    ("x8-1", "hermes", None, "图表用什么配色？", True, ["teal"], ["amber"], "zh->en"),
    ("x8-2", "hermes", None, "谢谢", False, [], [], "zh"),
]
PAIRS = {"en->en": 1, "zh->en": 2, "mixed->en": 1}  # memory-needing test probes per pair
QUIET = {"en": 1, "zh": 1, "mixed": 1}  # tagged test probes needing no memory, per language


@pytest.fixture
def lang_env(tiny_env: Path) -> Path:
    path = tiny_env / "probes.jsonl"
    probes = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for p in probes:
        if p["id"] in TAGS:
            p["tags"] = [*p["tags"], f"lang:{TAGS[p['id']]}"]
    start = dt.datetime(2026, 1, 21, 10, 0, tzinfo=TZ)
    for i, (pid, agent, cwd, prompt, needs, nec, harm, tag) in enumerate(EXTRA):
        probes.append(
            {
                "id": pid,
                "session_id": pid[:2],
                "agent": agent,
                "profile": "full" if agent == "hermes" else "working",
                "timestamp": (start + dt.timedelta(hours=i)).isoformat(),
                "prompt": prompt,
                "cwd": cwd,
                "turn": int(pid[-1]),
                "split": "test",
                "tags": [f"lang:{tag}", *(["routine"] if agent == "coder" and not needs else [])],
                "gold": {"needs_memory": needs, "necessary": nec, "harmful": harm},
            }
        )
    path.write_text(
        "\n".join(json.dumps(p, ensure_ascii=False) for p in probes) + "\n", encoding="utf-8"
    )
    return tiny_env


def _records(system: str, probes: list[Probe], inject: dict[str, list[str]]) -> list[TurnRecord]:
    """Turn records of a system that injected ``inject[probe id]`` (nothing elsewhere)."""
    out = []
    for p in probes:
        items = [InjectedCard(id=i, text=i, bytes=10) for i in inject.get(p.id, [])]
        injection = Injection(items=items, bytes=10 * len(items))
        out.append(turn_record(system, p, injection, gold_verdict(p, injection)))
    return out


def test_pairs_count_memory_probes_and_rate_is_the_share_with_a_useful_card(
    lang_env: Path, tmp_path: Path
) -> None:
    env = load_environment(lang_env, tmp_path / "work")
    test = [p for p in env.probes if p.split == Split.test]
    assert language_tag(next(p for p in test if p.id == "x8-1").tags) == "zh->en"
    records = [
        # "en": every memory probe gets its necessary card, the quiet ones get noise
        *_records(
            "all",
            test,
            {p.id: p.gold.necessary or ["amber"] for p in test if p.gold is not None},
        ),
        # "half": of the two zh->en probes only x7-1 gets its card; x8-1 gets the harmful
        # superseded one, which is no hit; t6-1 (mixed->en) gets its card; quiet stays quiet
        *_records("half", test, {"x7-1": ["beta-env"], "x8-1": ["amber"], "t6-1": ["teal"]}),
    ]
    pairs = by_language_pair(records, resamples=200)
    assert list(pairs) == ["en->en", "zh->en", "mixed->en"]  # fixed order, no quiet tags
    for pair, n in PAIRS.items():
        assert {s: pairs[pair][s].probes for s in ("all", "half")} == {"all": n, "half": n}
    assert pairs["zh->en"]["all"].count == 2 and pairs["zh->en"]["all"].rate == 1.0
    assert pairs["zh->en"]["half"].count == 1 and pairs["zh->en"]["half"].rate == 0.5
    assert pairs["en->en"]["half"].rate == 0.0 and pairs["mixed->en"]["half"].rate == 1.0
    lo, hi = pairs["zh->en"]["half"].ci
    assert 0.0 <= lo <= 0.5 <= hi <= 1.0
    # the pairs partition the tagged memory probes, so their hits add up to hit_rate's
    half = [r for r in records if r.system == "half" and r.lang is not None]
    hits = sum(pairs[p]["half"].count for p in pairs)
    need = sum(pairs[p]["half"].probes for p in pairs)
    assert hits / need == pytest.approx(point_estimates(half)["hit_rate"])

    quiet = silence_by_language(records, resamples=200)
    assert list(quiet) == ["en", "zh", "mixed"]
    assert {g: quiet[g]["all"].probes for g in quiet} == QUIET
    assert all(quiet[g]["all"].rate == 0.0 for g in quiet)  # "all" injected noise there
    assert all(quiet[g]["half"].rate == 1.0 for g in quiet)


def test_eval_run_reports_the_pairs_in_json_and_markdown(lang_env: Path, tmp_path: Path) -> None:
    data, out = eval_json(lang_env, tmp_path)
    pairs = data["language_pairs"]
    assert set(pairs) == set(PAIRS)
    turns = json.loads((out / "results.json").read_text(encoding="utf-8"))["turns"]
    for pair, n in PAIRS.items():
        assert set(pairs[pair]) == set(data["systems"])
        for system, cell in pairs[pair].items():
            # recount from the stored turns: a hit is a necessary or helpful item injected
            mine = [t for t in turns if t["system"] == system and t["lang"] == pair]
            hits = sum(
                any(t["labels"][i] in ("necessary", "helpful") for i in t["items"]) for t in mine
            )
            assert cell["probes"] == n == len(mine)
            assert cell["count"] == hits
            assert cell["rate"] == pytest.approx(hits / n, abs=1e-4)
            assert cell["ci"][0] <= cell["rate"] <= cell["ci"][1]
    assert {g: row["bm25"]["probes"] for g, row in data["silence_by_language"].items()} == QUIET
    report = (out / "report.md").read_text(encoding="utf-8")
    section = report.split("## Hit rate by language pair")[1].split("## Silence")[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert rows[0] == "| system | en->en | zh->en | mixed->en |"
    bm25 = next(row.split(" | ")[1:] for row in rows if row.startswith("| bm25 |"))
    for cell, pair in zip(bm25, PAIRS, strict=True):
        assert cell.rstrip(" |").endswith(f"({pairs[pair]['bm25']['count']}/{PAIRS[pair]})")
