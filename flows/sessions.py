"""Pushed transcripts: an agent hands over an ended session instead of being read from disk.

The bytes are stored unchanged in the inbox under state (named by agent and content hash,
so pushing the same transcript twice stores it once); the next ingest run reads them
with the reader of their format.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pydantic import BaseModel

from flows.capture.sources import READERS, TRANSCRIPT_FORMAT, read_pushed
from flows.files import write_atomic
from memory_repo.errors import DoseMemError
from memory_repo.settings import Settings

_AGENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class BadTranscript(DoseMemError):
    """A pushed transcript that can not be stored (bad agent name, unknown format, empty)."""


class StoredSession(BaseModel):
    agent: str
    format: str
    path: str
    bytes: int
    new: bool


def add_session(
    settings: Settings, transcript: bytes | Path, agent: str, fmt: str | None = None
) -> StoredSession:
    """Store a transcript for the next ingest; ``fmt`` defaults to the agent's own format
    when the agent is one of the known ones, else the normalised transcript JSON."""
    data = transcript.read_bytes() if isinstance(transcript, Path) else transcript
    if not data.strip():
        raise BadTranscript("empty transcript")
    if not _AGENT.match(agent) or "__" in agent:
        raise BadTranscript(f"bad agent name {agent!r} (letters, digits, . _ - only)")
    fmt = fmt or (agent if agent in READERS else TRANSCRIPT_FORMAT)
    if fmt not in READERS and fmt != TRANSCRIPT_FORMAT:
        known = ", ".join([*READERS, TRANSCRIPT_FORMAT])
        raise BadTranscript(f"unknown transcript format {fmt!r} (known: {known})")
    ext = "json" if fmt == TRANSCRIPT_FORMAT else "jsonl"
    digest = hashlib.sha256(data).hexdigest()[:16]
    path = settings.inbox_path / fmt / f"{agent}__{digest}.{ext}"
    new = not path.exists()
    if new:
        write_atomic(path, data)
        _check_readable(path, fmt)
    return StoredSession(agent=agent, format=fmt, path=str(path), bytes=len(data), new=new)


def _check_readable(path: Path, fmt: str) -> None:
    """Refuse at the door what the next ingest could not read, so the pusher hears why."""
    transcript = read_pushed(path)
    if transcript is None or not transcript.turns:
        path.unlink(missing_ok=True)
        raise BadTranscript(f"no turns could be read as {fmt}")
