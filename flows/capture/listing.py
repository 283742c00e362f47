"""What capture found, session by session: the lines ``dose-mem sessions`` prints and each
ingest run records for the inspector (``memory_repo.ingest_runs.SessionRecord``).

Every session found is listed once, with its status (``read``/``to read``, ``failed``,
``skipped`` or ``waiting`` with the reason, ``unchanged``) and, when it has words to
file, the project it is filed under by the one rule (``memory_repo.attribution``) and
why. A continuation joined into its session is listed in that session's ``parts``.
"""

from __future__ import annotations

import datetime as dt

from flows.capture import ledger
from flows.capture.ledger import Pending
from flows.capture.sources import Found, survey
from flows.digest import attribution
from memory_repo.bootstrap import has_memory
from memory_repo.ingest_runs import SessionRecord
from memory_repo.models import GLOBAL, Registry
from memory_repo.registry import load_registry
from memory_repo.settings import Settings


def records(
    found: list[Found],
    reading: set[str],
    failed: set[str],
    registry: Registry,
    personal_agents: list[str],
    read_label: str = "read",
) -> list[SessionRecord]:
    """One record per session found; ``reading``: the keys read now, ``failed``: the keys
    whose model step failed."""
    out = []
    for f in found:
        t = f.transcript
        filed = attribution(t, registry, personal_agents) if t is not None else None
        if t is None or f.skip:
            status = "waiting" if (f.skip or "").startswith("open:") else "skipped"
            reason = f.skip or ""
        elif t.key in failed:
            status, reason = "failed", "a model step failed; read again next run"
        elif t.key in reading:
            status, reason = read_label, ""
        else:
            status, reason = "unchanged", "ingested before"
        out.append(
            SessionRecord(
                agent=f.agent,
                session=t.session_id if t else "",
                path=f.path,
                cwd=t.cwd if t else None,
                status=status,
                reason=reason,
                project=(filed.project or GLOBAL) if filed else None,
                how=filed.how if filed else None,
                why=filed.why if filed else None,
                parts=t.parts if t else [],
            )
        )
    return out


def to_read(found: list[Found], settings: Settings) -> list[Pending]:
    """The ended sessions to read: new ones whole, grown ones from their new part."""
    entries = ledger.load(settings.state_path / "ledger.json")
    return ledger.pending([f.transcript for f in found if f.ended and f.transcript], entries)


def list_sessions(settings: Settings, now: dt.datetime | None = None) -> list[SessionRecord]:
    """Every session the next ingest would see, without reading any of them for facts."""
    found = survey(settings, now or dt.datetime.now(dt.UTC))
    reading = {p.transcript.key for p in to_read(found, settings)}
    root = settings.memory_path
    registry = load_registry(root) if has_memory(root) else Registry()
    return records(
        found, reading, set(), registry, settings.capture_personal_agents, read_label="to read"
    )
