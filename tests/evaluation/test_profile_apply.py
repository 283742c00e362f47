"""``profiles apply`` commits open proposals once, and never over a file that changed since."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import git
import pytest

from evaluation.tuning.profile_apply import apply_proposals, file_sha256
from memory_repo.history import commit, init_repo
from memory_repo.settings import Settings
from profiles.proposals import Measure, Proposal, ProposalError, TuneRun, load_run, save_run

NOW = dt.datetime(2026, 12, 6, 4, tzinfo=dt.UTC)


def proposal(agent: str, base_sha256: str) -> Proposal:
    text = "profile: working\ngate:\n  threshold: 0.4\n"
    return Proposal(
        agent=agent,
        profile="working",
        change="gate.threshold 0.45 -> 0.4",
        path=f"profiles/{agent}.yaml",
        override={"profile": "working", "gate": {"threshold": 0.4}},
        text=text,
        diff="",
        base_sha256=base_sha256,
        before=Measure(),
        after=Measure(),
        misses=1,
        routine=1,
        routine_limit=0.05,
    )


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    s = Settings(home=tmp_path)
    init_repo(s.memory_path)
    (s.memory_path / "registry.yaml").write_text("projects: []\n", encoding="utf-8")
    commit(s.memory_path, ["registry.yaml"], "init")
    return s


def test_nothing_to_apply_is_a_clear_error(settings: Settings) -> None:
    with pytest.raises(ProposalError, match="no tune-profiles run"):
        apply_proposals(settings)


def test_a_stale_proposal_is_skipped_and_marked(settings: Settings) -> None:
    hand = settings.memory_path / "profiles" / "pi.yaml"
    hand.parent.mkdir()
    hand.write_text("profile: working\nmax_items: 1\n", encoding="utf-8")
    run = TuneRun(
        run_id="tune-x",
        at=NOW,
        since=NOW,
        proposals=[proposal("codex", ""), proposal("pi", "0" * 64)],
    )
    save_run(settings.state_path, run)
    head = git.Repo(settings.memory_path).head.commit.hexsha

    sha, agents = apply_proposals(settings)

    assert agents == ["codex"]
    repo = git.Repo(settings.memory_path)
    assert repo.head.commit.hexsha == sha and repo.head.commit.parents[0].hexsha == head
    assert "Dose-Mem-Run: tune-x" in str(repo.head.commit.message)
    assert list(repo.head.commit.stats.files) == ["profiles/codex.yaml"]
    assert hand.read_text(encoding="utf-8") == "profile: working\nmax_items: 1\n"
    stored = load_run(settings.state_path)
    assert stored is not None
    assert [(p.agent, p.status) for p in stored.proposals] == [
        ("codex", "applied"),
        ("pi", "stale"),
    ]
    assert stored.proposals[0].commit == sha
    assert file_sha256(settings.memory_path / "profiles" / "codex.yaml")
    with pytest.raises(ProposalError, match="no open proposal"):
        apply_proposals(settings)
