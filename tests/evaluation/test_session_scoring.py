"""Turns scored in session context: a repeat of what the agent holds is neutral, a held
useful item meets the need, and the two per-session metrics (evaluation/harness/session_scoring.py,
evaluation/harness/metrics.py)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from evaluation.harness.judges import gold_labels, gold_verdict
from evaluation.harness.metrics import point_estimates, summarise
from evaluation.harness.probes import Gold, Probe, Split
from evaluation.harness.run import run_evaluation
from evaluation.harness.session_scoring import score_turns
from evaluation.harness.systems import InjectedCard, Injection
from memory_repo.settings import get_settings

START = dt.datetime(2026, 1, 5, 10, 0, tzinfo=dt.UTC)


def probe(session: str, agent: str, turn: int, necessary: list[str]) -> Probe:
    return Probe(
        id=f"{session}-{turn}",
        session_id=session,
        agent=agent,
        profile="full",
        timestamp=START + dt.timedelta(minutes=turn),
        prompt=f"turn {turn}",
        turn=turn,
        split=Split.test,
        gold=Gold(needs_memory=bool(necessary), necessary=necessary),
    )


def given(*cards: tuple[str, str]) -> Injection:
    items = [InjectedCard(id=i, text=text, bytes=100) for i, text in cards]
    return Injection(items=items, bytes=100 * len(items) + 40 * bool(items))


# hermes keeps its injections, calendar does not
TURNS = [
    (probe("h", "hermes", 1, ["a"]), given(("a", "- a"))),
    (probe("h", "hermes", 2, ["a"]), given(("a", "- a"))),  # a repeat: neutral
    (probe("h", "hermes", 3, ["a"]), given()),  # held: the need is met
    (probe("h", "hermes", 4, ["b"]), given(("a", "- a, edited"), ("b", "- b"))),  # a is new
    (probe("c", "calendar", 1, ["c"]), given(("c", "- c"))),
    (probe("c", "calendar", 2, ["c"]), given(("c", "- c"))),  # not kept: useful again
]


def scored(keeps: bool) -> list:
    probes = [p for p, _ in TURNS]
    answers = {p.id: a for p, a in TURNS}
    verdicts = {p.id: gold_verdict(p, a) for p, a in TURNS}
    return score_turns(
        "s",
        reversed(probes),  # walked in time order whatever the order given
        answers,
        verdicts,
        (lambda p: p.agent == "hermes") if keeps else None,
        gold_labels,
    )


def test_a_repeat_is_neutral_and_a_held_item_meets_the_need() -> None:
    records = {r.probe_id: r for r in scored(keeps=True)}
    assert records["h-2"].repeats == ["a"] and records["h-2"].hit and records["h-2"].session_hit
    assert records["h-3"].held == ["a"] and not records["h-3"].hit and records["h-3"].session_hit
    assert records["h-4"].repeats == []  # another text: a new version
    assert records["c-2"].repeats == [] and records["c-2"].held == []
    assert [records[f"h-{n}"].distinct_useful for n in (1, 2, 3, 4)] == [1, 0, 0, 1]
    m = point_estimates(list(records.values()))
    assert m["hit_rate"] == 5 / 6 and m["session_hit_rate"] == 1.0
    assert m["repeat_rate"] == 1 / 6  # of six injected items, h-2's copy of a
    assert m["repeat_byte_share"] == 100 / 800
    assert m["useful_rate"] == 5 / 6 and m["session_useful_rate"] == 4 / 6
    assert m["useful_per_session"] == (2 + 1) / 2  # h: a and b; c: c
    assert m["bytes_per_session"] == (140 + 140 + 0 + 240 + 140 + 140) / 2
    assert m["session_composite"] - m["composite"] == pytest.approx(0.5 * (1.0 - 5 / 6))


def test_without_keeping_agents_the_session_metrics_are_the_per_turn_ones() -> None:
    m = point_estimates(scored(keeps=False))
    assert m["session_hit_rate"] == m["hit_rate"] and m["session_composite"] == m["composite"]
    assert m["repeat_rate"] == 0 and m["session_useful_rate"] == m["useful_rate"]


def test_the_per_session_metrics_have_session_clustered_intervals() -> None:
    estimates = summarise(scored(keeps=True), resamples=200)
    for name in ("bytes_per_session", "useful_per_session"):
        low, high = estimates[name].ci
        assert low <= estimates[name].value <= high and low < high


def test_before_and_after_on_a_real_run(tiny_env: Path, tmp_path: Path) -> None:
    """Hermes asks for its chart palette twice in one test session: the per-turn system
    gives the teal card again (a repeat), the shipped one holds it back, and the need is
    met either way."""
    probes = tiny_env / "probes.jsonl"
    rows = [json.loads(line) for line in probes.read_text(encoding="utf-8").splitlines()]
    first = next(r for r in rows if r["id"] == "t6-1")
    again = first | {
        "id": "t6-3",
        "turn": 3,
        "timestamp": (
            dt.datetime.fromisoformat(first["timestamp"]) + dt.timedelta(minutes=9)
        ).isoformat(),
    }
    probes.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in [*rows, again]) + "\n",
        encoding="utf-8",
    )
    result = run_evaluation(
        tiny_env,
        get_settings(home=tmp_path / "home"),
        workdir=tmp_path / "w",
        only=["dose-mem/per-turn", "dose-mem/shipped"],
    )
    records = {(r.system, r.probe_id): r for r in result.records}
    before, after = records[("dose-mem/per-turn", "t6-3")], records[("dose-mem/shipped", "t6-3")]
    assert "teal" in before.items and before.repeats == ["teal"]
    assert "teal" not in after.items and "teal" in after.held and after.session_hit
    b = result.systems["dose-mem/per-turn"].metrics
    a = result.systems["dose-mem/shipped"].metrics
    assert a["session_hit_rate"].value >= b["hit_rate"].value
    assert a["repeat_rate"].value == 0 < b["repeat_rate"].value
    assert a["bytes_per_session"].value < b["bytes_per_session"].value


def test_a_status_line_the_agent_holds_still_answers_the_question() -> None:
    """Asked twice in one session: the engine holds an unchanged task line back, and the
    second turn is still served by the line the agent has."""
    asks = [probe("t", "hermes", n, []) for n in (1, 2)]
    for p in asks:
        p.gold = Gold(needs_memory=True, necessary_tasks=["r3"])
    answers = {asks[0].id: given(("task:r3", "- r3 running")), asks[1].id: given()}
    verdicts = {p.id: gold_verdict(p, answers[p.id]) for p in asks}
    kept = score_turns("s", asks, answers, verdicts, lambda p: True, gold_labels)
    resent = score_turns("s", asks, answers, verdicts, None, gold_labels)
    assert [(r.task_hit, r.served) for r in kept] == [(True, True), (True, True)]
    assert [(r.task_hit, r.served) for r in resent] == [(True, True), (False, False)]
