"""Which sessions were ingested, and how much of each: a JSON file under state.

Keyed by ``agent:session_id``; each entry keeps the number of turns ingested and the
hash of exactly those turns, so a session that grew is recognised (its old part hashes
the same) and only its new turns are read again. Written atomically (temp + rename).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from memory_repo.files import write_atomic
from memory_repo.transcripts.transcript import Transcript


class LedgerEntry(BaseModel):
    turns: int
    hash: str
    run: str


class Pending(BaseModel):
    """A session to ingest, from turn ``start`` on (0 for a new session)."""

    transcript: Transcript
    start: int


def load(path: Path) -> dict[str, LedgerEntry]:
    if not path.is_file():
        return {}
    raw = json.loads(path.read_text("utf-8"))
    return {key: LedgerEntry.model_validate(value) for key, value in raw.items()}


def save(path: Path, entries: dict[str, LedgerEntry]) -> None:
    data = {k: v.model_dump() for k, v in sorted(entries.items())}
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))


def pending(transcripts: list[Transcript], entries: dict[str, LedgerEntry]) -> list[Pending]:
    """New sessions whole; grown sessions from where the last run stopped; the rest not at all."""
    out: list[Pending] = []
    for transcript in transcripts:
        entry = entries.get(transcript.key)
        if entry is None:
            out.append(Pending(transcript=transcript, start=0))
        elif entry.hash == transcript.prefix_hash():
            continue
        elif (
            entry.turns < len(transcript.turns)
            and transcript.prefix_hash(entry.turns) == entry.hash
        ):
            out.append(Pending(transcript=transcript, start=entry.turns))
        else:
            out.append(Pending(transcript=transcript, start=0))
    return out


def record(entries: dict[str, LedgerEntry], items: list[Pending], run_id: str) -> None:
    for item in items:
        t = item.transcript
        entries[t.key] = LedgerEntry(turns=len(t.turns), hash=t.prefix_hash(), run=run_id)
