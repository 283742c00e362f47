"""Statements of a memory file as write-path candidates, each quoting its own line.

A curated file (instructions, an agent's memory) gives one candidate per statement: the
statement is the line, the quote is the line verbatim, the evidence names the file and
line (``session`` is ``<path>:<line>``) and its date is the file's mtime. A daily log is
task history: it goes through the session distiller and the quote check like a
transcript (one turn per line), so only what passes the usual bar becomes a candidate.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from flows import distill as distill_step
from flows import verify
from flows.digest import Digest, DigestTurn
from flows.facts import Candidate, Fact
from flows.onboarding import hermes_reader, markdown_reader
from flows.onboarding.locations import MemoryFile
from flows.rules import CORRECTION
from memory_repo.errors import DoseMemError
from memory_repo.models import GLOBAL, CardType, Registry
from memory_repo.settings import Settings

USER_CONFIDENCE = 0.9
AGENT_CONFIDENCE = 0.8


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def mtime(source: MemoryFile) -> dt.datetime:
    return dt.datetime.fromtimestamp(source.path.stat().st_mtime, dt.UTC)


def source_of(candidate: Candidate) -> tuple[str, int]:
    """The file and line an imported candidate quotes (from its ``session``)."""
    path, _, line = candidate.session.rpartition(":")
    return path, int(line) if line.isdigit() else 0


def _type(source: MemoryFile) -> CardType:
    if source.kind == "instructions" and source.project != GLOBAL:
        return CardType.convention
    return CardType.preference


def curated(source: MemoryFile, text: str) -> list[Candidate]:
    reader = hermes_reader if source.format == "hermes" else markdown_reader
    at = mtime(source)
    return [
        Candidate(
            fact=Fact(
                statement=s.quote,
                type=_type(source),
                project=source.project,
                confidence=USER_CONFIDENCE if source.by_user else AGENT_CONFIDENCE,
                quote=s.quote,
            ),
            agent=source.agent,
            session=f"{source.path}:{s.line}",
            at=at,
            by_user=source.by_user,
            correction=bool(CORRECTION.search(s.quote)),
        )
        for s in reader.statements(text)
    ]


def daily(source: MemoryFile, text: str, settings: Settings, registry: Registry) -> list[Candidate]:
    """Candidate facts from a daily log through ``distill`` and ``verify``; a model that
    fails raises, as in a session."""
    at = mtime(source)
    lines = markdown_reader.statements(text)
    digest = Digest(
        key=f"{source.agent}:{source.path}",
        agent=source.agent,
        session=str(source.path),
        project=source.project,
        turns=[DigestTurn(n=s.line, role="user", text=s.quote, at=at) for s in lines],
    )
    kept, _ = verify.verify(distill_step.distill(digest, settings, registry), digest)
    line_of = {s.quote: s.line for s in lines}
    for c in kept:
        where = verify.find_quote(c.fact.quote, [s.quote for s in lines])
        line = lines[where].line if where is not None else line_of.get(c.fact.quote, 0)
        c.session = f"{source.path}:{line}"
        c.by_user = False  # the agent wrote the log
    return kept


class UnreadableFile(DoseMemError):
    """A memory file that is not UTF-8 text; the message never quotes its bytes."""


def read(source: MemoryFile, settings: Settings, registry: Registry) -> tuple[list[Candidate], str]:
    """The file's candidates and the hash of its bytes; raises ``OSError``, or
    ``UnreadableFile`` for a file that is not UTF-8 text."""
    data = source.path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:  # its repr holds the bytes around the error
        raise UnreadableFile(f"not UTF-8 text (byte {exc.start})") from None
    if source.kind == "daily":
        return daily(source, text, settings, registry), file_hash(data)
    return curated(source, text), file_hash(data)
