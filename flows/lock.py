"""One ingest at a time: an exclusive ``flock`` on a file under state.

The kernel drops the lock when its holder dies, so a killed run never leaves a stale lock
behind (a lock *file* with a pid in it would).
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_repo.errors import DoseMemError


class IngestBusy(DoseMemError):
    """Another ingest run holds the lock."""


@contextmanager
def ingest_lock(state: Path, wait_s: float = 0.0) -> Iterator[None]:
    state.mkdir(parents=True, exist_ok=True)
    path = state / "ingest.lock"
    with path.open("a") as fh:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as exc:
                if time.monotonic() >= deadline:
                    raise IngestBusy(f"another ingest run is in progress (lock {path})") from exc
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
