"""Crash safety (SIGKILL between writing cards and committing), failed-run rollback, and
``dose-mem rollback``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import git
import pytest
from ingest_home import Home
from prefect.settings import get_current_settings
from typer.testing import CliRunner

from dose_mem.cli.main import app
from flows.ingest import ingest
from flows.lock import IngestBusy, ingest_lock
from memory_repo.bootstrap import init_memory
from memory_repo.store import load_memory

ROOT = Path(__file__).parents[2]
AGENTS = ("claude_code", "pi", "hermes")


def _cards(home: Home) -> dict[str, str]:
    memory = load_memory(home.memory)
    assert memory.problems == []
    return {i.id: i.conclusion or "" for i in memory.items.values()}


def _ingest_commits(home: Home) -> list[str]:
    repo = git.Repo(home.memory)
    return [c.hexsha for c in repo.iter_commits() if "Dose-Mem-Run:" in c.message]


def _killed_run(home: Home, point: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        **home.env,
        "DOSE_MEM_CRASH_AT": point,
        "PREFECT_API_URL": str(get_current_settings().api.url),
    }
    code = f"from flows.ingest import ingest; ingest(home={str(home.root)!r})"
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=ROOT,
        capture_output=True,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("point", ["before_commit", "after_commit"])
def test_a_killed_run_is_finished_by_the_next_run(
    harness, tmp_path, monkeypatch, point: str
) -> None:
    reference = Home(tmp_path / "reference", monkeypatch)
    for agent in AGENTS:
        reference.add(agent)
    ingest(home=str(reference.root))
    expected = _cards(reference)

    home = Home(tmp_path / "crashed", monkeypatch)
    for agent in AGENTS:
        home.add(agent)
    killed = _killed_run(home, point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()[-2000:]
    landed = len(_ingest_commits(home))
    assert landed == (0 if point == "before_commit" else 1)  # no partial commit
    assert not list(home.memory.rglob("*.tmp"))  # no partial file
    assert set(_cards(home)) == set(expected)  # every written card is whole
    [journal] = (home.state / "runs").glob("*.json")
    assert json.loads(journal.read_text())["status"] == "staged"
    assert not (home.state / "ledger.json").exists()

    again = ingest(home=str(home.root))
    assert again.recovered == [journal.stem]
    assert again.sessions_read == 0  # the recovered run recorded them
    assert _cards(home) == expected  # nothing lost, nothing duplicated
    assert len(_ingest_commits(home)) == 1
    assert not git.Repo(home.memory).is_dirty(untracked_files=True)


def test_a_run_failing_after_writing_leaves_nothing_behind(harness, home, monkeypatch) -> None:
    for agent in AGENTS:
        home.add(agent)
    init_memory(home.memory)
    lock = home.memory / ".git" / "index.lock"
    lock.write_text("")  # git refuses to commit: a real failure after the cards were written
    with pytest.raises(Exception, match=r"[Ll]ock"):
        ingest(home=str(home.root))
    assert _cards(home) == {}
    [journal] = (home.state / "runs").glob("*.json")
    assert json.loads(journal.read_text())["status"] == "rolled_back"
    lock.unlink()
    assert ingest(home=str(home.root)).sessions_read == 3  # nothing was marked as read


def test_cli_rollback_reverts_a_landed_run_and_reindexes(harness, home) -> None:
    home.add("claude_code")
    run = ingest(home=str(home.root))
    assert len(_cards(home)) == 1
    runner = CliRunner()
    result = runner.invoke(app, ["--home", str(home.root), "rollback", run.run_id])
    assert result.exit_code == 0, result.output
    assert _cards(home) == {}
    head = git.Repo(home.memory).head.commit
    assert f"Dose-Mem-Rollback: {run.run_id}" in head.message
    search = runner.invoke(app, ["--home", str(home.root), "search", "unverified entries amber"])
    assert "amber" not in search.output
    unknown = runner.invoke(app, ["--home", str(home.root), "rollback", "no-such-run"])
    assert unknown.exit_code == 1 and "no commit of ingest run" in unknown.output


def test_only_one_ingest_holds_the_lock(tmp_path) -> None:
    with (
        ingest_lock(tmp_path),
        pytest.raises(IngestBusy, match="in progress"),
        ingest_lock(tmp_path, wait_s=0.3),
    ):
        pass
    with ingest_lock(tmp_path):  # released on exit
        pass


def test_cli_ingest_runs_the_flow_once(harness, home) -> None:
    home.add("pi")
    result = CliRunner().invoke(app, ["--home", str(home.root), "ingest"])
    assert result.exit_code == 0, result.output
    assert "1 sessions" in result.output and "promote 1" in result.output
