"""Which sessions an ingest run reads: ended ones, from every configured source and the inbox.

A session counts as ended when it has been idle for ``capture_idle_minutes`` (by its last
turn and its file's modification time) and has at least ``capture_min_user_turns`` user
turns. Pushed transcripts (the inbox) ended by definition. A missing source directory is
a warning, never an error: most people run only some of the agents.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from pathlib import Path

from memory_repo.inbox import inbox_transcripts
from memory_repo.settings import Settings
from memory_repo.transcripts import claude_code, codex, hermes, pi
from memory_repo.transcripts.readers import READERS, read_one
from memory_repo.transcripts.transcript import Transcript

log = logging.getLogger("dose_mem.capture")


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
            yield from read_one(READERS[agent], path)
        if agent == hermes.AGENT and (root / hermes.DB_NAME).is_file():
            # One database holds every session, so its mtime says nothing about any one of
            # them: a session's own last message decides whether it is idle.
            for transcript in hermes.read_db(root / hermes.DB_NAME):
                yield transcript, 0.0


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
