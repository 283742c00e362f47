"""Assembly takes gated hits lazily: the hits after the profile's item cap are never judged."""

from __future__ import annotations

from collections.abc import Iterator

from memory_repo.index.hits import Hit
from memory_repo.models import CardType
from profiles.model import load_profiles
from recall_api.assemble import HEADER, assemble


def _hit(n: int) -> Hit:
    return Hit(
        item_id=f"card-{n}",
        project="global",
        type=CardType.convention,
        path=f"global/cards/card-{n}.md",
        l0=f"Convention 第{n}条: use uv.",
        l1="",
        rank=n,
        rrf=1.0 / n,
        cosine=0.5,
        bm25=1.0,
    )


def test_assembly_stops_judging_at_the_item_cap() -> None:
    profile = load_profiles()["working"]
    judged: list[int] = []

    def gated() -> Iterator[tuple[Hit, float]]:
        for n in range(1, 11):
            judged.append(n)
            yield _hit(n), 0.9

    items, text = assemble(gated(), profile)
    assert [i.id for i in items] == [f"card-{n}" for n in range(1, profile.max_items + 1)]
    assert judged == list(range(1, profile.max_items + 1))
    assert text.startswith(HEADER) and len(text.encode()) <= profile.budget_bytes
