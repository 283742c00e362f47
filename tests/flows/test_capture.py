"""Session capture: four agent formats into one transcript, the ledger, the inbox."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sqlite3
from pathlib import Path

import pytest
from ingest_home import OLD_HERMES_SCHEMA
from typer.testing import CliRunner

from dose_mem.cli.main import app
from flows.capture import ledger, sources
from memory_repo.attribution import locate
from memory_repo.inbox import BadTranscript, add_session, inbox_transcripts
from memory_repo.models import Project, Registry
from memory_repo.settings import get_settings
from memory_repo.transcripts import claude_code, codex, hermes, pi
from memory_repo.transcripts.transcript import Transcript, Turn

DATA = Path(__file__).parents[1] / "data" / "transcripts"
NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def _one(pattern: str) -> Path:
    return next(DATA.glob(pattern))


def _users(t: Transcript) -> list[str]:
    return [turn.text for turn in t.turns if turn.role == "user"]


def test_claude_code_keeps_user_words_and_skips_a_corrupt_line(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="dose_mem.capture"):
        t = claude_code.read(_one("claude_code/*/*.jsonl"))
    assert "skipping corrupt line" in caplog.text and ".jsonl:6" in caplog.text
    assert t.session_id == "6f1c2d3e-0a1b-4c5d-8e9f-101112131415"
    assert t.cwd == "/home/ada/proj/atlas"
    assert "Always mark unverified entries in amber. Red is for errors only." in _users(t)
    assert not any("def table" in u for u in _users(t))  # tool results are not the user's words
    assert [turn.error for turn in t.turns if turn.error] == ["AssertionError: expected amber"]
    assert {"Read", "Bash"} <= {name for turn in t.turns for name in turn.tools}
    assert t.started < t.ended


def test_codex_drops_injected_environment_context() -> None:
    t = codex.read(_one("codex/*/*/*/rollout-*.jsonl"))
    assert t.session_id == "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d"
    assert t.cwd == "/home/ada/proj/atlas"
    assert t.user_turns == 3
    assert not any("environment_context" in u for u in _users(t))
    assert any("shell" in turn.tools for turn in t.turns)


def test_pi_reads_header_messages_tool_results_and_bash() -> None:
    t = pi.read(_one("pi/*/*.jsonl"))
    assert t.session_id == "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
    assert t.cwd == "/home/ada/proj/atlas"
    assert "Always write commit messages in English, even when we talk in Chinese." in _users(t)
    assert any(turn.error == "exit code 1" for turn in t.turns)
    assert {"read", "bash"} <= {name for turn in t.turns for name in turn.tools}


def test_hermes_jsonl_and_state_db_read_the_same_words(tmp_path: Path) -> None:
    path = _one("hermes/sessions/*.jsonl")
    from_jsonl = hermes.read(path)
    assert "以后周报一律用中文写，技术名词保留英文。" in _users(from_jsonl)
    db = tmp_path / "state.db"
    conn = sqlite3.connect(db)
    conn.executescript(OLD_HERMES_SCHEMA)
    conn.execute(
        "INSERT INTO sessions VALUES (?, 'cli', 1763240400, 1763240600, 'idle')", (path.stem,)
    )
    for line in path.read_text().splitlines():
        m = json.loads(line)
        conn.execute(
            "INSERT INTO messages (session_id, role, content, tool_name, tool_calls, timestamp)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                path.stem,
                m["role"],
                m["content"],
                m.get("tool_name"),
                json.dumps(m["tool_calls"]) if "tool_calls" in m else None,
                m["timestamp"],
            ),
        )
    conn.commit()
    conn.close()
    [from_db] = list(hermes.read_db(db))
    assert _users(from_db) == _users(from_jsonl)
    assert from_db.session_id == path.stem and "read_file" in {
        n for t in from_db.turns for n in t.tools
    }


def test_missing_sources_warn_and_only_ended_sessions_count(tmp_path, monkeypatch, caplog) -> None:
    for var in ("CLAUDE", "CODEX", "HERMES", "PI"):
        monkeypatch.setenv(f"DOSE_MEM_CAPTURE_{var}_DIR", str(tmp_path / "nowhere" / var))
    monkeypatch.setenv("DOSE_MEM_CAPTURE_CLAUDE_DIR", str(DATA / "claude_code"))
    settings = get_settings(home=tmp_path / "home")
    with caplog.at_level(logging.WARNING, logger="dose_mem.capture"):
        found = list(sources.local_transcripts(settings))
    assert "capture source for codex not found" in caplog.text
    [(t, _mtime)] = found
    assert sources.is_ended(t, 0.0, settings, NOW)
    assert not sources.is_ended(t, NOW.timestamp() - 60, settings, NOW)  # still being written
    short = t.model_copy(update={"turns": t.turns[:3]})
    assert not sources.is_ended(short, 0.0, settings, NOW)  # fewer than 3 user turns


def test_ledger_reads_a_grown_session_only_from_its_new_part(tmp_path: Path) -> None:
    t = pi.read(_one("pi/*/*.jsonl"))
    path = tmp_path / "ledger.json"
    [first] = ledger.pending([t], ledger.load(path))
    assert first.start == 0
    entries: dict = {}
    ledger.record(entries, [first], "run-1")
    ledger.save(path, entries)
    assert ledger.pending([t], ledger.load(path)) == []
    grown = t.model_copy(update={"turns": [*t.turns, Turn(role="user", text="One more thing.")]})
    [again] = ledger.pending([grown], ledger.load(path))
    assert again.start == len(t.turns)
    edited = t.model_copy(update={"turns": [Turn(role="user", text="changed"), *t.turns[1:]]})
    assert ledger.pending([edited], ledger.load(path))[0].start == 0
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_pushed_sessions_land_in_the_inbox_once(tmp_path: Path) -> None:
    settings = get_settings(home=tmp_path / "home")
    data = _one("pi/*/*.jsonl").read_bytes()
    stored = add_session(settings, data, "pi")
    assert stored.new and stored.format == "pi"
    assert not add_session(settings, data, "pi").new
    normalised = (
        Transcript(
            session_id="x1",
            agent="mail-agent",
            turns=[Turn(role="user", text=f"turn {i}") for i in range(3)],
        )
        .model_dump_json()
        .encode()
    )
    assert add_session(settings, normalised, "mail-agent").format == "transcript"
    with pytest.raises(BadTranscript, match="no turns could be read as codex"):
        add_session(settings, b"not a transcript\n", "codex")
    pushed = {t.agent: t for t in inbox_transcripts(settings.inbox_path)}
    assert set(pushed) == {"pi", "mail-agent"} and pushed["pi"].user_turns == 4


def test_cli_sessions_add(tmp_path: Path) -> None:
    runner = CliRunner()
    home = tmp_path / "home"
    file = _one("codex/*/*/*/rollout-*.jsonl")
    ok = runner.invoke(app, ["--home", str(home), "sessions", "add", str(file), "--agent", "codex"])
    assert ok.exit_code == 0 and "stored" in ok.output
    assert len(list((home / "state" / "inbox" / "codex").iterdir())) == 1
    bad = runner.invoke(
        app, ["--home", str(home), "sessions", "add", str(file), "--agent", "../etc"]
    )
    assert bad.exit_code == 2 and "bad agent name" in bad.output
    assert os.path.isdir(home / "state" / "inbox")


def test_cwd_maps_to_the_deepest_registered_project() -> None:
    registry = Registry(
        projects=[
            Project(id="atlas", name="Atlas", paths=["/home/ada/proj/atlas"]),
            Project(id="atlas-docs", name="Atlas docs", paths=["/home/ada/proj/atlas/docs"]),
        ]
    )
    assert locate(registry, "/home/ada/proj/atlas/src").project == "atlas"
    assert locate(registry, "/home/ada/proj/atlas/docs/api").project == "atlas-docs"
    assert locate(registry, "/home/ada/proj/atlas-old").project is None
    assert locate(registry, None).how == "none"
