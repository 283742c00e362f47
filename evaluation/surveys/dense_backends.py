"""Measure the service's dense leg against faiss and usearch, on the same rows and scope.

The snapshot's leg (``Snapshot.dense``: sign-bit Hamming preselection, int8 rescoring of
the nearest ``RESCORE``) against:

* faiss's exact inner-product index (``IndexFlatIP`` over the float32 vectors) with the
  scope applied inside the search as an ``IDSelectorBitmap`` built from the same mask;
* usearch's exact search (``usearch.index.search(..., exact=True)``) over the scope's
  rows, gathered once per scope as the service keeps its masks (usearch's Python API has
  no id filter, and an approximate HNSW search filtered afterwards would rank rows out of
  scope); once over the float32 vectors (inner product) and once over the same int8
  vectors the snapshot holds (cosine).

The vectors are clustered (rows near one of a few hundred centres, queries near a row),
896 dimensions like the default embedder pair, so the nearest rows are meaningfully
nearer than the rest; embedding the prompt is left out: every leg gets the same query
vector. faiss, usearch and numpy's BLAS run on one thread, as in the service.

``uv sync --group legs`` installs faiss and usearch; run
``python -m evaluation.surveys.dense_backends``.
The numbers and the choice are in docs/index.md ("Search legs: hand-written or a
library").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import faiss
import numpy as np
import pyarrow as pa
from usearch.index import MetricKind
from usearch.index import search as exact_search

from evaluation.surveys.leg_compare import Ranked, agreement_summary, interleaved, vector_table
from memory_repo.index.embedders import one_blas_thread
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.snapshot import Snapshot

DIM = 896
PROJECTS = [f"p{n:03d}" for n in range(1, 41)]


def _vectors(rows: int, centres: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    middle = rng.standard_normal((centres, DIM)).astype(np.float32)
    vectors = middle[rng.integers(0, centres, rows)] + 0.8 * rng.standard_normal(
        (rows, DIM)
    ).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _table(vectors: np.ndarray) -> pa.Table:
    """Rows in project order (as the index keeps them), a tenth of them global."""
    count = len(vectors)
    projects = ["global" if n % 10 == 0 else PROJECTS[n % len(PROJECTS)] for n in range(count)]
    order = np.argsort(np.array(projects), kind="stable")
    return vector_table(vectors[order], [projects[n] for n in order])


def leg_comparison(
    rows: int = 20_000, queries: int = 300, rounds: int = 5, k: int = 10, wide: bool = False
) -> dict[str, Any]:
    """p50/p99 per round (the two interleaved query by query, order alternating by
    round), their medians, and top-``k`` agreement of the snapshot with exact search."""
    faiss.omp_set_num_threads(1)
    one_blas_thread()  # as in the service
    vectors = _vectors(rows, centres=300, seed=3)
    snapshot = Snapshot.from_batches(_table(vectors).to_reader(max_chunksize=8192), DIM)
    stored = snapshot.vectors.astype(np.float32) * snapshot.scales[:, None]
    stored /= np.maximum(np.linalg.norm(stored, axis=1, keepdims=True), 1e-12)
    flat = faiss.IndexFlatIP(DIM)
    flat.add(np.ascontiguousarray(stored, dtype=np.float32))
    projects = [*(PROJECTS if wide else PROJECTS[:3]), "global"]
    prefilter = Prefilter(clauses=[ScopeClause(projects=projects)], automatic=False)
    mask = snapshot.mask(prefilter)
    bitmap = np.packbits(mask, bitorder="little")
    params = faiss.SearchParameters(sel=faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bitmap)))
    rng = np.random.default_rng(11)
    picks = vectors[rng.integers(0, rows, queries)]
    asks = picks + 0.3 * rng.standard_normal(picks.shape).astype(np.float32)
    asks /= np.linalg.norm(asks, axis=1, keepdims=True)

    def ours(q: np.ndarray) -> list[tuple[str, float]]:
        found = snapshot.dense(q, snapshot.mask(prefilter), k)
        return [(str(row), score) for row, score in found]

    def theirs(q: np.ndarray) -> list[tuple[str, float]]:
        scores, ids = flat.search(q[None, :], k, params=params)
        return [(str(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    rows_in = np.flatnonzero(mask)
    scoped = np.ascontiguousarray(stored[rows_in])
    scoped_int8 = np.ascontiguousarray(snapshot.vectors[rows_in])

    def usearch_f32(q: np.ndarray) -> np.ndarray:
        return exact_search(scoped, q, k, MetricKind.IP, exact=True, threads=1).keys

    def usearch_int8(q: np.ndarray) -> np.ndarray:
        code = np.round(q * (127 / np.abs(q).max())).astype(np.int8)
        return exact_search(scoped_int8, code, k, MetricKind.Cos, exact=True, threads=1).keys

    def ranked(found: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], Ranked]:
        """A library's top ``k`` as (row, score), scored as the snapshot scores (the
        int8 cosine) so that ties are judged on one scale; outside the timing."""

        def rank(q: np.ndarray) -> Ranked:
            rows_found = rows_in[np.asarray(found(q), dtype=np.int64)]
            return [(str(r), float(stored[r] @ q)) for r in rows_found]

        return rank

    runners = {
        "snapshot": ours,
        "faiss": theirs,
        "usearch_f32": usearch_f32,
        "usearch_int8": usearch_int8,
    }
    timings = interleaved(runners, asks, rounds)
    mine = [ours(q) for q in asks]
    against = {
        "faiss": theirs,
        "usearch_f32": ranked(usearch_f32),
        "usearch_int8": ranked(usearch_int8),
    }
    return {
        "rows": rows,
        "admitted_rows": int(mask.sum()),
        "queries": queries,
        "rounds": rounds,
        **timings,
        "agreement": {
            name: agreement_summary(list(zip(mine, map(other, asks), strict=True)), k)
            for name, other in against.items()
        },
    }


if __name__ == "__main__":
    print(json.dumps({"narrow": leg_comparison(), "wide": leg_comparison(wide=True)}, indent=1))
