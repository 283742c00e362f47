"""Hermes Agent sessions written by Hermes' own code, from a short spec.

Run by Hermes' interpreter (``evaluation.agents.install.hermes_python()``)::

    <hermes venv>/bin/python evaluation/agents/hermes_writer.py SPEC.json HERMES_HOME

it writes ``HERMES_HOME/state.db`` through ``hermes_state.SessionDB`` (hermes-agent
0.19.0): ``create_session``, ``update_session_cwd``, ``set_session_title``,
``append_message``, ``archive_and_compact``, ``replace_messages``, ``rewind_to_message``
and ``end_session``, the calls Hermes itself makes. The script imports only the standard
library and Hermes' modules. From the project's Python, ``write_hermes_sessions(spec,
hermes_home)`` installs Hermes if needed, dumps the spec to JSON and runs the script.

The spec is a list of sessions (YAML or JSON), written in order::

    - id: "20261103_091500_a1b2c3"      # session id
      source: cli                        # cli | telegram | discord | ...
      cwd: /home/mei/src/harbor          # omitted/null: a gateway chat with no cwd
      git_repo_root: /home/mei/src/harbor   # optional
      git_branch: main                   # optional
      title: "..."                       # optional (Hermes keeps titles unique)
      parent: <id>                       # optional: the session this one continues
      relation: compression              # with parent: 'compression' or 'delegate'
      started: "2026-11-03T09:15:00Z"
      end_reason: user_exit              # optional; 'compression' for a parent split
      messages:                          # entry k happens at started + 60 s * k
        - {role: user, content: "..."}
        - {role: assistant, content: "..."}
        - {role: assistant, content: "", tool_calls: [{name: terminal, arguments: "{}"}]}
        - {role: tool, tool_name: terminal, content: "..."}
        - {compact: "summary text", keep: 2, head: 0}
        - {rewind: 2}
        - {review_harness: "Review the conversation above and consider saving to memory ...",
           reply: "Nothing to save."}

What each entry does, as Hermes does it:

* a message: ``append_message``. ``tool_calls`` entries ``{name, arguments}`` become
  OpenAI-style calls ``{id, type: function, function: {name, arguments}}``; a ``tool``
  message answers the latest unanswered call (its ``tool_call_id``).
* ``compact``: the compressor's result, ``[first head active messages] + summary +
  [last keep active messages]`` (``agent/context_compressor.py`` ``compress``, phase 4):
  the summary is worded by ``ContextCompressor._with_summary_prefix`` and ends with
  ``_SUMMARY_END_MARKER``; its role is picked as the compressor picks it (``user`` after
  an assistant/tool head or when no user turn survives, else ``assistant``, flipped to
  avoid the first kept message's role, merged into that message when neither role fits).
  In a session without ``relation: compression`` it is the in-place compaction
  ``archive_and_compact`` (the active rows become ``active=0, compacted=1``). As the first
  entry of a ``relation: compression`` continuation, head and tail come from the
  parent's active messages and are written with ``replace_messages`` into the new
  session: the rotation of ``agent/conversation_compression.py``. Kept copies carry the
  timestamps of the rows they copy.
* ``rewind: n``: ``rewind_to_message`` on the n-th last active message, which must be a
  user message (Hermes' rule); it and everything after become ``active=0, compacted=0``.
* ``review_harness``: the background-review prompt as a user message, then the curator's
  ``reply`` (default "Nothing to save.") 1 s later, as older Hermes builds persisted them.

Sessions: ``relation: delegate`` creates the child as ``tools/delegate_tool.py`` does
(``model_config = {"_delegate_from": parent}``, ``parent_session_id = parent``);
``relation: compression`` as the rotation does (``parent_session_id = parent``, the
parent's ``model_config`` inherited, no cwd unless the spec gives one). ``cwd`` is
written with ``update_session_cwd``. ``end_reason`` ends the session at ``started + 60 s
* len(messages)``; without it the session stays open.

Timestamps are the spec's: messages get theirs through ``append_message(timestamp=)`` and
the message dicts' ``timestamp``; ``create_session`` and ``end_session`` stamp
``time.time()`` and take no time argument, so ``started_at`` and ``ended_at`` are set
with an ``UPDATE sessions`` on the file after SessionDB is closed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SLOT_S = 60.0  # one spec entry per minute
DEFAULT_REPLY = "Nothing to save."


def write_hermes_sessions(spec: list[dict[str, Any]], hermes_home: Path) -> Path:
    """Write ``spec`` (see the module docstring) into ``hermes_home/state.db`` with Hermes' code.

    Runs under the project's Python: installs Hermes when missing
    (``evaluation.agents.install.hermes_python``), then runs this file with Hermes'
    interpreter. Returns the database path; raises ``RuntimeError`` with the script's
    stderr when it fails.
    """
    from evaluation.agents.install import hermes_python

    hermes_home.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(spec, fh, default=_json_default, ensure_ascii=False)
        spec_path = Path(fh.name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "VIRTUAL_ENV"))}
    env["HERMES_HOME"] = str(hermes_home)
    try:
        done = subprocess.run(
            [str(hermes_python()), __file__, str(spec_path), str(hermes_home)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
    finally:
        spec_path.unlink(missing_ok=True)
    if done.returncode != 0:
        raise RuntimeError(f"hermes_writer failed ({done.returncode}): {done.stderr.strip()}")
    return hermes_home / "state.db"


def _json_default(value: Any) -> str:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {value!r}")


# --- everything below runs under Hermes' interpreter -----------------------------------


def main(argv: list[str]) -> int:
    """``hermes_writer.py SPEC.json HERMES_HOME``: write the spec's sessions, print a summary."""
    if len(argv) != 2:
        print("usage: hermes_writer.py SPEC.json HERMES_HOME", file=sys.stderr)
        return 2
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    home = Path(argv[1]).resolve()
    home.mkdir(parents=True, exist_ok=True)
    os.environ["HERMES_HOME"] = str(home)  # before Hermes' modules read it at import
    from hermes_state import SessionDB

    db_path = home / "state.db"
    db = SessionDB(db_path=db_path)
    times: dict[str, tuple[float, float | None]] = {}
    try:
        for session in spec:
            times[session["id"]] = _write_session(db, session)
    finally:
        db.close()
    _stamp_session_times(db_path, times)
    print(json.dumps({"db": str(db_path), "sessions": list(times)}))
    return 0


def _write_session(db: Any, session: dict[str, Any]) -> tuple[float, float | None]:
    """Create one session and play its entries; returns its (started_at, ended_at)."""
    sid = session["id"]
    started = _epoch(session["started"])
    parent, relation = session.get("parent"), session.get("relation")
    db.create_session(
        sid,
        session.get("source") or "cli",
        model="test/model",
        model_config=_model_config(db, parent, relation),
        parent_session_id=parent,
    )
    if session.get("cwd"):
        db.update_session_cwd(
            sid, session["cwd"], session.get("git_branch"), session.get("git_repo_root")
        )
    if session.get("title"):
        db.set_session_title(sid, session["title"])
    entries = session.get("messages") or []
    calls: list[str] = []
    for k, entry in enumerate(entries):
        at = started + SLOT_S * k
        rotation_source = parent if (k == 0 and relation == "compression") else None
        _play(db, sid, entry, at, calls, rotation_source)
    ended = None
    if session.get("end_reason"):
        db.end_session(sid, session["end_reason"])
        ended = started + SLOT_S * len(entries)
    return started, ended


def _model_config(db: Any, parent: str | None, relation: str | None) -> dict[str, Any] | None:
    if parent is None:
        return None
    if relation == "delegate":
        return {"_delegate_from": parent}  # tools/delegate_tool.py
    if relation == "compression":  # the continuation inherits the agent's model_config
        row = db.get_session(parent) or {}
        return json.loads(row["model_config"]) if row.get("model_config") else None
    raise ValueError(f"session with parent {parent!r} needs relation compression|delegate")


def _play(
    db: Any, sid: str, entry: dict[str, Any], at: float, calls: list[str], rotation: str | None
) -> None:
    """One spec entry at time ``at``; ``calls`` holds the ids of unanswered tool calls."""
    if "compact" in entry:
        _compact(db, sid, entry, at, rotation)
    elif "rewind" in entry:
        _rewind(db, sid, int(entry["rewind"]))
    elif "review_harness" in entry:
        db.append_message(sid, "user", entry["review_harness"], timestamp=at)
        db.append_message(sid, "assistant", entry.get("reply", DEFAULT_REPLY), timestamp=at + 1)
    else:
        _append(db, sid, entry, at, calls)


def _append(db: Any, sid: str, entry: dict[str, Any], at: float, calls: list[str]) -> None:
    tool_calls = None
    if entry.get("tool_calls"):
        tool_calls = []
        for n, call in enumerate(entry["tool_calls"]):
            call_id = f"call_{int(at)}_{n}"
            calls.append(call_id)
            tool_calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call.get("arguments", "{}")},
                }
            )
    tool_call_id = calls.pop(0) if entry["role"] == "tool" and calls else None
    db.append_message(
        sid,
        entry["role"],
        entry.get("content"),
        tool_name=entry.get("tool_name"),
        tool_calls=tool_calls,
        tool_call_id=tool_call_id,
        timestamp=at,
    )


def _compact(db: Any, sid: str, entry: dict[str, Any], at: float, rotation: str | None) -> None:
    """In-place compaction, or the rotation's handoff into a new continuation."""
    active = [_as_message(row) for row in db.get_messages(rotation or sid)]
    keep, head_n = int(entry.get("keep", 0)), int(entry.get("head", 0))
    head = active[:head_n]
    tail = active[len(active) - keep :] if keep else []
    compressed = [*head, *_summary_messages(entry["compact"], head, tail, at)]
    if compressed[-1].get("_merged"):
        compressed[-1].pop("_merged")
        tail = tail[1:]
    compressed += tail
    if rotation:
        db.replace_messages(sid, compressed)
    else:
        db.archive_and_compact(sid, compressed)


def _summary_messages(
    text: str, head: list[dict[str, Any]], tail: list[dict[str, Any]], at: float
) -> list[dict[str, Any]]:
    """The summary message as ``ContextCompressor.compress`` assembles it (phase 4)."""
    from agent.context_compressor import (
        _MERGED_PRIOR_CONTEXT_HEADER,
        _MERGED_SUMMARY_DELIMITER,
        _SUMMARY_END_MARKER,
        ContextCompressor,
        _append_text_to_content,
    )

    summary = ContextCompressor._with_summary_prefix(text)
    last_head = head[-1]["role"] if head else "user"
    first_tail = tail[0]["role"] if tail else "user"
    user_survives = any(m["role"] == "user" for m in [*head, *tail])
    force_user = last_head == "system" or not user_survives
    role = "user" if last_head in {"assistant", "tool"} or force_user else "assistant"
    if role == first_tail:
        flipped = "assistant" if role == "user" else "user"
        if flipped != last_head and not force_user:
            role = flipped
        else:  # neither role fits: merged into the first kept message
            merged = dict(tail[0])
            suffix = f"\n\n{_MERGED_SUMMARY_DELIMITER}\n\n{summary}\n\n{_SUMMARY_END_MARKER}"
            body = _append_text_to_content(merged.get("content", ""), suffix, prepend=False)
            prior = f"{_MERGED_PRIOR_CONTEXT_HEADER}\n"
            merged["content"] = _append_text_to_content(body, prior, prepend=True)
            merged["_merged"] = True
            return [merged]
    return [{"role": role, "content": f"{summary}\n\n{_SUMMARY_END_MARKER}", "timestamp": at}]


def _as_message(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row back as the message dict the compressor hands to SessionDB."""
    keys = ("role", "content", "tool_name", "tool_calls", "tool_call_id", "timestamp")
    return {k: row[k] for k in keys if row.get(k) is not None}


def _rewind(db: Any, sid: str, n: int) -> None:
    active = db.get_messages(sid)
    if n < 1 or n > len(active):
        raise ValueError(f"{sid}: cannot rewind {n} of {len(active)} active messages")
    db.rewind_to_message(sid, active[-n]["id"])  # raises unless it is a user message


def _stamp_session_times(db_path: Path, times: dict[str, tuple[float, float | None]]) -> None:
    """Give sessions the spec's start and end (SessionDB stamps ``time.time()``)."""
    conn = sqlite3.connect(db_path)
    try:
        with conn:
            for sid, (started, ended) in times.items():
                conn.execute("UPDATE sessions SET started_at = ? WHERE id = ?", (started, sid))
                if ended is not None:
                    conn.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", (ended, sid))
    finally:
        conn.close()


def _epoch(value: str | float) -> float:
    if isinstance(value, int | float):
        return float(value)
    parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)).timestamp()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
