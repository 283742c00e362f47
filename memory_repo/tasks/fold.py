"""Tasks from events: each task is the fold of its events in journal order.

Rules a reader relies on: a task's status changes only when an event names a status,
so nothing is ever "done" unless an event said so; a later event's non-empty field
replaces the earlier value, links accumulate; ``started`` is the first event's time,
``updated`` the last one's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from memory_repo.tasks.model import FINISHED, Task, TaskEvent, TaskStatus

_FIELDS = ("title", "host", "cwd", "command", "job", "log_path", "result", "next_step")


def fold(events: Iterable[TaskEvent]) -> dict[str, Task]:
    tasks: dict[str, Task] = {}
    for e in events:
        task = tasks.get(e.task)
        if task is None:
            task = tasks[e.task] = Task(
                id=e.task,
                project=e.project,
                title=e.title or e.command or e.task,
                status=e.status or TaskStatus.running,
                started=e.at,
                updated=e.at,
                agent=e.agent,
                session=e.session,
            )
        elif e.status is not None:
            task.status = e.status
        if e.project and not task.project:
            task.project = e.project
        for name in _FIELDS:
            value = getattr(e, name)
            if value:
                setattr(task, name, value)
        task.links.extend(link for link in e.links if link not in task.links)
        task.updated = max(task.updated, e.at)
        task.events += 1
        if e.status in FINISHED:
            task.finished_by = e.agent
    return tasks


def live(tasks: Iterable[Task], now: dt.datetime, keep_days: float) -> list[Task]:
    """Tasks still recallable at ``now``: every unfinished one, and finished ones for
    ``keep_days`` after their last event. Most recently updated first."""
    horizon = now - dt.timedelta(days=keep_days)
    kept = [t for t in tasks if not t.finished or t.updated >= horizon]
    return sorted(kept, key=lambda t: t.updated, reverse=True)


def is_stale(task: Task, now: dt.datetime, stale_hours: float) -> bool:
    """Said to be running, but no event for longer than ``stale_hours``."""
    return task.status == TaskStatus.running and now - task.updated > dt.timedelta(
        hours=stale_hours
    )
