"""Neighbours: the existing live cards nearest to a candidate (hybrid search, top 12)."""

from __future__ import annotations

from flows.facts import Candidate, Neighbour
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.models import GLOBAL, Item

TOP_K = 12


def neighbours(
    candidate: Candidate, index: Index | None, items: dict[str, Item]
) -> list[Neighbour]:
    if index is None:
        return []
    projects = sorted({candidate.fact.project, GLOBAL})
    prefilter = Prefilter(clauses=[ScopeClause(projects=projects)], automatic=True)
    out = []
    for hit in index.search(candidate.fact.statement, prefilter, k=TOP_K, mode="hybrid"):
        item = items.get(hit.item_id)
        out.append(
            Neighbour(
                id=hit.item_id,
                l0=hit.l0,
                type=hit.type,
                project=hit.project,
                created=item.created if item else None,
                confidence=item.confidence if item else 1.0,
                cosine=hit.cosine,
                text=hit.text,
            )
        )
    return out
