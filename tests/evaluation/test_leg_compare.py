"""The search-leg comparison's agreement rule and interleaved timing."""

from __future__ import annotations

from evaluation.surveys.leg_compare import agreement, agreement_summary, interleaved


def test_lists_that_differ_only_at_the_cut_agree_within_ties() -> None:
    ours = [("a", 3.0), ("b", 2.0), ("c", 1.000)]
    theirs = [("a", 3.01), ("b", 2.0), ("d", 0.995)]  # c and d nearly tie at the cut
    assert agreement(ours, theirs) == {"overlap": 2 / 3, "same_within_ties": 1.0}


def test_a_miss_above_the_cut_is_no_tie() -> None:
    ours = [("a", 3.0), ("x", 2.5), ("c", 1.0)]
    theirs = [("a", 3.0), ("c", 1.0), ("d", 0.9)]
    assert agreement(ours, theirs)["same_within_ties"] == 0.0
    summary = agreement_summary([(ours, theirs), (ours, ours)], k=3)
    assert summary == {"top3_overlap_mean": round((2 / 3 + 1) / 2, 4), "top3_same_within_ties": 0.5}


def test_interleaved_runs_every_input_through_every_runner_each_round() -> None:
    calls: list[tuple[str, int]] = []
    runners = {"x": lambda i: calls.append(("x", i)), "y": lambda i: calls.append(("y", i))}
    timings = interleaved(runners, [1, 2], rounds=2)
    assert calls == [("x", 1), ("y", 1), ("x", 2), ("y", 2), ("y", 1), ("x", 1), ("y", 2), ("x", 2)]
    assert set(timings["p50_ms_median"]) == {"x", "y"}
    assert all(len(v) == 2 for v in timings["p50_ms_by_round"].values())
