"""Hybrid query over the index: dense and BM25 legs, both prefiltered, fused by RRF.

``Index`` holds the embedder (with its query cache) and a ``Snapshot`` of the table
version named by the meta file; a long-running service picks up a finished reindex by
loading the new version and swapping one reference, while requests already running keep
the snapshot they started with.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel

from memory_repo.errors import DoseMemError, EmbedderMismatch
from memory_repo.index.allocators import release_memory
from memory_repo.index.embedders import CachedEmbedder, Embedder
from memory_repo.index.hits import Hit
from memory_repo.index.legs import Ranked
from memory_repo.index.meta import IndexMeta, meta_stamp, read_meta
from memory_repo.index.scope import Prefilter
from memory_repo.index.snapshot import BM25Params, Snapshot
from memory_repo.index.snapshot_load import Loader, load
from memory_repo.index.terms import bm25_terms
from memory_repo.index.vectors import Part, languages_of, parts_of
from memory_repo.models import CardType

Mode = Literal["hybrid", "dense", "bm25"]
# A dense leg: its weight, its ranking, and the rows that score in it (None: every row).
Leg = tuple[float, Ranked, np.ndarray | None]


@dataclass(frozen=True)
class _Read:
    """One index version read: the meta file's stamp and content, and its snapshot."""

    stamp: tuple[int, int] | None
    meta: IndexMeta
    snapshot: Snapshot


def _read(index_dir: Path, bm25: BM25Params, loader: Loader, embedder: Embedder | None) -> _Read:
    """The current version (the embedder checked first when given)."""
    stamp = meta_stamp(index_dir)
    meta = read_meta(index_dir)
    if meta is None:
        raise IndexMissing(f"no index at {index_dir}; run `dose-mem reindex`")
    if embedder is not None:
        _check_embedder(meta, embedder)
    snapshot = load(index_dir, meta, bm25, loader)
    release_memory()
    return _Read(stamp, meta, snapshot)


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
    # Weight of a multilingual dense leg when an English specialist leg runs beside it
    # (an English prompt): it is there to reach cards in another language.
    cross_weight: float = 1.0

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
        read: _Read | None = None,
    ) -> None:
        self.index_dir = Path(index_dir)
        self.embedder = embedder
        self.parts: tuple[Part, ...] = parts_of(embedder)
        self.fusion = fusion or Fusion()
        self.bm25_params = bm25 or BM25Params()
        self.loader: Loader = loader
        self._stamp: tuple[int, int] | None = None
        self._loading = threading.Lock()
        if read is None:
            self.snapshot = self._load()
        else:  # read while the embedder was being built (``open`` with a Future)
            self._stamp, self.snapshot = read.stamp, read.snapshot

    @classmethod
    def open(
        cls,
        index_dir: Path,
        embedder: Embedder | Future[Embedder],
        fusion: Fusion | None = None,
        bm25: BM25Params | None = None,
        loader: Loader = "inline",
    ) -> Index:
        """Raises ``IndexMissing`` when nothing was built, ``EmbedderMismatch`` when another
        embedder built it (its vectors are not comparable with this one's queries).

        ``loader="subprocess"`` reads each version in a child process (``snapshot_load``):
        what a long-running service wants, not a one-off tool. ``embedder`` may be a
        ``Future`` still being built on another thread: the snapshot is read meanwhile
        (in the child, on the other core), and the embedder checked once it is there."""
        read = None
        if isinstance(embedder, Future):
            read = _read(Path(index_dir), bm25 or BM25Params(), loader, None)
            embedder = embedder.result()
            _check_embedder(read.meta, embedder)
        cached = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
        return cls(index_dir, cached, fusion, bm25, loader, read)

    def _load(self) -> Snapshot:
        read = _read(self.index_dir, self.bm25_params, self.loader, self.embedder)
        self._stamp = read.stamp
        return read.snapshot

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
        dense: list[Leg] = []
        lexical: Ranked = []
        widest = 0
        if mode != "bm25":
            runs = self._runs(snapshot, mask, languages_of(query))
            ran = [i for i, run in enumerate(runs) if run]
            widest = max(ran, key=lambda i: len(self.parts[i].languages))
            vector = self.embedder.embed_query(query, runs)
            dense = self._dense_legs(snapshot, vector, mask, depth, runs)
        if mode != "dense":
            terms = bm25_terms(query).split()
            lexical = snapshot.bm25(terms, mask, depth, snapshot.runs(prefilter))
        return self._fuse(snapshot, dense, lexical, k, widest)

    def _runs(
        self, snapshot: Snapshot, mask: np.ndarray, languages: frozenset[str]
    ) -> tuple[bool, ...]:
        """Which embedder parts a query runs: those that cover its languages (every part,
        when none does). Where a narrower part runs beside a wider one (an English query:
        the English model beside the multilingual one), the wider one only scores
        Chinese rows (``_dense_legs``), so it runs only if the scope holds any: an
        all-English scope costs one model call per query, as before the pair."""
        parts = self.parts
        runs = [languages <= p.languages for p in parts] if len(parts) > 1 else [True]
        if not any(runs):
            runs = [True] * len(parts)
        if sum(runs) > 1 and not (mask & snapshot.chinese()).any():
            narrowest = min(len(p.languages) for p, r in zip(parts, runs, strict=True) if r)
            runs = [r and len(p.languages) == narrowest for p, r in zip(parts, runs, strict=True)]
        return tuple(runs)

    def _dense_legs(
        self,
        snapshot: Snapshot,
        vector: np.ndarray,
        mask: np.ndarray,
        depth: int,
        runs: tuple[bool, ...],
    ) -> list[Leg]:
        """(weight, ranking, rows that score) per embedder part, in part order, for the
        parts ``runs`` selects; an empty ranking stands where a part does not run.

        Where a narrower part runs too (an English query: the English model beside the
        multilingual one), each row counts in the leg of the model that reads its
        language: the specialist ranks the rows without Chinese, the multilingual model
        ranks every row but only its Chinese rows score, each at the rank it holds among
        all rows. So a Chinese card comes first only when the multilingual model itself
        puts it above every English card, and an all-English memory ranks as it would
        with the specialist alone (LoCoMo, docs/index.md).
        """
        parts = self.parts
        if len(parts) == 1:
            return [(self.fusion.dense_weight, snapshot.dense(vector, mask, depth), None)]
        narrowest = min(len(p.languages) for p, r in zip(parts, runs, strict=True) if r)
        split = sum(runs) > 1
        legs: list[Leg] = []
        for part, run in zip(parts, runs, strict=True):
            if not run:
                legs.append((0.0, [], None))
            elif split and len(part.languages) > narrowest:
                ranked = snapshot.dense(vector, mask, depth, part)
                legs.append((self.fusion.cross_weight, ranked, snapshot.chinese()))
            elif split:
                ranked = snapshot.dense(vector, mask & ~snapshot.chinese(), depth, part)
                legs.append((self.fusion.dense_weight, ranked, None))
            else:
                legs.append(
                    (self.fusion.dense_weight, snapshot.dense(vector, mask, depth, part), None)
                )
        return legs

    def item_path(self, item_id: str) -> str | None:
        return self.snapshot.item_path(item_id)

    def _fuse(
        self, snapshot: Snapshot, dense: list[Leg], lexical: Ranked, k: int, widest: int
    ) -> list[Hit]:
        """Rank items (best chunk per item) in each leg, then sum weighted 1/(rrf_k + rank).
        A hit's ``cosine`` is the one of leg ``widest`` (the widest part that ran)."""
        f = self.fusion
        best: dict[int, int] = {}
        legs = [_item_ranks(snapshot, ranked, best) for _, ranked, _ in dense]
        bm25_rank, bm25 = _item_ranks(snapshot, lexical, best)
        scores = dict.fromkeys(best, 0.0)
        dense_rank: dict[int, int] = {}
        for (weight, _, scoring), (ranks, _) in zip(dense, legs, strict=True):
            for item, rank in ranks.items():
                if scoring is not None and not scoring[best[item]]:
                    continue
                scores[item] += weight / (f.rrf_k + rank)
                dense_rank[item] = min(rank, dense_rank.get(item, rank))
        for item, rank in bm25_rank.items():
            scores[item] += f.bm25_weight / (f.rrf_k + rank)
        # Item codes follow item ids (``Snapshot``): ties break by id.
        ordered = sorted((i for i in scores if scores[i] > 0), key=lambda i: (-scores[i], i))[:k]
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
                    cosine=legs[widest][1].get(item, 0.0) if legs else 0.0,
                    part_cosines=tuple(cos.get(item, 0.0) for _, cos in legs),
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
