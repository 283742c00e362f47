"""The event journal: an append-only JSON-lines file, the only truth of task state.

``append`` returns only after the line is on disk (write, flush, fsync of the file, and
of the directory when the file is new), so an event the service has accepted survives
a SIGKILL the next instant. A torn last line (a crash in the middle of a write) is
skipped when read and reported, never fatal; every complete line before it stands.
Writers are the service and the ingest run: a thread lock within a process and an
exclusive ``flock`` on the file across processes keep every line whole.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path

from pydantic import ValidationError

from memory_repo.tasks.model import TaskEvent

_LOCK = threading.Lock()


def append(path: Path, event: TaskEvent) -> None:
    line = (event.model_dump_json(exclude_none=True) + "\n").encode("utf-8")
    with _LOCK:
        new = not path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:
            dirfd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dirfd)
            finally:
                os.close(dirfd)


def read(path: Path) -> tuple[list[TaskEvent], list[str]]:
    """(events in journal order, problems as "path:line: reason")."""
    if not path.exists():
        return [], []
    events: list[TaskEvent] = []
    problems: list[str] = []
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                events.append(TaskEvent.model_validate(json.loads(raw)))
            except (ValueError, ValidationError) as exc:
                problems.append(f"{path}:{n}: {type(exc).__name__}")
    return events, problems
