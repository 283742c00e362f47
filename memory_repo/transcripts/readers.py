"""The format names and their readers: what a transcript file can be read as."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

from memory_repo.transcripts import claude_code, codex, hermes, pi
from memory_repo.transcripts.transcript import Transcript

log = logging.getLogger("dose_mem.capture")

Reader = Callable[[Path], Transcript]
READERS: dict[str, Reader] = {
    claude_code.AGENT: claude_code.read,
    codex.AGENT: codex.read,
    hermes.AGENT: hermes.read,
    pi.AGENT: pi.read,
}
# Any other agent pushes the normalised ``Transcript`` JSON itself.
TRANSCRIPT_FORMAT = "transcript"


def read_normalised(path: Path) -> Transcript:
    return Transcript.model_validate_json(path.read_bytes())


def read_one(reader: Reader, path: Path) -> Iterator[tuple[Transcript, float]]:
    """The transcript and its file's mtime, or nothing (logged) when it can't be read."""
    try:
        transcript = reader(path)
    except (OSError, ValueError) as exc:
        log.warning("skipping unreadable session %s: %s", path, exc)
        return
    yield transcript, path.stat().st_mtime
