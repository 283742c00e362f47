"""Task state in the ingest run: events found in ended sessions, the Markdown pages, and
finished tasks' results offered to the write path (docs/tasks.md).

* ``from_digest``: a user or assistant turn of an ended session that says an open task
  finished or failed ("r3 跑完了，CER 11.2%") finishes it, exactly as a live event would;
  the quoted result must be found verbatim in that turn (``verify.find_quote``, the
  same rule as a card's quote), so a session can only add what it really says.
* ``result_candidates``: a task finished with a quoted result becomes one candidate
  ``result`` fact, once per task (the ids proposed are kept under state); the
  pre-screen, neighbours and judge decide on it like on any fact.
* ``write_pages`` (``memory_repo.tasks.pages``): one commit per run, only when a page
  changed.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path

from flows.digest import Digest
from flows.facts import Candidate, Fact
from flows.verify import find_quote
from memory_repo.files import write_atomic
from memory_repo.models import GLOBAL, CardType
from memory_repo.tasks import journal
from memory_repo.tasks.extract import Report, extract
from memory_repo.tasks.fold import fold
from memory_repo.tasks.model import TaskEvent, TaskStatus

PROPOSED = "proposed.json"
RESULT_CONFIDENCE = 0.7


def from_digest(d: Digest, events: list[TaskEvent], now: dt.datetime) -> list[TaskEvent]:
    """Finishing events this session's turns amount to, against the tasks ``events``
    fold to; each result verified verbatim in its turn."""
    project = None if d.project == GLOBAL else d.project
    seen = list(events)
    found: list[TaskEvent] = []
    for turn in d.turns:
        if turn.role not in ("user", "assistant") or not turn.text.strip():
            continue
        new = extract(
            Report(source="ingest", event=d.agent, text=turn.text, session=d.session),
            agent=d.agent,
            project_of=lambda _cwd: project,
            tasks=fold(seen),
            now=turn.at or now,
        )
        new = [e for e in new if not e.result or find_quote(e.result, [turn.text]) is not None]
        seen += new
        found += new
    return found


def ingest_sessions(
    journal_path: Path, digests: Iterable[Digest], now: dt.datetime
) -> tuple[int, list[TaskEvent]]:
    """Append the events the sessions amount to: how many were appended, and the whole
    journal after them (read once, for the steps after this one)."""
    events, _ = journal.read(journal_path)
    added = 0
    for d in digests:
        found = from_digest(d, events, now)
        for event in found:
            journal.append(journal_path, event)
        events += found
        added += len(found)
    return added, events


def result_candidates(
    journal_path: Path, events: list[TaskEvent]
) -> tuple[list[Candidate], list[str]]:
    """Candidate result facts for done tasks with a quoted result not proposed before,
    and their task ids (for ``mark_proposed`` once the run's decisions are written).
    ``events`` are the journal's; ``journal_path`` locates the proposed ids beside it."""
    proposed = _proposed(journal_path)
    finishing = {e.task: e for e in events if e.status == TaskStatus.done and e.result}
    candidates: list[Candidate] = []
    ids: list[str] = []
    for task in fold(events).values():
        event = finishing.get(task.id)
        if task.status != TaskStatus.done or event is None or task.id in proposed:
            continue
        fact = Fact(
            statement=f"{task.title}: {event.result}",
            type=CardType.result,
            project=task.project or GLOBAL,
            confidence=RESULT_CONFIDENCE,
            quote=event.result or "",
        )
        session = event.session or f"task-{task.id}"
        candidates.append(Candidate(fact=fact, agent=event.agent, session=session, at=event.at))
        ids.append(task.id)
    return candidates, ids


def _proposed(journal_path: Path) -> set[str]:
    path = journal_path.with_name(PROPOSED)
    try:
        return set(json.loads(path.read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError):
        return set()


def mark_proposed(journal_path: Path, ids: Iterable[str]) -> None:
    ids = set(ids)
    if not ids:
        return
    done = sorted(_proposed(journal_path) | ids)
    write_atomic(journal_path.with_name(PROPOSED), json.dumps(done).encode("utf-8"))
