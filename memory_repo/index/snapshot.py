"""One version of the index table held in RAM, so a query costs numpy work and nothing else.

Why: from Python, every LanceDB query pays ~3 ms of planning and conversion even for one
row, and a scoped leg 5-8 ms; that fixed cost was most of a recall's budget at 10k cards,
where the whole table is ~20k chunks and 30 MB of vectors. So the service reads a table
version once and answers both legs itself:

- the prefilter becomes one boolean mask over the rows (project and type codes,
  superseded, archived, expiry) computed *before* either leg scores anything, so an
  out-of-scope row is never a candidate: scope stays inside the query;
- dense: rows are sorted by project, so a scope is a few contiguous slices. Each row
  keeps its vector's sign bits (48 bytes at 384d) and the vector quantised to int8 with
  a per-row scale (cosine within ~0.002 of float32); a query ranks the admitted rows by
  Hamming distance of the sign bits, then rescores the nearest ``RESCORE`` of them. A
  scope with no more rows than that is rescored whole, i.e. searched exactly. (A float32
  scan cost 5.5 ms at 20k chunks and 31 ms at 200k here; the bit scan 0.1 and 1 ms, with
  8x less RAM; its top 50 agree with exact search on 99.97% of rows at 10k cards.)
- BM25: Okapi BM25 over the ``tokens`` column (our own tokeniser's terms), with each
  posting's term-frequency part precomputed at load and idf applied per query.

LanceDB stays the store: builds and refreshes write it, and a snapshot is a read of one
committed version, so a reader never sees half a refresh.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel

from memory_repo.index.scope import Prefilter

_EPOCH = np.datetime64("1970-01-01", "D")
_NEVER = np.iinfo(np.int32).max
_FAR = np.iinfo(np.uint16).max  # distance of rows outside every slice
# Rows rescored exactly after the sign-bit scan; docs/index.md has the recall check.
RESCORE = 1000
DISPLAY = ("item_id", "project", "type", "path", "l0", "l1", "heading", "text")


class BM25Params(BaseModel):
    """Okapi BM25's two knobs (Lucene's defaults; docs/index.md has the LoCoMo sweep)."""

    k1: float = 1.2
    b: float = 0.75


class Snapshot:
    """Read-only after construction, so any number of request threads may share one."""

    def __init__(self, table: pa.Table, dim: int, bm25: BM25Params | None = None) -> None:
        table = table.sort_by([("project", "ascending"), ("key", "ascending")])
        self.rows = table.num_rows
        self.display = {name: table[name].combine_chunks() for name in DISPLAY}
        self.item_ids: list[str] = self.display["item_id"].to_pylist()
        self._project_ranges = _ranges(self.display["project"])
        types = self.display["type"].dictionary_encode()
        self._type_codes = {t: n for n, t in enumerate(types.dictionary.to_pylist())}
        self.type_code = types.indices.to_numpy().astype(np.int16)
        self.active = ~(
            table["superseded"].to_numpy(zero_copy_only=False)
            | table["archived"].to_numpy(zero_copy_only=False)
        )
        expires = pc.fill_null(table["expires"].cast(pa.int32()), _NEVER)
        self.expires = expires.to_numpy().astype(np.int32)
        vectors = table["vector"].combine_chunks().values.to_numpy(zero_copy_only=False)
        vectors = vectors.reshape(self.rows, dim)
        self.scales = np.maximum(np.abs(vectors).max(axis=1, initial=0.0), 1e-12) / 127.0
        self.vectors = np.round(vectors / self.scales[:, None]).astype(np.int8)
        self.codes = _sign_codes(vectors)
        self._bm25 = _Postings(table["tokens"].combine_chunks(), bm25 or BM25Params())
        self._first_row = {item_id: n for n, item_id in reversed(list(enumerate(self.item_ids)))}

    # -- scope ------------------------------------------------------------------------
    def mask(self, prefilter: Prefilter) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """Rows the prefilter admits, and the project slices that can hold any of them."""
        mask = np.zeros(self.rows, dtype=bool)
        slices: set[tuple[int, int]] = set()
        for clause in prefilter.clauses:
            for project in clause.projects:
                span = self._project_ranges.get(project)
                if span is None:
                    continue
                start, end = span
                if clause.types is None:
                    mask[start:end] = True
                else:
                    codes = [self._type_codes[t.value] for t in clause.types
                             if t.value in self._type_codes]
                    mask[start:end] |= np.isin(self.type_code[start:end], codes)
                slices.add(span)
        if prefilter.automatic:
            day = int((np.datetime64(prefilter.today, "D") - _EPOCH).astype(np.int64))
            mask &= self.active & (self.expires > day)
        return mask, sorted(slices)

    # -- legs -------------------------------------------------------------------------
    def dense(
        self, vector: np.ndarray, mask: np.ndarray, slices: list[tuple[int, int]], depth: int
    ) -> list[tuple[int, float]]:
        """(row, cosine) of the ``depth`` nearest admitted rows, best first."""
        rows = np.flatnonzero(mask)
        if rows.size > RESCORE:
            query = _sign_codes(vector[None, :])[0]
            distance = np.full(self.rows, _FAR, dtype=np.uint16)
            for start, end in slices:
                bits = np.bitwise_count(self.codes[start:end] ^ query)
                # Word by word: an axis-1 reduction over 6 columns is 5x slower.
                total = bits[:, 0].astype(np.uint16)
                for word in range(1, bits.shape[1]):
                    total += bits[:, word]
                distance[start:end] = total
            rows = _nearest(rows, distance[rows], RESCORE)
        scores = np.zeros(self.rows, dtype=np.float32)
        scores[rows] = (self.vectors[rows].astype(np.float32) @ vector) * self.scales[rows]
        return _top(scores, rows, depth)

    def bm25(self, terms: list[str], mask: np.ndarray, depth: int) -> list[tuple[int, float]]:
        """(row, BM25) of the ``depth`` best admitted rows that match any term."""
        scores = self._bm25.scores(terms, self.rows)
        return _top(scores, np.flatnonzero(mask & (scores > 0.0)), depth)

    def row(self, n: int) -> dict[str, Any]:
        return {name: column[n].as_py() for name, column in self.display.items()}

    def item_path(self, item_id: str) -> str | None:
        n = self._first_row.get(item_id)
        return None if n is None else self.display["path"][n].as_py()


class _Postings:
    """Term -> (rows, tf part of BM25) as flat numpy arrays sliced by term offsets.

    Built with Arrow compute rather than Python lists: a 200k-chunk table has millions
    of terms, and as Python strings they cost seconds and hundreds of MB at load.
    """

    def __init__(self, documents: pa.Array, params: BM25Params) -> None:
        split = pc.split_pattern(pc.fill_null(documents, ""), " ")
        lengths = pc.list_value_length(split).to_numpy().astype(np.int64)
        terms = pc.drop_null(split.flatten())
        present = pc.not_equal(terms, "")
        encoded = pc.filter(terms, present).dictionary_encode()
        docs = max(len(documents), 1)
        owner = np.repeat(np.arange(len(documents), dtype=np.int64), lengths)
        owner = owner[present.to_numpy(zero_copy_only=False)]
        lengths = np.bincount(owner, minlength=len(documents))
        self._vocab = {t: n for n, t in enumerate(encoded.dictionary.to_pylist())}
        term_ids = encoded.indices.to_numpy().astype(np.int64)
        pairs, tf = np.unique(term_ids * docs + owner, return_counts=True)
        term_of, self._rows = pairs // docs, pairs % docs
        self._offsets = np.searchsorted(term_of, np.arange(len(self._vocab) + 1))
        df = np.diff(self._offsets)
        self._idf = np.log1p((len(documents) - df + 0.5) / (df + 0.5))
        avgdl = float(lengths.mean()) if len(documents) else 1.0
        norm = params.k1 * (1 - params.b + params.b * lengths[self._rows] / max(avgdl, 1e-9))
        self._weight = (tf * (params.k1 + 1) / (tf + norm)).astype(np.float32)

    def scores(self, terms: list[str], rows: int) -> np.ndarray:
        """Query terms are summed once per occurrence, as BM25's query term frequency."""
        out = np.zeros(rows, dtype=np.float32)
        for term in terms:
            term_id = self._vocab.get(term)
            if term_id is None:
                continue
            start, end = self._offsets[term_id], self._offsets[term_id + 1]
            out[self._rows[start:end]] += self._idf[term_id] * self._weight[start:end]
        return out


def release_memory() -> None:
    """Hand a load's temporaries back to the OS.

    Reading a table version and building a snapshot allocates several times the
    snapshot's size; Arrow's mimalloc pool and glibc's malloc keep those pages, which at
    10k cards left the service ~190 MB above what it holds.
    """
    pa.default_memory_pool().release_unused()
    libc = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(libc), "malloc_trim", None) if libc else None
    if trim is not None:
        trim(0)


def _sign_codes(vectors: np.ndarray) -> np.ndarray:
    """Each row's sign bits packed into uint64 words (zero-padded to a whole word)."""
    width = -(-vectors.shape[1] // 64) * 64
    bits = np.zeros((vectors.shape[0], width), dtype=bool)
    bits[:, : vectors.shape[1]] = vectors > 0
    return np.packbits(bits, axis=1).view(np.uint64)


def _ranges(projects: pa.Array) -> dict[str, tuple[int, int]]:
    """Start and end row of each project in rows sorted by project."""
    runs = pc.run_end_encode(projects)
    ends = runs.run_ends.to_numpy()
    starts = np.concatenate(([0], ends))[:-1]
    return {
        project: (int(start), int(end))
        for project, start, end in zip(runs.values.to_pylist(), starts, ends, strict=True)
    }


def _nearest(rows: np.ndarray, distance: np.ndarray, count: int) -> np.ndarray:
    """The rows within the smallest distance that covers ``count`` of them (ties kept,
    up to twice ``count``). A histogram over the few possible distances instead of a
    partial sort: 0.06 vs 0.5 ms at 20k rows."""
    covered = np.cumsum(np.bincount(distance))
    limit = int(np.searchsorted(covered, count))
    near = rows[distance <= limit]
    if near.size > 2 * count:
        near = near[np.argpartition(distance[distance <= limit], count - 1)[:count]]
    return near


def _top(scores: np.ndarray, rows: np.ndarray, depth: int) -> list[tuple[int, float]]:
    """The ``depth`` best of ``rows`` by score, best first, ties broken by row."""
    if rows.size == 0 or depth <= 0:
        return []
    if rows.size > depth:
        rows = rows[np.argpartition(-scores[rows], depth - 1)[:depth]]
    order = np.lexsort((rows, -scores[rows]))
    return [(int(rows[i]), float(scores[rows[i]])) for i in order]
