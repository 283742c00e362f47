"""The recall log: every recall decision, search and read, as JSON lines under state.

One entry per event (``RecallLogEntry``): a recall with its trigger, reason, candidates
(gate score, bar, why each was dropped) and what was injected; a search with the ids it
returned; a read with the id read. Searches and reads are the *signals* that tell
whether a recall served the agent: ``joined`` pairs each recall with the signals of the
same agent and session that followed it within a few turns.

Writing never slows a recall: ``RecallLog.record`` only puts a dict on a queue; one
daemon thread, woken at most every ``BATCH_SECONDS``, validates, redacts
(``memory_repo.secrets.redact``) or hashes the prompts, and appends the batch. Nothing
is fsync'd: the log is derived, and a crash loses at most its last lines. The log lives
in a folder under state (never in the memory repository): ``current.jsonl`` plus
rotated ``<UTC time>.jsonl`` files, bounded by ``recall_log_days`` and ``recall_log_mb``
(docs/read-path.md, "The recall log").
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from memory_repo.secrets import redact

log = logging.getLogger(__name__)

CURRENT = "current.jsonl"
# The current file is rotated at this share of the size bound, so at most this much of
# the log is lost when the oldest rotated file is pruned.
ROTATE_SHARE = 0.25
# Entries waiting for the writer; beyond this a recall drops its entry rather than wait.
QUEUE_MAX = 10_000
# The writer wakes at most this often and writes everything queued at once: its work
# (redaction, validation, the append) then takes the GIL from a request at most once
# per period instead of once per recall, so the median recall never waits for it.
BATCH_SECONDS = 0.25
BATCH_MAX = 256
# A signal without a session joins the latest recall of its agent no older than this.
SESSIONLESS_WINDOW = dt.timedelta(hours=2)

Kind = Literal["recall", "search", "read"]
Prompts = Literal["text", "hash"]


class LoggedCandidate(BaseModel):
    """One hit the gate saw (or never reached): its score (in gate mode ``relevance``, a
    probability) against its bar, and its fate.

    ``dropped``: None (injected), ``below_threshold``, ``l0_overlap`` (passed the bar,
    but its L0 line shares no word with the prompt), ``held`` (passed, but the agent
    keeps it since ``given_turn`` of this session), ``budget`` (passed, did not fit the
    bytes left) or ``item_cap`` (after the profile's item cap: never judged and without a
    score in mode ``score``; passed but crowded out by more relevant items in mode
    ``relevance``).
    """

    id: str
    project: str
    rank: int
    score: float | None = None
    bar: float | None = None
    dropped: str | None = None
    given_turn: int | None = None


class RecallLogEntry(BaseModel):
    """One recall decision, search or read. ``prompt`` is the prompt or query as the
    agent sent it with secrets redacted, or None when prompts are stored as hashes;
    ``prompt_sha256`` (of the text as sent) is always there, so repeats can be counted."""

    kind: Kind
    at: dt.datetime
    agent: str
    profile: str
    session: str | None = None
    turn: int | None = None
    project: str | None = None
    project_how: str | None = None
    cwd: str | None = None
    trigger: str | None = None
    reason: str | None = None
    prompt: str | None = None
    prompt_sha256: str = ""
    candidates: list[LoggedCandidate] = Field(default_factory=list)
    injected: list[str] = Field(default_factory=list)
    bytes: int = 0
    ids: list[str] = Field(default_factory=list, description="Search: hits; read: the id.")


class Joined(BaseModel):
    """A recall and the searches and reads of the same agent and session that followed
    it within ``turns`` turns (before its next recall that injected anything new)."""

    recall: RecallLogEntry
    signals: list[RecallLogEntry] = Field(default_factory=list)

    @property
    def read_ids(self) -> list[str]:
        return [i for s in self.signals if s.kind == "read" for i in s.ids]

    @property
    def searched(self) -> bool:
        return any(s.kind == "search" for s in self.signals)


def prompt_fields(text: str, prompts: Prompts) -> dict[str, str | None]:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return {"prompt": redact(text) if prompts == "text" else None, "prompt_sha256": digest}


class RecallLog:
    """The writer: ``record`` is non-blocking; a daemon thread appends.

    Bounds: the current file is rotated once it passes ``ROTATE_SHARE`` of
    ``max_bytes``; rotated files older than ``days`` are deleted, and the oldest ones
    while the folder is over ``max_bytes``. ``flush`` waits until everything recorded
    so far is written (tests, shutdown).
    """

    def __init__(
        self,
        folder: Path,
        *,
        days: float,
        max_mb: float,
        prompts: Prompts,
        now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    ) -> None:
        """``now`` stamps each entry (a test replays a week with a clock of its own)."""
        self.folder = Path(folder)
        self.now = now
        self.days = days
        self.max_bytes = int(max_mb * 1024 * 1024)
        self.prompts = prompts
        self.dropped = 0
        self.written = 0
        self.busy_s = 0.0  # the writer thread's CPU time
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(QUEUE_MAX)
        self._thread = threading.Thread(target=self._run, name="recall-log", daemon=True)
        self._thread.start()

    def record(self, kind: Kind, **fields: Any) -> None:
        """Queue one entry; ``fields`` as in ``RecallLogEntry`` with ``prompt`` as raw text.
        A field may be a function of no arguments: it is called on the writer thread
        (work the caller need not wait for). Never blocks: with the queue full the entry
        is counted in ``dropped`` and lost."""
        fields["kind"] = kind
        fields.setdefault("at", self.now())
        try:
            self._queue.put_nowait(fields)
        except queue.Full:
            self.dropped += 1

    def flush(self) -> None:
        self._queue.join()

    def close(self) -> None:
        self.flush()
        self._queue.put(None)
        self._thread.join(timeout=5)

    # -- the writer thread ------------------------------------------------------------
    def _run(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.prune()
        while True:
            batch = [self._queue.get()]
            if self._queue.qsize() < BATCH_MAX:
                time.sleep(BATCH_SECONDS)
            while len(batch) < BATCH_MAX:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            started = time.thread_time()
            try:
                self._write([f for f in batch if f is not None])
            except Exception:
                log.warning("recall log: could not write %d entries", len(batch), exc_info=True)
            finally:
                self.busy_s += time.thread_time() - started
                self.written += len(batch)
                for _ in batch:
                    self._queue.task_done()
            if None in batch:
                return

    def _write(self, batch: list[dict[str, Any]]) -> None:
        lines = []
        for fields in batch:
            try:
                entry = self._entry(fields)
            except Exception:
                log.warning("recall log: entry skipped", exc_info=True)
                continue
            lines.append(entry.model_dump_json(exclude_defaults=True) + "\n")
        if not lines:
            return
        path = self.folder / CURRENT
        with path.open("a", encoding="utf-8") as fh:
            fh.writelines(lines)
            size = fh.tell()
        if size >= self.max_bytes * ROTATE_SHARE:
            stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%f")
            path.rename(self.folder / f"{stamp}.jsonl")
            self.prune()

    def _entry(self, fields: dict[str, Any]) -> RecallLogEntry:
        for key, value in fields.items():
            if callable(value):
                fields[key] = value()
        raw = fields.pop("prompt", None)
        if raw is not None:
            fields.update(prompt_fields(raw, self.prompts))
        return RecallLogEntry.model_validate(fields)

    def prune(self) -> list[Path]:
        """Delete rotated files past the retention days, then the oldest while over size."""
        rotated = _rotated(self.folder)
        cutoff = dt.datetime.now(dt.UTC).timestamp() - self.days * 86400
        gone = [p for p in rotated if p.stat().st_mtime < cutoff]
        kept = [p for p in rotated if p not in gone]
        current = self.folder / CURRENT
        total = sum(p.stat().st_size for p in kept) + (
            current.stat().st_size if current.exists() else 0
        )
        while kept and total > self.max_bytes:
            oldest = kept.pop(0)
            total -= oldest.stat().st_size
            gone.append(oldest)
        for p in gone:
            p.unlink(missing_ok=True)
        return gone


def _rotated(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.jsonl") if p.name != CURRENT)


def log_files(folder: Path) -> list[Path]:
    """The log's files, oldest first."""
    current = Path(folder) / CURRENT
    return _rotated(Path(folder)) + ([current] if current.exists() else [])


def read_entries(
    folder: Path,
    since: dt.datetime | None = None,
    agent: str | None = None,
    session: str | None = None,
    limit: int | None = None,
    kind: Kind | None = None,
) -> list[RecallLogEntry]:
    """Entries oldest first, filtered; with ``limit``, the newest ``limit`` of them.

    A line that is not a valid entry (a torn last line, a hand edit) is skipped with a
    warning naming the file and line; a missing folder is an empty log.
    """
    out: list[RecallLogEntry] = []
    for path in log_files(folder):
        with path.open(encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    entry = RecallLogEntry.model_validate_json(line)
                except ValidationError as exc:
                    log.warning("%s:%d: not a recall log entry (%s); skipped", path, n, exc)
                    continue
                if since is not None and entry.at < since:
                    continue
                if agent is not None and entry.agent != agent:
                    continue
                if session is not None and entry.session != session:
                    continue
                if kind is not None and entry.kind != kind:
                    continue
                out.append(entry)
    out.sort(key=lambda e: e.at)
    return out[-limit:] if limit else out


def joined(entries: Iterable[RecallLogEntry], turns: int = 3) -> list[Joined]:
    """Each recall with the signals (searches, reads) of the same agent and session
    that came after it within ``turns`` turns; a signal may follow several recalls.

    A signal's session is its own, or, when it names none (MCP tools do not know the
    session), that of its agent's latest recall no older than ``SESSIONLESS_WINDOW``.
    Its turn is its own, or that of the latest recall of its session before it. It
    follows a recall of that session when its turn is the recall's turn or up to
    ``turns - 1`` after it. Entries without a turn count as one turn each.
    """
    ordered = sorted(entries, key=lambda e: e.at)
    out: list[Joined] = []
    by_session: dict[tuple[str, str | None], list[Joined]] = {}
    latest: dict[str, Joined] = {}
    for entry in ordered:
        if entry.kind == "recall":
            item = Joined(recall=entry)
            by_session.setdefault((entry.agent, entry.session), []).append(item)
            latest[entry.agent] = item
            out.append(item)
            continue
        session = entry.session
        if session is None:
            last = latest.get(entry.agent)
            if last is None or entry.at - last.recall.at > SESSIONLESS_WINDOW:
                continue
            session = last.recall.session
        chain = by_session.get((entry.agent, session), [])
        if not chain:
            continue
        turn = entry.turn if entry.turn is not None else _turn(chain, len(chain) - 1)
        for position in range(len(chain) - 1, -1, -1):
            distance = turn - _turn(chain, position)
            if distance >= turns:
                break
            if distance >= 0:
                chain[position].signals.append(entry)
    return out


def _turn(chain: list[Joined], position: int) -> int:
    """A recall's turn, or its position in the session's chain when it has none."""
    turn = chain[position].recall.turn
    return turn if turn is not None else position + 1
