"""What a hybrid query returns: one hit per item, with the evidence a gate needs."""

from __future__ import annotations

from pydantic import BaseModel

from memory_repo.models import CardType


class Hit(BaseModel):
    """An item ranked by reciprocal rank fusion, carrying its absolute scores.

    RRF always ranks something first, so ``cosine`` (best chunk's cosine similarity to
    the query) and ``bm25`` (best chunk's BM25 score, 0 when no term matched) are kept
    for the gate to decide whether anything is worth injecting at all.
    """

    item_id: str
    project: str
    type: CardType
    path: str
    l0: str
    l1: str
    rank: int
    rrf: float
    cosine: float
    bm25: float
    # Best chunk's cosine per embedder part (``vectors.Part``), 0 where a part's leg
    # did not rank the item; ``cosine`` is the widest part's.
    part_cosines: tuple[float, ...] = ()
    dense_rank: int | None = None
    bm25_rank: int | None = None
    heading: str = ""
    text: str = ""
