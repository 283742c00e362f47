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

from pydantic import BaseModel

from memory_repo.inbox import inbox_transcripts
from memory_repo.settings import Settings
from memory_repo.transcripts import claude_code, codex, hermes, pi
from memory_repo.transcripts.readers import READERS
from memory_repo.transcripts.transcript import Transcript

log = logging.getLogger("dose_mem.capture")


def _source_dirs(settings: Settings) -> list[tuple[str, Path]]:
    return [
        (claude_code.AGENT, settings.capture_claude_dir),
        (codex.AGENT, settings.capture_codex_dir),
        (hermes.AGENT, settings.capture_hermes_dir),
        (pi.AGENT, settings.capture_pi_dir),
    ]


class Found(BaseModel):
    """A session found in a source, read (``transcript``) or not, and when it is not to be
    ingested now, why (``skip``: unreadable, a sub-agent's, too short, still open)."""

    agent: str
    path: str
    transcript: Transcript | None = None
    mtime: float = 0.0
    skip: str | None = None

    @property
    def ended(self) -> bool:
        return self.transcript is not None and self.skip is None


def local_sessions(settings: Settings) -> Iterator[Found]:
    """Every session file (or database row) in the agents' own history, read or not."""
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
            try:
                transcript = READERS[agent](path)
                yield Found(
                    agent=agent, path=str(path), transcript=transcript, mtime=path.stat().st_mtime
                )
            except (OSError, ValueError) as exc:
                log.warning("skipping unreadable session %s: %s", path, exc)
                yield Found(agent=agent, path=str(path), skip=f"unreadable: {exc}")
        if agent == hermes.AGENT and (root / hermes.DB_NAME).is_file():
            # One database holds every session, so its mtime says nothing about any one of
            # them: a session's own last message decides whether it is idle.
            for transcript in hermes.read_db(root / hermes.DB_NAME):
                yield Found(agent=agent, path=transcript.path, transcript=transcript)


def local_transcripts(settings: Settings) -> Iterator[tuple[Transcript, float]]:
    """Every readable transcript in the agents' own history, with its file's mtime."""
    for found in local_sessions(settings):
        if found.transcript is not None:
            yield found.transcript, found.mtime


def why_not(
    transcript: Transcript, mtime: float, settings: Settings, now: dt.datetime
) -> str | None:
    """Why a session is not ingested now (``None``: it is ended and read)."""
    if skipped := _skipped_at_any_age(transcript, settings):
        return skipped
    last = dt.datetime.fromtimestamp(mtime, tz=dt.UTC)
    if transcript.ended is not None:
        last = max(last, transcript.ended)
    idle = (now - last).total_seconds() / 60
    if idle < settings.capture_idle_minutes:
        return f"open: idle {idle:.0f} min (ended after {settings.capture_idle_minutes:g})"
    return None


def _skipped_at_any_age(transcript: Transcript, settings: Settings) -> str | None:
    """Why a session is not read whatever its age: the reader's reason, or too few turns."""
    if transcript.skip:
        return transcript.skip
    if transcript.user_turns < settings.capture_min_user_turns:
        return f"{transcript.user_turns} user turns (fewer than {settings.capture_min_user_turns})"
    return None


def is_ended(transcript: Transcript, mtime: float, settings: Settings, now: dt.datetime) -> bool:
    return why_not(transcript, mtime, settings, now) is None


def survey(settings: Settings, now: dt.datetime) -> list[Found]:
    """Every session of every source and the inbox, each with why it is not read now."""
    found = []
    for f in local_sessions(settings):
        if f.transcript is not None:
            f.skip = why_not(f.transcript, f.mtime, settings, now)
        found.append(f)
    for t in inbox_transcripts(settings.inbox_path):  # pushed: ended by definition
        found.append(
            Found(agent=t.agent, path=t.path, transcript=t, skip=_skipped_at_any_age(t, settings))
        )
    return found


def ended_transcripts(settings: Settings, now: dt.datetime) -> list[Transcript]:
    return [f.transcript for f in survey(settings, now) if f.ended and f.transcript]
