"""Which items may be recalled automatically: not superseded, not expired, not archived.

Supersedes chains are resolved over the whole repository, so a correction in one project
retires a card wherever it lives. Everything here is pure, so the index and the checker
agree on the same answers.

``is_recallable`` (on an item) and ``is_alive`` (on the three flags the index stores per
row) are the reference forms of the rule. The index applies it twice more, for speed:
as SQL (``Prefilter.where``) and as one numpy comparison (``Snapshot.mask``). Both are
property-tested against these functions (tests/index/test_lifecycle_reference.py), so a
change of the rule starts here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from memory_repo.models import CardStatus, CardType, Item, ProjectStatus, Registry

DEFAULT_TTL_DAYS: dict[CardType, int | None] = {
    CardType.result: 180,
    CardType.decision: 365,
    CardType.preference: None,
    CardType.pitfall: None,
    CardType.convention: None,
    CardType.habit: None,
    CardType.fact: None,
    CardType.task: None,
}


def expiry(item: Item) -> dt.date | None:
    """Explicit ``expires`` wins; else the type's default lifetime from ``created``."""
    if item.expires is not None:
        return item.expires
    ttl = DEFAULT_TTL_DAYS[item.type]
    return item.created + dt.timedelta(days=ttl) if ttl is not None else None


def superseded_ids(items: Iterable[Item]) -> set[str]:
    """Every id that some other item names in ``supersedes``."""
    return {old for item in items for old in item.supersedes if old != item.id}


def is_archived(item: Item, registry: Registry) -> bool:
    if item.status == CardStatus.archived:
        return True
    project = registry.get(item.project)
    return project is not None and project.status == ProjectStatus.archived


def is_alive(*, superseded: bool, archived: bool, expires: dt.date | None, today: dt.date) -> bool:
    """The rule on an index row's flags: not superseded, not archived, and ``expires``
    (from ``expiry``; None = never) after ``today``: an item expiring today is gone."""
    return not superseded and not archived and (expires is None or expires > today)


def is_recallable(item: Item, today: dt.date, superseded: set[str], registry: Registry) -> bool:
    """Whether automatic recall may return ``item`` on ``today``; ``superseded`` is
    ``superseded_ids`` of the whole repository."""
    return is_alive(
        superseded=item.id in superseded,
        archived=is_archived(item, registry),
        expires=expiry(item),
        today=today,
    )


def retirement(item: Item, today: dt.date, superseded: set[str], registry: Registry) -> str | None:
    """Why automatic recall leaves ``item`` out on ``today`` (``superseded``, ``archived``
    or ``expired``, checked in that order), or None when it is recallable: None exactly
    when ``is_recallable`` holds."""
    if item.id in superseded:
        return "superseded"
    if is_archived(item, registry):
        return "archived"
    if not is_recallable(item, today, superseded, registry):
        return "expired"
    return None


def supersedes_cycles(graph: Mapping[str, list[str]]) -> list[list[str]]:
    """Each cycle in the supersedes graph once, as the ids along it (sorted start)."""
    cycles: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :]
                key = frozenset(cycle)
                if key not in seen:
                    seen.add(key)
                    start = cycle.index(min(cycle))
                    cycles.append(cycle[start:] + cycle[:start])
            elif state.get(nxt) is None:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node)
    return cycles
