"""Hermes Agent (NousResearch/hermes-agent): ``~/.hermes/state.db`` plus JSONL transcripts.

Learned from hermes-agent 0.19.0 (PyPI) ``hermes_state.py``, ``agent/context_compressor.py``,
``agent/conversation_compression.py`` and ``tools/delegate_tool.py``, and for the newer
schema from GitHub main (``hermes_state_common.py`` at 00704d087b7c,
``hermes_state_messages.py`` at 01e8a2d0e06b).

The database (WAL) has a ``sessions`` table (``id``, ``source``, ``started_at``,
``ended_at``, ``end_reason``, ``parent_session_id``, ``model_config`` JSON, ``cwd``,
``git_repo_root``, ``title`` ...) and a ``messages`` table (``id``, ``session_id``,
``role``, ``content``, ``tool_name``, ``tool_calls`` JSON, ``timestamp`` in epoch seconds,
``active``, ``compacted``; newer builds add ``display_kind``, ``display_metadata`` and a
persisted ``_compressed_summary``). Columns are read by name from ``SELECT *``, so a
database from before any of them reads too. Messages are read in insertion order
(``ORDER BY id``, as Hermes replays them). When the database refuses writes, Hermes on
GitHub main diverts a session's messages to ``sessions/<session_id>.jsonl``
(``gateway/session_transcript.py``; 0.19.0 queues them in memory), one message dict per
line ({role, content, tool_name?, tool_calls?, timestamp}); pushed transcripts use the
same shape. The database is opened read-only, so a running Hermes is never disturbed.

Sessions:

* A **compression continuation** (its parent ended with ``end_reason = 'compression'``,
  and it is not a delegated child of that parent) is joined to its parent: one
  transcript under the root's id, the parts' turns in order, ``parts`` naming the
  continuations, cwd/repo root/title from the first part that has one. The child starts
  with the compressor's handoff (``replace_messages``): the kept first and last messages
  copied from the parent around a summary; the copies are dropped (below).
* A **delegated sub-agent** (``model_config._delegate_from``, set by
  ``tools/delegate_tool.py``) is returned on its own with ``skip`` saying so, since its
  "user" turns are prompts the agent wrote; with no cwd of its own it takes its parent's.
  The marker counts only when it names the child's own parent: a continuation inherits
  its parent's ``model_config`` verbatim, so a marker naming another session there is
  inherited (as GitHub main's ``_non_continuation_child_sql`` reads it).

Messages that are not the person's words (nor the agent's answers to them) are dropped:

* compaction summaries, whatever their role, recognised by the compressor's prefixes
  (``SUMMARY_PREFIX`` and its ``_HISTORICAL_SUMMARY_PREFIXES`` share one introduction;
  ``LEGACY_SUMMARY_PREFIX``), also when merged into a kept message after
  ``_MERGED_SUMMARY_DELIMITER``, or by a true ``_compressed_summary`` column where it is
  persisted (0.19.0 keeps that flag in memory only);
* rewound rows (``active = 0 AND compacted = 0``: the user took them back);
* background-review harness prompts (``hermes_state._REVIEW_HARNESS_PREFIXES``) and the
  assistant reply right after each, as ``_strip_background_review_harness`` does;
* rows with ``display_kind = 'hidden'`` (model-facing scaffolding the newer gateway never
  shows), and user-role runtime scaffolding (``agent/conversation_compression.py``
  ``_SYNTHETIC_USER_PREFIXES`` and the no-user-turn marker);
* copies written by a compaction: ``archive_and_compact`` (in place) archives the live
  rows as ``active = 0, compacted = 1``, which are kept (they are the person's words,
  summarised away), and re-inserts the kept first and last messages as new active rows
  around the summary. Around each summary, the rows of its batch whose role and content
  repeat an earlier row are copies and read once. A batch runs back from the summary
  over rows that repeat earlier ones, never past the start of its session part (a
  continuation opens with its handoff) nor into the archived rows, and forward while rows
  keep repeating earlier ones; each earlier row answers for one copy per batch. A person
  who repeats a message word for word right after a compaction loses that repeat, which
  carries nothing new.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_repo.transcripts.records import parse_time, read_jsonl, text_of
from memory_repo.transcripts.transcript import Transcript, Turn, finish

AGENT = "hermes"
DB_NAME = "state.db"
log = logging.getLogger("dose_mem.capture")

Row = dict[str, Any]

# agent/context_compressor.py (0.19.0): every SUMMARY_PREFIX so far opens with this.
SUMMARY_LEADS = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below.",
    "[CONTEXT SUMMARY]:",  # LEGACY_SUMMARY_PREFIX
)
MERGED_SUMMARY_DELIMITER = "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]"
# hermes_state.py _REVIEW_HARNESS_PREFIXES (0.19.0), matched on the left-stripped content.
REVIEW_HARNESS_PREFIXES = (
    "Review the conversation above and update the skill library",
    "Review the conversation above and consider saving to memory",
)
# agent/conversation_compression.py _SYNTHETIC_USER_PREFIXES and the marker
# _ensure_compressed_has_user_turn appends when no human turn survives (0.19.0).
SYNTHETIC_USER_PREFIXES = (
    "[System: Your previous response was truncated",
    "[System: The previous response was cut off",
    "[System: Your previous tool call",
    "[Your active task list was preserved across context compression]",
    "[IMPORTANT: Background process ",
    "Continue from the compressed conversation context above. This marker exists because",
)
CONTENT_JSON_PREFIX = "\x00json:"  # SessionDB._CONTENT_JSON_PREFIX: list content as JSON
DELEGATE_ORPHANED = "__orphaned__"  # the v16 migration's marker for a parentless sub-agent
MAX_LINEAGE = 1000


def read(path: Path) -> Transcript:
    """One JSONL transcript (diverted or pushed); harness noise dropped as for the database."""
    transcript = Transcript(session_id=path.stem, agent=AGENT, path=str(path))
    messages = list(read_jsonl(path))
    for message in messages:
        if message.get("session_id"):
            transcript.session_id = str(message["session_id"])
        transcript.cwd = message.get("cwd") or transcript.cwd
    transcript.turns = _turns(messages)
    return finish(transcript)


def read_db(db: Path) -> Iterator[Transcript]:
    """Every conversation of a Hermes state database, read-only.

    One transcript per root session with its compression continuations joined; a
    delegated sub-agent's session comes with ``skip`` set. Ordered by the root's start.
    """
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        log.warning("cannot open Hermes database %s: %s", db, exc)
        return
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute("SELECT * FROM sessions ORDER BY started_at, id").fetchall()
        sessions = {str(row["id"]): dict(row) for row in rows}
        lineages = _lineages(sessions)
        owner = {sid: lin for lin in lineages for sid in lin.ids}
        for lineage in lineages:
            yield _transcript(conn, db, lineage, owner)
    except sqlite3.Error as exc:
        log.warning("skipping unreadable Hermes database %s: %s", db, exc)
    finally:
        conn.close()


# --- sessions ---------------------------------------------------------------------------


@dataclass
class _Lineage:
    """A root session and its compression continuations, in order; ``delegator`` is the
    session that delegated the root (``None`` unless the root is a sub-agent's)."""

    parts: list[Row] = field(default_factory=list)
    delegator: str | None = None

    @property
    def ids(self) -> list[str]:
        return [str(p["id"]) for p in self.parts]


def _lineages(sessions: dict[str, Row]) -> list[_Lineage]:
    """Group sessions into conversations: continuations under their root, roots in order."""
    children: dict[str, list[str]] = {}
    for sid, row in sessions.items():
        if _continues(row, sessions):
            children.setdefault(str(row["parent_session_id"]), []).append(sid)
    placed: set[str] = set()
    lineages = []
    roots = [sid for sid, row in sessions.items() if not _continues(row, sessions)]
    # a cycle of continuations has no root: each of its sessions then stands alone
    for sid in [*roots, *sessions]:
        if sid in placed:
            continue
        parts = _walk(sid, children, placed)
        lineage = _Lineage([sessions[p] for p in parts], _delegator(sessions[sid], sessions))
        lineages.append(lineage)
    return lineages


def _walk(root: str, children: dict[str, list[str]], placed: set[str]) -> list[str]:
    """``root`` then its continuations depth first, each session once."""
    order, stack = [], [root]
    while stack and len(order) < MAX_LINEAGE:
        sid = stack.pop()
        if sid in placed:
            continue
        placed.add(sid)
        order.append(sid)
        stack.extend(reversed(children.get(sid, [])))
    return order


def _continues(row: Row, sessions: dict[str, Row]) -> bool:
    """A compression continuation: its parent ended by compression and did not fork it."""
    parent_id = row.get("parent_session_id")
    parent = sessions.get(str(parent_id)) if parent_id else None
    if parent is None or parent.get("end_reason") != "compression":
        return False
    branched = _model_config(row).get("_branched_from") == parent_id
    return not branched and _delegator(row, sessions) is None


def _delegator(row: Row, sessions: dict[str, Row]) -> str | None:
    """The session that delegated this one (``__orphaned__`` if gone), or ``None``."""
    marker = _model_config(row).get("_delegate_from")
    if not marker:
        return None
    parent_id = row.get("parent_session_id")
    parent = sessions.get(str(parent_id)) if parent_id else None
    if parent is not None and marker != parent_id and parent.get("end_reason") == "compression":
        return None  # inherited from the parent by a continuation
    return str(parent_id or marker)


def _model_config(row: Row) -> dict[str, Any]:
    raw = row.get("model_config")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return {}
    return raw if isinstance(raw, dict) else {}


def _first(parts: list[Row], column: str) -> str | None:
    """The first non-empty value of ``column`` over the parts (root first)."""
    for part in parts:
        value = part.get(column)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _place(lineage: _Lineage, owner: dict[str, _Lineage]) -> tuple[str | None, str | None]:
    """(cwd, repo root) of a conversation; a sub-agent without one takes its delegator's."""
    seen: set[int] = set()
    current: _Lineage | None = lineage
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        cwd = _first(current.parts, "cwd")
        if cwd or current.delegator is None:
            return cwd, _first(current.parts, "git_repo_root")
        current = owner.get(current.delegator)
    return None, None


def _skip_reason(delegator: str | None) -> str | None:
    if delegator is None:
        return None
    whose = "its parent was deleted" if delegator == DELEGATE_ORPHANED else delegator
    return f"delegated sub-agent of {whose}: its prompts are the agent's, not the person's"


def _transcript(
    conn: sqlite3.Connection, db: Path, lineage: _Lineage, owner: dict[str, _Lineage]
) -> Transcript:
    root, tip = lineage.parts[0], lineage.parts[-1]
    cwd, repo_root = _place(lineage, owner)
    delegator = lineage.delegator
    transcript = Transcript(
        session_id=str(root["id"]),
        agent=AGENT,
        path=f"{db}#{root['id']}",
        cwd=cwd,
        repo_root=repo_root,
        source=root.get("source"),
        title=_first(lineage.parts, "title"),
        parent=(delegator if delegator != DELEGATE_ORPHANED else None)
        or root.get("parent_session_id"),
        parts=lineage.ids[1:],
        skip=_skip_reason(delegator),
        started=parse_time(root.get("started_at")),
        ended=parse_time(tip.get("ended_at")),
    )
    rows = [row for sid in lineage.ids for row in _stored_rows(conn, sid)]
    transcript.turns = _turns(rows)
    return finish(transcript)


# --- messages ---------------------------------------------------------------------------


def _stored_rows(conn: sqlite3.Connection, session_id: str) -> list[Row]:
    """A session's rows in insertion order, without rewound and hidden ones."""
    rows = conn.execute(
        "SELECT * FROM messages WHERE session_id = ? ORDER BY id", (session_id,)
    ).fetchall()
    return [r for r in map(dict, rows) if not _rewound(r) and r.get("display_kind") != "hidden"]


def _active(row: Row) -> bool:
    """Live or never flagged (a database from before the column, or a JSONL message)."""
    active = row.get("active")
    return active is None or bool(active)


def _rewound(row: Row) -> bool:
    return not _active(row) and not row.get("compacted")


def _turns(rows: list[Row]) -> list[Turn]:
    """The turns of a conversation's rows: noise, harness exchanges and copies out."""
    rows = _without_review_harness(rows)
    noise = {i for i, r in enumerate(rows) if _is_summary(r) or _is_synthetic(r)}
    copies = _compaction_copies(rows, noise)
    turns = []
    for i, row in enumerate(rows):
        turn = None if i in noise or i in copies else _turn(row)
        if turn is not None:
            turns.append(turn)
    return turns


def _content(raw: Any) -> Any:
    """A stored content: list content comes back from SessionDB's JSON encoding."""
    if isinstance(raw, str) and raw.startswith(CONTENT_JSON_PREFIX):
        try:
            return json.loads(raw[len(CONTENT_JSON_PREFIX) :])
        except json.JSONDecodeError:
            return raw
    return raw


def _text(row: Row) -> str:
    return text_of(_content(row.get("content")))


def _is_summary(row: Row) -> bool:
    """A compaction summary, standalone or merged into a kept message."""
    if row.get("_compressed_summary"):
        return True
    text = _text(row).lstrip()
    if MERGED_SUMMARY_DELIMITER in text:
        text = text.split(MERGED_SUMMARY_DELIMITER, 1)[1].lstrip()
    return text.startswith(SUMMARY_LEADS)


def _is_synthetic(row: Row) -> bool:
    return row.get("role") == "user" and _text(row).strip().startswith(SYNTHETIC_USER_PREFIXES)


def _is_review_harness(row: Row) -> bool:
    if row.get("role") not in ("user", "system"):
        return False
    return _text(row).lstrip().startswith(REVIEW_HARNESS_PREFIXES)


def _without_review_harness(rows: list[Row]) -> list[Row]:
    """Drop each harness prompt and the assistant reply right after it."""
    kept: list[Row] = []
    after_harness = False
    for row in rows:
        if _is_review_harness(row):
            after_harness = True
            continue
        if after_harness and row.get("role") == "assistant":
            after_harness = False
            continue
        after_harness = False
        kept.append(row)
    return kept


def _key(row: Row) -> tuple[Any, ...]:
    """What a copy shares with its original: role, content and tool calls as stored."""
    return (row.get("role"), _hashable(row.get("content")), _hashable(row.get("tool_calls")))


def _hashable(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float):
        return value or None
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _compaction_copies(rows: list[Row], noise: set[int]) -> set[int]:
    """Indices of rows a compaction re-inserted as copies of earlier rows."""
    copies: set[int] = set()
    first_seen: dict[tuple[Any, ...], int] = {}
    for i, row in enumerate(rows):
        first_seen.setdefault(_key(row), i)
    for s in sorted(i for i in noise if _is_summary(rows[i])):
        start = _batch_start(rows, s, noise, first_seen)
        earlier = Counter(_key(rows[i]) for i in range(start) if i not in noise and i not in copies)
        for i in [*range(start, s), *_forward(rows, s, noise)]:
            key = _key(rows[i])
            if i in noise or i in copies or earlier[key] <= 0:
                if i > s:
                    break  # the batch ends at the first row that is not a copy
                continue
            earlier[key] -= 1
            copies.add(i)
    return copies


def _forward(rows: list[Row], s: int, noise: set[int]) -> Iterator[int]:
    """The rows after summary ``s``, skipping scaffolding, up to the next summary."""
    for j in range(s + 1, len(rows)):
        if j in noise:
            if _is_summary(rows[j]):
                return
            continue
        yield j


def _batch_start(
    rows: list[Row], s: int, noise: set[int], first_seen: dict[tuple[Any, ...], int]
) -> int:
    """Where the compaction batch holding summary ``s`` begins.

    Back from the summary while rows are copies-to-be (scaffolding, or repeating an
    earlier row), never past the start of the session part (a continuation starts with
    its handoff) nor past the archived rows (in place, the live batch follows them).
    """
    i = s
    while i > 0:
        prev, here = rows[i - 1], rows[i]
        if prev.get("session_id") != here.get("session_id"):
            break
        if _active(here) and not _active(prev):
            break
        if i - 1 not in noise and first_seen[_key(prev)] >= i - 1:
            break
        i -= 1
    return i


def _turn(message: Row) -> Turn | None:
    role = message.get("role")
    if role not in ("user", "assistant", "tool"):
        return None
    text = text_of(_content(message.get("content")))
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
