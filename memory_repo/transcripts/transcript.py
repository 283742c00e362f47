"""The one transcript model every agent's session format is read into.

Readers keep the user's words byte-for-byte (quotes are verified against them later) and
drop nothing but harness noise; everything after capture sees only this model.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

log = logging.getLogger("dose_mem.capture")

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
    """One agent session, normalised; ``path`` is where it was read from (for messages)."""

    session_id: str
    agent: str
    cwd: str | None = None
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


def parse_time(value: Any) -> dt.datetime | None:
    """ISO strings, epoch seconds or epoch milliseconds; always timezone-aware (UTC if naive)."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 1e11 else value
            return dt.datetime.fromtimestamp(seconds, tz=dt.UTC)
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Objects of a JSON-lines file; a corrupt line is logged with its place and skipped."""
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                log.warning("skipping corrupt line %s:%d: %s", path, n, exc)
                continue
            if not isinstance(obj, dict):
                log.warning("skipping line %s:%d: not a JSON object", path, n)
                continue
            yield obj


def text_of(content: Any, kinds: tuple[str, ...] = ("text", "input_text", "output_text")) -> str:
    """Plain text of a message content that is a string or a list of typed blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") in kinds
        ]
        return "\n".join(p for p in parts if p)
    return ""


def finish(transcript: Transcript) -> Transcript:
    """Fill ``started``/``ended`` from the turns when the format has no header times."""
    times = [t.at for t in transcript.turns if t.at is not None]
    if times:
        transcript.started = transcript.started or min(times)
        transcript.ended = max([*times, *([transcript.ended] if transcript.ended else [])])
    return transcript
