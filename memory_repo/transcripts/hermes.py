"""Hermes Agent (NousResearch/hermes-agent): ``~/.hermes/state.db`` plus JSONL transcripts.

From ``hermes_state.py`` / ``hermes_state_common.py``: a SQLite store (WAL) with a
``sessions`` table (id, source, started_at, ended_at, end_reason, parent_session_id ...)
and a ``messages`` table (id, session_id, role, content, tool_name, tool_calls JSON,
timestamp as epoch seconds). When the database refuses writes, Hermes diverts a
session's messages to ``sessions/<session_id>.jsonl``, one message dict per line
({role, content, tool_name?, tool_calls?, timestamp}); pushed transcripts use the same
shape. The database is opened read-only, so a running Hermes is never disturbed.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_repo.transcripts.records import parse_time, read_jsonl, text_of
from memory_repo.transcripts.transcript import Transcript, Turn, finish

AGENT = "hermes"
DB_NAME = "state.db"
log = logging.getLogger("dose_mem.capture")


def read(path: Path) -> Transcript:
    """One JSONL transcript (diverted or pushed)."""
    transcript = Transcript(session_id=path.stem, agent=AGENT, path=str(path))
    for message in read_jsonl(path):
        if message.get("session_id"):
            transcript.session_id = str(message["session_id"])
        transcript.cwd = message.get("cwd") or transcript.cwd
        turn = _turn(message)
        if turn is not None:
            transcript.turns.append(turn)
    return finish(transcript)


def read_db(db: Path) -> Iterator[Transcript]:
    """Every session of a Hermes state database, its messages in order."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        log.warning("cannot open Hermes database %s: %s", db, exc)
        return
    conn.row_factory = sqlite3.Row
    try:
        sessions = conn.execute("SELECT * FROM sessions ORDER BY started_at, id").fetchall()
        for row in sessions:
            transcript = Transcript(
                session_id=str(row["id"]),
                agent=AGENT,
                path=f"{db}#{row['id']}",
                started=parse_time(row["started_at"]),
                ended=parse_time(row["ended_at"]),
            )
            messages = conn.execute(
                "SELECT * FROM messages WHERE session_id = ? ORDER BY timestamp, id", (row["id"],)
            ).fetchall()
            for message in messages:
                turn = _turn(dict(message))
                if turn is not None:
                    transcript.turns.append(turn)
            yield finish(transcript)
    except sqlite3.Error as exc:
        log.warning("skipping unreadable Hermes database %s: %s", db, exc)
    finally:
        conn.close()


def _turn(message: dict[str, Any]) -> Turn | None:
    role = message.get("role")
    if role not in ("user", "assistant", "tool"):
        return None
    text = text_of(message.get("content"))
    tools = _tool_names(message.get("tool_calls"))
    if role == "tool" and message.get("tool_name"):
        tools = [str(message["tool_name"])]
    if not text and not tools:
        return None
    return Turn(role=role, text=text, at=parse_time(message.get("timestamp")), tools=tools)


def _tool_names(raw: Any) -> list[str]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return []
    names = []
    for call in raw if isinstance(raw, list) else []:
        if isinstance(call, dict):
            fn = call.get("function") if isinstance(call.get("function"), dict) else call
            if fn.get("name"):
                names.append(str(fn["name"]))
    return names


def discover(root: Path) -> Iterator[Path]:
    yield from sorted((root / "sessions").glob("*.jsonl"))
