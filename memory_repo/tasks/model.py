"""The task domain: events as agents report them, and the task each one builds up.

A ``TaskEvent`` is what the journal stores, one per accepted report, after extraction
(``extract.py``) has decided which task it belongs to; a ``Task`` is never stored, it
is the fold of its events (``fold.py``). Every text field of an event has passed
``memory_repo.secrets.redact`` before it is written.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from pydantic import BaseModel, Field


class TaskStatus(StrEnum):
    running = "running"
    waiting = "waiting"
    blocked = "blocked"
    done = "done"
    failed = "failed"
    abandoned = "abandoned"


FINISHED = frozenset({TaskStatus.done, TaskStatus.failed, TaskStatus.abandoned})


class TaskEvent(BaseModel):
    """One report about one task. ``None`` fields leave the task's value as it was;
    ``links`` add to it. ``at`` is when the service accepted the event (UTC)."""

    id: str
    task: str = Field(description="The task's id: <slug>-<4 hex>, unique in the journal.")
    at: dt.datetime
    agent: str
    source: str = Field(description="What sent it: claude-code:PostToolUse, codex:notify ...")
    session: str | None = None
    project: str | None = None
    status: TaskStatus | None = None
    title: str | None = None
    host: str | None = None
    cwd: str | None = None
    command: str | None = None
    job: str | None = Field(default=None, description="Process or scheduler job id.")
    log_path: str | None = None
    links: list[str] = Field(default_factory=list)
    result: str | None = Field(default=None, description="Last known result, verbatim.")
    next_step: str | None = None
    request: str | None = Field(
        default=None,
        description="The sender's Idempotency-Key: a report sent again under it applies once.",
    )


class Task(BaseModel):
    id: str
    project: str | None
    title: str
    status: TaskStatus
    started: dt.datetime
    updated: dt.datetime
    agent: str
    session: str | None = None
    host: str | None = None
    cwd: str | None = None
    command: str | None = None
    job: str | None = None
    log_path: str | None = None
    links: list[str] = Field(default_factory=list)
    result: str | None = None
    next_step: str | None = None
    finished_by: str | None = Field(default=None, description="Agent of the finishing event.")
    events: int = 0

    @property
    def finished(self) -> bool:
        return self.status in FINISHED
