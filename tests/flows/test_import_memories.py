"""Onboarding through the real ``import-memories`` flow: the four agents' memory files
become cards once, equivalents across files and languages merge, a stale contradiction
is superseded, the key is stored nowhere, a rerun writes nothing, rollback works."""

from __future__ import annotations

import subprocess
from pathlib import Path

import git
from adopt_home import CONDA, CONVENTION, KEY, UV_EN, UV_HERMES, UV_ZH
from prefect.settings import get_current_settings
from typer.testing import CliRunner

from dose_mem.cli.main import app
from flows.import_memories import import_memories
from flows.rollback import rollback
from memory_repo.settings import get_settings
from memory_repo.store import load_memory


def _live(home) -> dict[str, object]:
    memory = load_memory(home.memory)
    assert memory.problems == []
    gone = {old for item in memory.items.values() for old in item.supersedes}
    return {i.id: i for i in memory.items.values() if i.id not in gone}


def _grep(root, text: str) -> list[str]:
    found = subprocess.run(
        ["grep", "-rla", "--", text, str(root)], capture_output=True, text=True, check=False
    )
    return found.stdout.split()


def _prefect_db() -> Path:
    """The folder of the harness's Prefect database (flow and task runs, logs, artifacts;
    its write-ahead log too)."""
    url = get_current_settings().server.database.connection_url
    assert url is not None
    return Path(url.get_secret_value().split("///", 1)[1]).parent


def test_four_agents_import_into_one_card_per_rule_once(harness, home, agent_files) -> None:
    first = import_memories(home=str(home.root))
    assert first.commit is not None
    assert len(first.files_read) == 7
    cards = _live(home)
    [uv] = [c for c in cards.values() if "uv" in (c.conclusion or "")]
    assert uv.conclusion == UV_EN and uv.project == "global"
    quotes = {e.quote for e in uv.evidence}
    assert quotes == {UV_EN, UV_HERMES, UV_ZH}
    sessions = {e.session.rpartition(":")[0] for e in uv.evidence}
    assert sessions == {
        str(agent_files.claude_md),
        str(agent_files.hermes_user),
        str(agent_files.agents_md),
    }
    assert {e.agent for e in uv.evidence} == {"claude_code", "hermes", "codex"}

    assert not [c for c in cards.values() if "conda" in (c.conclusion or "")]
    [conda] = [o for o in first.outcomes if "conda" in o.statement]
    assert conda.action == "superseded" and UV_EN in conda.reason
    assert conda.sources == [f"{agent_files.openclaw_memory}:1"]

    [convention] = [c for c in cards.values() if c.conclusion == CONVENTION]
    assert convention.project == "lab" and convention.path.startswith("projects/lab/cards/")

    [secret] = [o for o in first.outcomes if "OpenAI key" in o.statement]
    assert secret.action == "reject" and secret.reason == "looks like a secret"
    assert KEY not in secret.statement
    assert _grep(home.root, KEY) == []  # memory (work tree), state, ledger, journals
    log = git.Repo(home.memory).git.log("-p", "--all")
    assert KEY not in log and UV_ZH in log
    db = _prefect_db()
    assert _grep(db, first.run_id) and _grep(db, KEY) == []  # the run is there, the key not
    commit_message = git.Repo(home.memory).head.commit.message
    assert "Dose-Mem-Run: " + first.run_id in commit_message and "1 superseded" in commit_message

    head = git.Repo(home.memory).head.commit.hexsha
    second = import_memories(home=str(home.root))
    assert second.commit is None and second.outcomes == []
    assert len(second.files_unchanged) == 7 and second.files_read == []
    assert git.Repo(home.memory).head.commit.hexsha == head


def test_dry_run_prints_what_would_happen_and_writes_nothing(harness, home, agent_files) -> None:
    head = git.Repo(home.memory).head.commit.hexsha
    result = CliRunner().invoke(app, ["--home", str(home.root), "import", "all", "--dry-run"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("dry run, nothing written: 7 files read")
    assert f"- would write: {UV_EN} [global]" in out
    assert f"- would write: {CONVENTION} [lab]" in out
    assert f"- superseded by a newer statement: {CONDA} [global]" in out
    assert "because looks like a secret" in out
    assert str(agent_files.agents_md) in out and str(agent_files.hermes_user) in out
    assert KEY not in out and "[redacted]" in out
    assert git.Repo(home.memory).head.commit.hexsha == head
    assert not (home.state / "ledger.json").exists()
    assert _grep(home.root, KEY) == []

    one = CliRunner().invoke(
        app, ["--home", str(home.root), "import", "codex", str(agent_files.agents_md), "--dry-run"]
    )
    assert one.exit_code == 0, one.output
    assert f"- would write: {UV_ZH} [global]" in one.output and "1 files read" in one.output
    bad = CliRunner().invoke(app, ["--home", str(home.root), "import", "nanoclaw"])
    assert bad.exit_code == 2 and "unknown agent" in bad.output
    latin1 = agent_files.lab / "NOTES.md"
    latin1.write_bytes("- Café notes in Latin-1.\n".encode("latin-1"))
    (agent_files.lab / "RULES.md").symlink_to(agent_files.project_md)
    mixed = CliRunner().invoke(
        app,
        [
            "--home",
            str(home.root),
            "import",
            "markdown",
            str(latin1),
            str(agent_files.project_md),
            str(agent_files.lab / "RULES.md"),
            "--dry-run",
        ],
    )
    assert mixed.exit_code == 0, mixed.output
    assert f"! skipped {latin1}: UnreadableFile: not UTF-8 text (byte 5)" in mixed.output
    assert mixed.output.count(CONVENTION) == 1  # a file and a link to it are read once


def test_a_rolled_back_import_can_be_imported_again(harness, home, agent_files) -> None:
    run = import_memories(agents=["claude-code", "codex"], home=str(home.root))
    assert run.commit is not None and run.cards_written == 2
    assert {c.conclusion for c in _live(home).values()} == {UV_EN, CONVENTION}
    rollback(get_settings(), run.run_id)
    assert _live(home) == {}
    assert "Roll back ingest run " + run.run_id in git.Repo(home.memory).head.commit.message

    later = import_memories(agents=["hermes"], home=str(home.root))
    assert later.files_read == [str(agent_files.hermes_user), str(agent_files.hermes_memory)]
    [uv] = [c for c in _live(home).values() if "uv" in (c.conclusion or "")]
    assert [e.quote for e in uv.evidence] == [UV_HERMES]

    again = import_memories(agents=["claude-code", "codex"], home=str(home.root))
    assert len(again.files_read) == 3  # the rolled-back run's files are read again
    assert again.decisions == {"merge": 1, "write": 1}
    [uv] = [c for c in _live(home).values() if "uv" in (c.conclusion or "")]
    assert {e.quote for e in uv.evidence} == {UV_HERMES, UV_EN, UV_ZH}
