"""Held facts: project facts from a session whose project could not be found.

Such a fact is never written as global (that would show one project's fact to every
project's agents) and never dropped: it waits in ``<state>/held.jsonl``, one JSON object
per line, with the reason, until the person files it (registers the project's path or
names it) or lets it go. The write path adds to it; the CLI and the inspector read it.

Lines are appended once per fact (keyed by agent, session and quote), so a run that is
repeated after a crash holds nothing twice. Text passes ``secrets.redact`` first, as
everything kept from a transcript does (held facts have passed the pre-screen already).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
from pathlib import Path

from pydantic import BaseModel, ValidationError

from memory_repo.secrets import redact

log = logging.getLogger("dose_mem.held")
HELD_FILE = "held.jsonl"


class HeldFact(BaseModel):
    key: str
    run: str
    at: dt.datetime
    agent: str
    session: str
    cwd: str | None = None
    type: str
    statement: str
    quote: str
    reason: str


def held_path(state: Path) -> Path:
    return state / HELD_FILE


def fact_key(agent: str, session: str, quote: str) -> str:
    return hashlib.sha256(f"{agent}\n{session}\n{quote}".encode()).hexdigest()[:16]


def read(state: Path) -> list[HeldFact]:
    """Every held fact; a corrupt line is logged with its place and skipped."""
    path = held_path(state)
    if not path.is_file():
        return []
    out = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(HeldFact.model_validate_json(line))
        except ValidationError as exc:
            log.warning("skipping corrupt line %s:%d: %s", path, n, str(exc).splitlines()[0])
    return out


def add(state: Path, facts: list[HeldFact]) -> int:
    """Append the facts not held yet (by key); the number added. One write and fsync."""
    known = {f.key for f in read(state)}
    new = [f for f in facts if f.key not in known]
    if not new:
        return 0
    lines = "".join(
        json.dumps(
            f.model_copy(
                update={
                    "statement": redact(f.statement),
                    "quote": redact(f.quote),
                    "reason": redact(f.reason),
                }
            ).model_dump(mode="json"),
            ensure_ascii=False,
        )
        + "\n"
        for f in new
    )
    path = held_path(state)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(lines)
        out.flush()
        os.fsync(out.fileno())
    return len(new)
