"""What the clients' outboxes have dropped, per agent and machine, for the inspector.

A client on another machine keeps its reports and pushes in an outbox and drops the
oldest past its bounds (``hooks.prune``); only that machine's ``dose-mem sessions
outbox`` could show it. So every request a client sends from its outbox carries two
headers: ``Dose-Mem-Client`` (the machine's host name) and ``Dose-Mem-Dropped`` (the
count in its ``dropped.json``, cumulative). The service keeps the latest per (agent,
host) in ``<state>/clients.json`` and the inspector's Write path page shows them.

Contract: a missing or malformed header is ignored (the request itself is never refused
for it); the file is rewritten atomically, only when a count or a new client appears,
and holds at most ``MAX_CLIENTS`` entries (the least recently changed go first).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
from pathlib import Path

from pydantic import BaseModel, ValidationError
from starlette.datastructures import Headers

from memory_repo.files import write_atomic

FILE = "clients.json"
MAX_CLIENTS = 200
HOST_HEADER = "Dose-Mem-Client"
DROPPED_HEADER = "Dose-Mem-Dropped"
_HOST = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
_LOCK = threading.Lock()


class ClientOutbox(BaseModel):
    agent: str
    host: str
    dropped: int
    changed: dt.datetime


def read(state: Path) -> list[ClientOutbox]:
    """Every client that reported, most dropped first; [] when none did (or the file is
    unreadable: it is a convenience, rebuilt by the next reports)."""
    try:
        raw = json.loads((state / FILE).read_text(encoding="utf-8"))
        clients = [ClientOutbox.model_validate(c) for c in raw]
    except (OSError, ValueError, TypeError, ValidationError):
        return []
    return sorted(clients, key=lambda c: (-c.dropped, c.agent, c.host))


def note(state: Path, agent: str, headers: Headers) -> None:
    """Record the request's outbox headers for ``agent``, when it sent valid ones."""
    host = headers.get(HOST_HEADER, "")
    count = headers.get(DROPPED_HEADER, "")
    if not _HOST.match(host) or not count.isdigit() or len(count) > 12:
        return
    with _LOCK:
        clients = {(c.agent, c.host): c for c in read(state)}
        known = clients.get((agent, host))
        if known is not None and known.dropped == int(count):
            return
        clients[agent, host] = ClientOutbox(
            agent=agent, host=host, dropped=int(count), changed=dt.datetime.now(dt.UTC)
        )
        kept = sorted(clients.values(), key=lambda c: c.changed, reverse=True)[:MAX_CLIENTS]
        rows = [c.model_dump(mode="json") for c in kept]
        write_atomic(state / FILE, json.dumps(rows, indent=1).encode("utf-8"))
