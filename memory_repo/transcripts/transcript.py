"""The one transcript model every agent's session format is read into.

Readers keep the user's words byte-for-byte (quotes are verified against them later) and
drop nothing but harness noise; everything after capture sees only this model.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Literal

from pydantic import BaseModel, Field

Role = Literal["user", "assistant", "tool", "system"]


def session_key(agent: str, session_id: str) -> str:
    """A session's key in the ledger and the run summary: ``agent:session_id``."""
    return f"{agent}:{session_id}"


class Turn(BaseModel):
    role: Role
    text: str = ""
    at: dt.datetime | None = None
    tools: list[str] = Field(default_factory=list)
    error: str | None = None


class Transcript(BaseModel):
    """One agent session, normalised; ``path`` is where it was read from (for messages).

    ``repo_root`` is the git repository root the agent recorded for ``cwd`` (Hermes keeps
    it), ``source`` where the session came from when the agent says (``cli``,
    ``telegram`` ...), ``title`` the agent's title for it, ``parent`` the session it was
    started from. ``parts`` lists the ids of continuations joined into this session (a
    Hermes compression split). A reader that finds a session whose turns are not the
    person's (a delegated sub-agent's, a Claude Code sidechain) still returns it, with
    ``skip`` saying why, so capture can count it instead of losing it silently.
    """

    session_id: str
    agent: str
    cwd: str | None = None
    repo_root: str | None = None
    source: str | None = None
    title: str | None = None
    parent: str | None = None
    parts: list[str] = Field(default_factory=list)
    skip: str | None = None
    started: dt.datetime | None = None
    ended: dt.datetime | None = None
    turns: list[Turn] = Field(default_factory=list)
    path: str = ""

    @property
    def user_turns(self) -> int:
        return sum(1 for t in self.turns if t.role == "user" and t.text.strip())

    @property
    def key(self) -> str:
        return session_key(self.agent, self.session_id)

    def prefix_hash(self, n: int | None = None) -> str:
        """Hash of the first ``n`` turns: a grown session keeps the hash of its old part."""
        turns = self.turns if n is None else self.turns[:n]
        payload = json.dumps([t.model_dump(mode="json") for t in turns], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def finish(transcript: Transcript) -> Transcript:
    """Fill ``started``/``ended`` from the turns when the format has no header times."""
    times = [t.at for t in transcript.turns if t.at is not None]
    if times:
        transcript.started = transcript.started or min(times)
        transcript.ended = max([*times, *([transcript.ended] if transcript.ended else [])])
    return transcript
