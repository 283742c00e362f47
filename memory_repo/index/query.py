"""Hybrid query over the index: dense and BM25 legs, both prefiltered, fused by RRF.

``Index`` holds the open table, the embedder (with its query cache) and a stamp of the
meta file, so a long-running service can pick up a finished reindex by swapping one
reference; requests already running keep the table object they started with.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import lancedb
from lancedb.query import MatchQuery
from pydantic import BaseModel

from memory_repo.errors import DoseMemError, EmbedderMismatch
from memory_repo.index.embedders import CachedEmbedder, Embedder
from memory_repo.index.hits import Hit
from memory_repo.index.meta import IndexMeta, meta_stamp, read_meta
from memory_repo.index.rows import sql_str
from memory_repo.index.scope import Prefilter
from memory_repo.index.terms import bm25_terms
from memory_repo.models import CardType

Mode = Literal["hybrid", "dense", "bm25"]
# The dense leg runs here while the calling thread runs BM25: LanceDB releases the GIL, so
# on a quiet machine a hybrid query costs the slower leg, not the sum of both.
_LEGS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dose-mem-dense")
_COLUMNS = ["item_id", "chunk_no", "project", "type", "path", "l0", "l1", "heading", "text"]


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
        self, index_dir: Path, embedder: CachedEmbedder, fusion: Fusion | None = None
    ) -> None:
        self.index_dir = Path(index_dir)
        self.embedder = embedder
        self.fusion = fusion or Fusion()
        self._stamp: tuple[int, int] | None = None
        self._table: Any = None
        self._load()

    @classmethod
    def open(
        cls, index_dir: Path, embedder: Embedder, fusion: Fusion | None = None
    ) -> Index:
        """Raises ``IndexMissing`` when nothing was built, ``EmbedderMismatch`` when another
        embedder built it (its vectors are not comparable with this one's queries)."""
        cached = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
        return cls(index_dir, cached, fusion)

    def _load(self) -> None:
        stamp = meta_stamp(self.index_dir)
        meta = read_meta(self.index_dir)
        if meta is None:
            raise IndexMissing(f"no index at {self.index_dir}; run `dose-mem reindex`")
        _check_embedder(meta, self.embedder)
        table = lancedb.connect(self.index_dir).open_table(meta.table)
        self._table, self._stamp = table, stamp

    def reload_if_changed(self) -> bool:
        """Swap to the newest table version if a reindex finished since the last look.

        A vanished meta (index being deleted by hand) keeps the table already open.
        """
        stamp = meta_stamp(self.index_dir)
        if stamp is None or stamp == self._stamp:
            return False
        self._load()
        return True

    def search(
        self, query: str, prefilter: Prefilter, k: int = 10, mode: Mode = "hybrid"
    ) -> list[Hit]:
        if prefilter.is_empty() or k <= 0:
            return []
        table, where = self._table, prefilter.where()
        depth = self.fusion.candidates(k)
        if mode == "dense":
            return self._fuse(self._dense(table, query, where, depth), [], k)
        if mode == "bm25":
            return self._fuse([], self._bm25(table, query, where, depth), k)
        dense = _LEGS.submit(self._dense, table, query, where, depth)
        lexical = self._bm25(table, query, where, depth)
        return self._fuse(dense.result(), lexical, k)

    def item_path(self, item_id: str) -> str | None:
        rows = (
            self._table.search().where(f"item_id = {sql_str(item_id)}")
            .select(["path"]).limit(1).to_list()
        )
        return rows[0]["path"] if rows else None

    def _dense(self, table: Any, query: str, where: str, depth: int) -> list[dict[str, Any]]:
        vector = self.embedder.embed_query(query)
        return (
            table.search(vector, vector_column_name="vector").distance_type("cosine")
            .where(where, prefilter=True).select([*_COLUMNS, "_distance"]).limit(depth)
            .to_list()
        )

    def _bm25(self, table: Any, query: str, where: str, depth: int) -> list[dict[str, Any]]:
        terms = bm25_terms(query)
        if not terms:
            return []
        return (
            table.search(MatchQuery(terms, "tokens"), query_type="fts")
            .where(where, prefilter=True).select([*_COLUMNS, "_score"]).limit(depth)
            .to_list()
        )

    def _fuse(
        self, dense: list[dict[str, Any]], lexical: list[dict[str, Any]], k: int
    ) -> list[Hit]:
        """Rank items (best chunk per item) in each leg, then sum weighted 1/(rrf_k + rank)."""
        f = self.fusion
        best: dict[str, dict[str, Any]] = {}
        cosine: dict[str, float] = {}
        bm25: dict[str, float] = {}
        dense_rank = _item_ranks(dense, best)
        for row in dense:
            cosine.setdefault(row["item_id"], 1.0 - float(row["_distance"]))
        bm25_rank = _item_ranks(lexical, best)
        for row in lexical:
            bm25.setdefault(row["item_id"], float(row["_score"]))
        scores = {
            item_id: f.dense_weight / (f.rrf_k + dense_rank[item_id])
            if item_id in dense_rank else 0.0
            for item_id in best
        }
        for item_id, rank in bm25_rank.items():
            scores[item_id] += f.bm25_weight / (f.rrf_k + rank)
        ordered = sorted(scores, key=lambda i: (-scores[i], i))[:k]
        hits = []
        for n, item_id in enumerate(ordered, 1):
            row = best[item_id]
            hits.append(Hit(
                item_id=item_id, project=row["project"], type=CardType(row["type"]),
                path=row["path"], l0=row["l0"], l1=row["l1"], rank=n, rrf=scores[item_id],
                cosine=cosine.get(item_id, 0.0), bm25=bm25.get(item_id, 0.0),
                dense_rank=dense_rank.get(item_id), bm25_rank=bm25_rank.get(item_id),
                heading=row["heading"], text=row["text"],
            ))
        return hits


def _item_ranks(rows: list[dict[str, Any]], best: dict[str, dict[str, Any]]) -> dict[str, int]:
    """1-based rank of each item by its best chunk; the first leg to see an item keeps its
    best chunk as the one shown."""
    ranks: dict[str, int] = {}
    for row in rows:
        item_id = row["item_id"]
        if item_id not in ranks:
            ranks[item_id] = len(ranks) + 1
            best.setdefault(item_id, row)
    return ranks


def _check_embedder(meta: IndexMeta, embedder: Embedder) -> None:
    if (meta.embedder, meta.dim) != (embedder.name, embedder.dim):
        raise EmbedderMismatch(
            f"index built by {meta.embedder} ({meta.dim}d), queried with {embedder.name} "
            f"({embedder.dim}d); run `dose-mem reindex`"
        )

