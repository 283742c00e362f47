"""What each session was given: the items recall injected, per (agent, session), so an
agent that keeps its injections (``Profile.kept_by``) is not given the same item twice
(docs/read-path.md, "Session-aware dose").

An item is held under the version the agent was shown: a digest of its rendered line
(``version``). An edited card renders another line, and a card that supersedes it has
another id, so either is given again; a change the line does not show (a later section,
the evidence) leaves the agent holding what it would be given.

Bounded three ways, so a long-running service never grows without limit: at most
``max_sessions`` sessions and ``max_items`` held items in all (least recently used
sessions go first), at most ``per_session`` items in one session (its oldest go first),
and a session unused for ``ttl_s`` seconds is forgotten. Kept in memory by each replica:
a session forgotten (bounds, restart, another replica) is given an item at most once
more, never fewer.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

MAX_SESSIONS = 10_000
MAX_ITEMS = 200_000
PER_SESSION = 500
TTL_S = 24 * 3600.0


def version(line: str) -> bytes:
    """The version of an item as shown: a digest of its rendered line (trailing newline
    ignored, so ``assemble.render`` and ``InjectedItem.text`` agree)."""
    return hashlib.blake2b(line.rstrip("\n").encode("utf-8"), digest_size=8).digest()


@dataclass(frozen=True, slots=True)
class Given:
    """One held item: the version given and the turn it was given on."""

    version: bytes
    turn: int


@dataclass(slots=True)
class _Session:
    items: dict[str, Given] = field(default_factory=dict)
    used: float = 0.0


class GivenStore:
    """Thread-safe, bounded memory of what each (agent, session) was given."""

    def __init__(
        self,
        *,
        max_sessions: int = MAX_SESSIONS,
        max_items: int = MAX_ITEMS,
        per_session: int = PER_SESSION,
        ttl_s: float = TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_sessions = max_sessions
        self.max_items = max_items
        self.per_session = per_session
        self.ttl_s = ttl_s
        self._clock = clock
        self._sessions: OrderedDict[tuple[str, str], _Session] = OrderedDict()
        self._items = 0
        self._lock = threading.Lock()

    def held(self, agent: str, session: str) -> dict[str, Given]:
        """Item id -> what the session holds of it (a copy; empty for a session unknown
        or past its age)."""
        key = (agent, session)
        with self._lock:
            found = self._sessions.get(key)
            if found is None:
                return {}
            if self._clock() - found.used > self.ttl_s:
                self._drop(key)
                return {}
            return dict(found.items)

    def give(self, agent: str, session: str, turn: int, items: Iterable[tuple[str, bytes]]) -> None:
        """Record ``(item id, version)`` pairs as given on ``turn``; then hold the bounds."""
        key = (agent, session)
        with self._lock:
            found = self._sessions.pop(key, None) or _Session()
            self._items -= len(found.items)
            for item_id, shown in items:
                found.items.pop(item_id, None)  # re-inserted last: order is age
                found.items[item_id] = Given(shown, turn)
            while len(found.items) > self.per_session:
                found.items.pop(next(iter(found.items)))
            found.used = self._clock()
            self._sessions[key] = found
            self._items += len(found.items)
            self._evict()

    def forget(self, agent: str, session: str) -> int:
        """Forget what the session was given (the agent compacted or cleared its
        context); the number of items forgotten."""
        with self._lock:
            return self._drop((agent, session))

    def _drop(self, key: tuple[str, str]) -> int:
        found = self._sessions.pop(key, None)
        if found is None:
            return 0
        self._items -= len(found.items)
        return len(found.items)

    def _evict(self) -> None:
        """Least recently used sessions first, while a bound is passed; sessions past
        their age from the old end too."""
        now = self._clock()
        while self._sessions:
            key, oldest = next(iter(self._sessions.items()))
            over = len(self._sessions) > self.max_sessions or self._items > self.max_items
            if not over and now - oldest.used <= self.ttl_s:
                return
            self._drop(key)

    def __len__(self) -> int:
        return len(self._sessions)

    @property
    def items(self) -> int:
        """Held items over all sessions."""
        return self._items
