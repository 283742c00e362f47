"""Which items may be recalled automatically: not superseded, not expired, not archived.

Supersedes chains are resolved over the whole repository, so a correction in one project
retires a card wherever it lives. Everything here is pure, so the index and the checker
agree on the same answers.
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


def is_expired(item: Item, today: dt.date) -> bool:
    until = expiry(item)
    return until is not None and until <= today


def superseded_ids(items: Iterable[Item]) -> set[str]:
    """Every id that some other item names in ``supersedes``."""
    return {old for item in items for old in item.supersedes if old != item.id}


def is_archived(item: Item, registry: Registry) -> bool:
    if item.status == CardStatus.archived:
        return True
    project = registry.get(item.project)
    return project is not None and project.status == ProjectStatus.archived


def is_recallable(item: Item, today: dt.date, superseded: set[str], registry: Registry) -> bool:
    return not (item.id in superseded or is_expired(item, today) or is_archived(item, registry))


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


def latest_version(item_id: str, items: Mapping[str, Item]) -> str:
    """Follow the chain forward: the id of the newest item that (transitively) replaces this one."""
    replaced_by: dict[str, str] = {}
    for item in sorted(items.values(), key=lambda i: (i.created, i.id)):
        for old in item.supersedes:
            replaced_by[old] = item.id
    current, hops = item_id, 0
    while current in replaced_by and hops < len(items):
        current, hops = replaced_by[current], hops + 1
    return current
