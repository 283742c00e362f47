"""Which sessions an ingest run reads: ended ones, from every configured source and the inbox.

A session counts as ended when it has been idle for ``capture_idle_minutes`` (by its last
turn and its file's modification time) and has at least ``capture_min_user_turns`` user
turns. Pushed transcripts (the inbox) ended by definition. A missing source directory is
a warning, never an error: most people run only some of the agents.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterator
from pathlib import Path

from flows.capture import claude_code, codex, hermes, pi
from flows.capture.transcript import Transcript
from memory_repo.settings import Settings

log = logging.getLogger("dose_mem.capture")

Reader = Callable[[Path], Transcript]
READERS: dict[str, Reader] = {
    claude_code.AGENT: claude_code.read,
    codex.AGENT: codex.read,
    hermes.AGENT: hermes.read,
    pi.AGENT: pi.read,
}
TRANSCRIPT_FORMAT = "transcript"


def _source_dirs(settings: Settings) -> list[tuple[str, Path]]:
    return [
        (claude_code.AGENT, settings.capture_claude_dir),
        (codex.AGENT, settings.capture_codex_dir),
        (hermes.AGENT, settings.capture_hermes_dir),
        (pi.AGENT, settings.capture_pi_dir),
    ]


def local_transcripts(settings: Settings) -> Iterator[tuple[Transcript, float]]:
    """Every readable transcript in the agents' own history, with its file's mtime."""
    discoverers = {
        claude_code.AGENT: claude_code.discover,
        codex.AGENT: codex.discover,
        hermes.AGENT: hermes.discover,
        pi.AGENT: pi.discover,
    }
    for agent, root in _source_dirs(settings):
        root = Path(root).expanduser()
        if not root.is_dir():
            log.warning("capture source for %s not found: %s (skipped)", agent, root)
            continue
        for path in discoverers[agent](root):
            yield from _read_one(READERS[agent], path)
        if agent == hermes.AGENT and (root / hermes.DB_NAME).is_file():
            # One database holds every session, so its mtime says nothing about any one of
            # them: a session's own last message decides whether it is idle.
            for transcript in hermes.read_db(root / hermes.DB_NAME):
                yield transcript, 0.0


def inbox_transcripts(inbox: Path) -> Iterator[Transcript]:
    """Pushed transcripts: ``<inbox>/<format>/<agent>__<digest>.<ext>``."""
    if not inbox.is_dir():
        return
    for path in sorted(inbox.glob("*/*__*")):
        transcript = read_pushed(path)
        if transcript is not None:
            yield transcript


def read_pushed(path: Path) -> Transcript | None:
    """One inbox file, read by its folder's format and named for the agent that pushed it."""
    fmt, agent = path.parent.name, path.name.split("__", 1)[0]
    found = list(_read_one(READERS.get(fmt) or _read_normalised, path))
    if not found:
        return None
    transcript = found[0][0]
    transcript.agent = agent
    return transcript


def _read_normalised(path: Path) -> Transcript:
    return Transcript.model_validate_json(path.read_bytes())


def _read_one(reader: Reader, path: Path) -> Iterator[tuple[Transcript, float]]:
    try:
        transcript = reader(path)
    except (OSError, ValueError) as exc:
        log.warning("skipping unreadable session %s: %s", path, exc)
        return
    yield transcript, path.stat().st_mtime


def is_ended(transcript: Transcript, mtime: float, settings: Settings, now: dt.datetime) -> bool:
    if transcript.user_turns < settings.capture_min_user_turns:
        return False
    last = dt.datetime.fromtimestamp(mtime, tz=dt.UTC)
    if transcript.ended is not None:
        last = max(last, transcript.ended)
    return now - last >= dt.timedelta(minutes=settings.capture_idle_minutes)


def ended_transcripts(settings: Settings, now: dt.datetime) -> list[Transcript]:
    found = [t for t, mtime in local_transcripts(settings) if is_ended(t, mtime, settings, now)]
    pushed = [
        t
        for t in inbox_transcripts(settings.inbox_path)
        if t.user_turns >= settings.capture_min_user_turns
    ]
    return found + pushed
