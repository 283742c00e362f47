"""Hybrid query over the index: dense and BM25 legs, both prefiltered, fused by RRF.

``Index`` holds the embedder (with its query cache) and a ``Snapshot`` of the table
version named by the meta file; a long-running service picks up a finished reindex by
loading the new version and swapping one reference, while requests already running keep
the snapshot they started with.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from memory_repo.errors import DoseMemError, EmbedderMismatch
from memory_repo.index.allocators import release_memory
from memory_repo.index.embedders import CachedEmbedder, Embedder
from memory_repo.index.hits import Hit
from memory_repo.index.meta import IndexMeta, meta_stamp, read_meta
from memory_repo.index.scope import Prefilter
from memory_repo.index.snapshot import BM25Params, Snapshot
from memory_repo.index.snapshot_load import Loader, load
from memory_repo.index.terms import bm25_terms
from memory_repo.models import CardType

Mode = Literal["hybrid", "dense", "bm25"]
Ranked = list[tuple[int, float]]


class Fusion(BaseModel):
    """RRF settings; the defaults are the ones tuned on LoCoMo (docs/index.md).

    A small ``rrf_k`` lets a leg's first few ranks dominate: the legs disagree often, and
    when one is confident its top hit is usually right (LoCoMo recall@10: k=60 0.603,
    below BM25 alone; k=3 0.641).
    """

    rrf_k: int = 3
    depth: int = 5
    min_depth: int = 50
    dense_weight: float = 1.0
    bm25_weight: float = 1.0

    def candidates(self, k: int) -> int:
        return max(self.min_depth, self.depth * k)


class IndexMissing(DoseMemError):
    """No index has been built yet at this place."""


class Index:
    def __init__(
        self,
        index_dir: Path,
        embedder: CachedEmbedder,
        fusion: Fusion | None = None,
        bm25: BM25Params | None = None,
        loader: Loader = "inline",
    ) -> None:
        self.index_dir = Path(index_dir)
        self.embedder = embedder
        self.fusion = fusion or Fusion()
        self.bm25_params = bm25 or BM25Params()
        self.loader: Loader = loader
        self._stamp: tuple[int, int] | None = None
        self._loading = threading.Lock()
        self.snapshot = self._load()

    @classmethod
    def open(
        cls,
        index_dir: Path,
        embedder: Embedder,
        fusion: Fusion | None = None,
        bm25: BM25Params | None = None,
        loader: Loader = "inline",
    ) -> Index:
        """Raises ``IndexMissing`` when nothing was built, ``EmbedderMismatch`` when another
        embedder built it (its vectors are not comparable with this one's queries).

        ``loader="subprocess"`` reads each version in a child process (``snapshot_load``):
        what a long-running service wants, not a one-off tool."""
        cached = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
        return cls(index_dir, cached, fusion, bm25, loader)

    def _load(self) -> Snapshot:
        stamp = meta_stamp(self.index_dir)
        meta = read_meta(self.index_dir)
        if meta is None:
            raise IndexMissing(f"no index at {self.index_dir}; run `dose-mem reindex`")
        _check_embedder(meta, self.embedder)
        snapshot = load(self.index_dir, meta, self.bm25_params, self.loader)
        release_memory()
        self._stamp = stamp
        return snapshot

    def changed(self) -> bool:
        """Whether the meta file moved since the loaded snapshot (one stat)."""
        stamp = meta_stamp(self.index_dir)
        return stamp is not None and stamp != self._stamp

    def reload_if_changed(self) -> bool:
        """Swap to the newest table version if a reindex finished since the last look.

        One thread loads; requests arriving meanwhile keep answering from the snapshot
        they have instead of queueing behind the load. A vanished meta (index being
        deleted by hand) keeps the snapshot already loaded.
        """
        if not self.changed() or not self._loading.acquire(blocking=False):
            return False
        try:
            if not self.changed():  # another thread finished the load meanwhile
                return False
            self.snapshot = self._load()
            return True
        finally:
            self._loading.release()

    def search(
        self, query: str, prefilter: Prefilter, k: int = 10, mode: Mode = "hybrid"
    ) -> list[Hit]:
        if prefilter.is_empty() or k <= 0:
            return []
        snapshot = self.snapshot
        mask = snapshot.mask(prefilter)
        depth = self.fusion.candidates(k)
        dense: Ranked = []
        lexical: Ranked = []
        if mode != "bm25":
            vector = self.embedder.embed_query(query)
            dense = snapshot.dense(vector, mask, depth)
        if mode != "dense":
            terms = bm25_terms(query).split()
            lexical = snapshot.bm25(terms, mask, depth, snapshot.runs(prefilter))
        return self._fuse(snapshot, dense, lexical, k)

    def item_path(self, item_id: str) -> str | None:
        return self.snapshot.item_path(item_id)

    def _fuse(self, snapshot: Snapshot, dense: Ranked, lexical: Ranked, k: int) -> list[Hit]:
        """Rank items (best chunk per item) in each leg, then sum weighted 1/(rrf_k + rank)."""
        f = self.fusion
        best: dict[int, int] = {}
        dense_rank, cosine = _item_ranks(snapshot, dense, best)
        bm25_rank, bm25 = _item_ranks(snapshot, lexical, best)
        scores = {
            item: f.dense_weight / (f.rrf_k + dense_rank[item]) if item in dense_rank else 0.0
            for item in best
        }
        for item, rank in bm25_rank.items():
            scores[item] += f.bm25_weight / (f.rrf_k + rank)
        # Item codes follow item ids (``Snapshot``): ties break by id.
        ordered = sorted(scores, key=lambda i: (-scores[i], i))[:k]
        hits = []
        shown = snapshot.shown([best[item] for item in ordered])
        for n, (item, row) in enumerate(zip(ordered, shown, strict=True), 1):
            hits.append(
                Hit(
                    item_id=row["item_id"],
                    project=row["project"],
                    type=CardType(row["type"]),
                    path=row["path"],
                    l0=row["l0"],
                    l1=row["l1"],
                    rank=n,
                    rrf=scores[item],
                    cosine=cosine.get(item, 0.0),
                    bm25=bm25.get(item, 0.0),
                    dense_rank=dense_rank.get(item),
                    bm25_rank=bm25_rank.get(item),
                    heading=row["heading"],
                    text=row["text"],
                )
            )
        return hits


def _item_ranks(
    snapshot: Snapshot, ranked: Ranked, best: dict[int, int]
) -> tuple[dict[int, int], dict[int, float]]:
    """1-based rank and score of each item (by its code) by its best chunk; the first leg
    to see an item keeps its best chunk as the one shown."""
    ranks: dict[int, int] = {}
    scores: dict[int, float] = {}
    items = snapshot.item_of[[row for row, _ in ranked]].tolist() if ranked else []
    for (row, score), item in zip(ranked, items, strict=True):
        if item not in ranks:
            ranks[item] = len(ranks) + 1
            scores[item] = score
            best.setdefault(item, row)
    return ranks, scores


def _check_embedder(meta: IndexMeta, embedder: Embedder) -> None:
    if (meta.embedder, meta.dim) != (embedder.name, embedder.dim):
        raise EmbedderMismatch(
            f"index built by {meta.embedder} ({meta.dim}d), queried with {embedder.name} "
            f"({embedder.dim}d); run `dose-mem reindex`"
        )
