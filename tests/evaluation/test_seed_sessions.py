"""The seed's whole-session dose measure (evaluation/sets/seed_sessions.py; docs/read-path.md,
"The seed's session measure"), on one coding and one assistant session of the file."""

from __future__ import annotations

from collections import Counter

import pytest

from evaluation.sets.seed_sessions import SessionSet, cuts, groups, load_sessions, run
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import Settings

CODING_AGENTS = {"claude-code", "codex", "pi"}


def test_the_file_holds_five_sessions_of_each_kind_at_their_length() -> None:
    sessions = load_sessions()
    assert len(sessions.coding) >= 5 and len(sessions.assistant) >= 5
    assert all(len(s.prompts) >= 10 and s.agent in CODING_AGENTS for s in sessions.coding)
    assert all(s.cwd for s in sessions.coding)
    assert all(len(s.prompts) >= 20 and s.agent == "hermes" for s in sessions.assistant)
    ids = [s.id for s in sessions.coding + sessions.assistant]
    assert len(ids) == len(set(ids))


@pytest.fixture(scope="module")
def measured() -> tuple[SessionSet, list]:
    sessions = load_sessions()
    coding = sessions.coding[0]
    # An assistant session that asks one question twice, word for word.
    assistant = next(s for s in sessions.assistant if Counter(s.prompts).most_common(1)[0][1] > 1)
    chosen = SessionSet(coding=[coding], assistant=[assistant])
    return chosen, run(make_embedder(Settings()), chosen)


def test_session_aware_dose_holds_back_and_never_adds_bytes(measured) -> None:
    _, replays = measured
    by = {(r.kind, r.profile, r.condition): r for r in replays}
    assert len(by) == 8  # 2 sessions x 2 profiles x 2 conditions
    for r in replays:
        if r.condition == "before":
            assert r.held == 0  # per-turn dose holds nothing back
    for kind in ("coding", "assistant"):
        for profile in ("full", "working"):
            before, after = by[(kind, profile, "before")], by[(kind, profile, "after")]
            assert after.bytes <= before.bytes
            assert after.given <= before.given
    repeated = by[("assistant", "full", "after")]
    assert repeated.held > 0
    assert repeated.bytes < by[("assistant", "full", "before")].bytes


def test_working_recalls_less_than_full_on_the_same_sessions(measured) -> None:
    _, replays = measured
    cut = cuts(groups(replays))
    for kind in ("coding", "assistant"):
        for condition in ("before", "after"):
            assert cut[kind][condition] is not None and cut[kind][condition] > 0
