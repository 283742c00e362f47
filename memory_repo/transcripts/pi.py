"""Pi coding agent (badlogic/pi-mono): ``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``.

Read as ``@mariozechner/pi-coding-agent`` 0.73.1 writes it (its ``docs/session-format.md``
and ``dist/core/session-manager.js``). The first line is the header ``{type: "session",
version, id, timestamp, cwd, parentSession?}``; every other entry has ``id`` and
``parentId``, so a session is a tree: going back (``/tree``, ``/fork`` in place) leaves
the abandoned entries in the file. Only the *active branch* counts, the path from the
session's leaf back to the root, and the leaf is what Pi's ``SessionManager`` makes it
when it opens the file: the last entry appended (``_buildIndex``); there is no leaf
entry. Version 1 files (no ids) are one line of entries, as Pi's migration links them.

On that path, ``message`` entries carry ``message.role``: ``user`` (content string or
blocks; a ``/skill:name args`` prompt is stored as ``<skill name=... location=...>``
... ``</skill>`` followed by the args, and only the args are the person's words),
``assistant`` (blocks ``text``, ``toolCall`` {name}, ``thinking`` ignored), ``toolResult``
{toolName, content, isError} and ``bashExecution`` {command, output, exitCode,
excludeFromContext}: the person's own ``!``/``!!`` command, a tool turn named ``bash``,
never a user turn. ``custom`` messages and ``custom_message``, ``compaction``,
``branch_summary``, ``model_change``, ``label`` ... entries are not the person's words.
The latest ``session_info`` name is the title; ``parentSession`` (a fork's source file)
gives ``parent``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_repo.transcripts.records import parse_time, read_jsonl, text_of
from memory_repo.transcripts.transcript import Transcript, Turn, finish

AGENT = "pi"
# AgentSession.parseSkillBlock's pattern: the skill's text, then the person's arguments.
_SKILL = re.compile(
    r'^<skill name="[^"]+" location="[^"]+">\n[\s\S]*?\n</skill>(?:\n\n([\s\S]+))?$'
)


def read(path: Path) -> Transcript:
    """The active branch of the session at ``path``; corrupt lines are skipped."""
    entries = list(read_jsonl(path))
    header = next((e for e in entries if e.get("type") == "session"), {})
    body = _linked([e for e in entries if e.get("type") != "session"], header)
    transcript = Transcript(
        session_id=str(header.get("id") or path.stem.split("_", 1)[-1]),
        agent=AGENT,
        cwd=header.get("cwd"),
        started=parse_time(header.get("timestamp")),
        title=_title(body),
        parent=_parent(header.get("parentSession")),
        path=str(path),
    )
    for entry in active_branch(body):
        turn = _turn(entry)
        if turn is not None:
            transcript.turns.append(turn)
    return finish(transcript)


def discover(root: Path) -> Iterator[Path]:
    yield from sorted(root.glob("*/*.jsonl"))


def active_branch(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Root-first path from the leaf (the last entry) through ``parentId``; an entry
    whose parent is missing ends the path, as in Pi."""
    by_id = {str(e["id"]): e for e in entries if e.get("id") is not None}
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    current = entries[-1] if entries else None
    while current is not None and str(current.get("id")) not in seen:
        seen.add(str(current.get("id")))
        path.append(current)
        parent = current.get("parentId")
        current = by_id.get(str(parent)) if parent is not None else None
    return path[::-1]


def _linked(entries: list[dict[str, Any]], header: dict[str, Any]) -> list[dict[str, Any]]:
    """Version 1 files have no ids: link every entry to the one before (Pi's migration)."""
    if (header.get("version") or 1) >= 2:
        return entries
    linked = []
    for n, entry in enumerate(entries):
        linked.append({**entry, "id": f"v1-{n}", "parentId": f"v1-{n - 1}" if n else None})
    return linked


def _title(entries: list[dict[str, Any]]) -> str | None:
    """The latest ``session_info`` name in the file (an empty one clears it), as Pi's
    ``getSessionName``."""
    for entry in reversed(entries):
        if entry.get("type") == "session_info":
            name = entry.get("name")
            return (name.strip() or None) if isinstance(name, str) else None
    return None


def _parent(parent_session: Any) -> str | None:
    """The parent's session id, from its file name ``<time>_<uuid>.jsonl``."""
    if not isinstance(parent_session, str) or not parent_session:
        return None
    return Path(parent_session).stem.split("_", 1)[-1]


def _turn(entry: dict[str, Any]) -> Turn | None:
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, dict):
        return None
    at = parse_time(entry.get("timestamp")) or parse_time(message.get("timestamp"))
    role = message.get("role")
    if role == "user":
        return _user(message.get("content"), at)
    if role == "assistant":
        return _assistant(message.get("content"), at)
    if role == "toolResult":
        return _tool_result(message, at)
    if role == "bashExecution":
        return _bash(message, at)
    return None


def _user(content: Any, at: Any) -> Turn | None:
    text = text_of(content, ("text",))
    skill = _SKILL.match(text)
    if skill:
        text = skill.group(1) or ""
    return Turn(role="user", text=text, at=at) if text.strip() else None


def _assistant(content: Any, at: Any) -> Turn | None:
    blocks = content if isinstance(content, list) else []
    tools = [
        str(b.get("name")) for b in blocks if isinstance(b, dict) and b.get("type") == "toolCall"
    ]
    text = text_of(content, ("text",))
    return Turn(role="assistant", text=text, at=at, tools=tools) if text or tools else None


def _tool_result(message: dict[str, Any], at: Any) -> Turn:
    text = text_of(message.get("content"), ("text",))
    return Turn(
        role="tool",
        text=text,
        at=at,
        error=(text[:200] or "tool error") if message.get("isError") else None,
        tools=[str(message.get("toolName") or "tool")],
    )


def _bash(message: dict[str, Any], at: Any) -> Turn:
    """The person's own ``!`` command (``!!``: kept out of the model's context)."""
    code = message.get("exitCode")
    lines = (str(message.get("command") or ""), str(message.get("output") or ""))
    return Turn(
        role="tool",
        text="\n".join(line for line in lines if line),
        at=at,
        tools=["bash"],
        error=f"exit code {code}" if code not in (None, 0) else None,
    )
