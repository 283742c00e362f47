"""The ingest inbox under state: transcripts pushed by agents, kept for the next ingest.

An agent hands over an ended session instead of being read from disk (``POST
/v1/sessions``, ``dose-mem sessions add``). The bytes are stored unchanged as
``<inbox>/<format>/<agent>__<sha>.<ext>`` (named by agent and content hash, so pushing the
same transcript twice stores it once); the next ingest run reads them with the reader of
their format (``inbox_transcripts``). It lives at the bottom layer because both the recall
service (which writes here and never writes cards) and the write path use it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from memory_repo.errors import DoseMemError
from memory_repo.files import write_atomic
from memory_repo.settings import Settings
from memory_repo.transcripts.readers import READERS, TRANSCRIPT_FORMAT, read_normalised, read_one
from memory_repo.transcripts.transcript import Transcript

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


def read_pushed(path: Path) -> Transcript | None:
    """One inbox file, read by its folder's format and named for the agent that pushed it."""
    fmt, agent = path.parent.name, path.name.split("__", 1)[0]
    found = list(read_one(READERS.get(fmt) or read_normalised, path))
    if not found:
        return None
    transcript = found[0][0]
    transcript.agent = agent
    return transcript


def inbox_transcripts(inbox: Path) -> Iterator[Transcript]:
    """Pushed transcripts: ``<inbox>/<format>/<agent>__<digest>.<ext>``."""
    if not inbox.is_dir():
        return
    for path in sorted(inbox.glob("*/*__*")):
        transcript = read_pushed(path)
        if transcript is not None:
            yield transcript
