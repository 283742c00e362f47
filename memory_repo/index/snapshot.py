"""One version of the index table held in RAM, so a query costs numpy work and nothing else.

Why: from Python, every LanceDB query pays ~3 ms of planning and conversion even for one
row, and a scoped leg 5-8 ms; that fixed cost was most of a recall's budget at 10k cards,
where the whole table is ~20k chunks and 30 MB of vectors. So the service reads a table
version once and answers both legs itself:

- the prefilter becomes one boolean mask over the rows (project and type codes,
  superseded, archived, expiry) computed *before* either leg scores anything, so an
  out-of-scope row is never a candidate: scope stays inside the query;
- dense: each row keeps its vector's sign bits (48 bytes at 384d) and the vector as
  int8 with a per-row scale (cosine within ~0.002 of float32); a query ranks the
  admitted rows by Hamming distance of the sign bits, then rescores the nearest
  ``RESCORE`` of them. A scope of no more rows than that is rescored whole, i.e.
  searched exactly. (A float32 scan cost 5.5 ms at 20k chunks and 31 ms at 200k here;
  the bit scan 0.1 and ~1 ms, in 8x less RAM; its top 50 agree with exact search on
  99.97% of rows at 10k cards.)
- BM25: Okapi BM25 over the ``tokens`` column (our own tokeniser's terms), with each
  posting's term-frequency part precomputed at load and idf applied per query.

LanceDB stays the store: builds and refreshes write it, and a snapshot is a read of one
committed version, so a reader never sees half a refresh.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel

from memory_repo.index.scope import Prefilter

_EPOCH = np.datetime64("1970-01-01", "D")
_NEVER = np.iinfo(np.int32).max
# Rows rescored exactly after the sign-bit scan; docs/index.md has the recall check.
RESCORE = 1000
HAMMING_BLOCK = 16384
ITEM_FIELDS = ("item_id", "project", "type", "path", "l0", "l1")
CHUNK_FIELDS = ("heading", "text")
DISPLAY = ITEM_FIELDS + CHUNK_FIELDS


class BM25Params(BaseModel):
    """Okapi BM25's two knobs (Lucene's defaults; docs/index.md has the LoCoMo sweep)."""

    k1: float = 1.2
    b: float = 0.75


class Snapshot:
    """Read-only after construction, so any number of request threads may share one.

    Built from a stream of record batches, so a load never holds the table's float32
    vectors (300 MB at 100k cards) or its columns all at once: each batch is quantised and
    dropped. Reading the whole table first peaked at ~2.3 GB and left ~150 MB more
    resident after the load at 100k cards.
    """

    def __init__(
        self, batches: pa.RecordBatchReader, dim: int, bm25: BM25Params | None = None
    ) -> None:
        display: list[pa.RecordBatch] = []
        tokens: list[pa.Array] = []
        flags: list[tuple[np.ndarray, np.ndarray]] = []
        quantised: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for batch in batches:
            display.append(batch.select(list(DISPLAY)))
            tokens.append(batch.column("tokens"))
            flags.append(_flags(batch))
            vectors = batch.column("vector").flatten().to_numpy(zero_copy_only=False)
            quantised.append(_quantise(vectors.reshape(batch.num_rows, dim)))
        schema = batches.schema
        table = pa.Table.from_batches(
            display, pa.schema([schema.field(c) for c in DISPLAY])
        ).combine_chunks()
        del display
        self.rows = table.num_rows
        # An item's fields are the same on each of its chunks: held once per item (half
        # the rows), with each row pointing at its item.
        self.item_of = _encoded(table["item_id"])[1]  # no id -> code dict: ids come by row
        first = np.unique(self.item_of, return_index=True)[1]
        self.items = table.select(list(ITEM_FIELDS)).take(first)
        self.chunks = table.select(list(CHUNK_FIELDS))
        del table
        self._project_codes, item_project = _codes(self.items["project"])
        self._type_codes, item_type = _codes(self.items["type"])
        self.project_code = item_project[self.item_of]
        self.type_code = item_type[self.item_of]
        self.active = _joined([f[0] for f in flags], np.bool_)
        self.expires = _joined([f[1] for f in flags], np.int32)
        self.vectors = _joined([q[0] for q in quantised], np.int8).reshape(self.rows, dim)
        self.scales = _joined([q[1] for q in quantised], np.float32)
        words = -(-dim // 64)
        self.codes = _joined([q[2] for q in quantised], np.uint64).reshape(self.rows, words)
        del quantised
        self._bm25 = _Postings(
            pa.chunked_array(tokens, pa.string()).combine_chunks(), bm25 or BM25Params()
        )

    # -- scope ------------------------------------------------------------------------
    def mask(self, prefilter: Prefilter) -> np.ndarray:
        """The rows the prefilter admits: any clause's projects (and types), then the
        lifecycle rule when the prefilter is automatic."""
        mask = np.zeros(self.rows, dtype=bool)
        for clause in prefilter.clauses:
            projects = [self._project_codes[p] for p in clause.projects
                        if p in self._project_codes]
            if not projects:
                continue
            admitted = _lookup(len(self._project_codes), projects)[self.project_code]
            if clause.types is not None:
                types = [self._type_codes[t.value] for t in clause.types
                         if t.value in self._type_codes]
                admitted &= _lookup(len(self._type_codes), types)[self.type_code]
            mask |= admitted
        if prefilter.automatic:
            day = int((np.datetime64(prefilter.today, "D") - _EPOCH).astype(np.int64))
            mask &= self.active & (self.expires > day)
        return mask

    # -- legs -------------------------------------------------------------------------
    def dense(self, vector: np.ndarray, mask: np.ndarray, depth: int) -> list[tuple[int, float]]:
        """(row, cosine) of the ``depth`` nearest admitted rows, best first."""
        rows = np.flatnonzero(mask)
        if rows.size > RESCORE:
            query = _sign_codes(vector[None, :])[0]
            # A narrow scope gathers its rows' codes first; a wide one scans them all in
            # place (a gather of most rows costs more than the rows it skips).
            narrow = rows.size * 3 < self.rows
            distance = _hamming(self.codes[rows] if narrow else self.codes, query)
            rows = _nearest(rows, distance if narrow else distance[rows], RESCORE)
        cosine = (self.vectors[rows].astype(np.float32) @ vector) * self.scales[rows]
        return _top_of(rows, cosine, depth)

    def bm25(self, terms: list[str], mask: np.ndarray, depth: int) -> list[tuple[int, float]]:
        """(row, BM25) of the ``depth`` best admitted rows that match any term."""
        scores = self._bm25.scores(terms, self.rows)
        return _top(scores, np.flatnonzero(mask & (scores > 0.0)), depth)

    def shown(self, ns: list[int]) -> list[dict[str, Any]]:
        """The display fields of these rows, in this order."""
        rows = np.asarray(ns, dtype=np.int64)
        items = self.items.take(self.item_of[rows]).to_pylist()
        chunks = self.chunks.take(rows).to_pylist()
        return [{**item, **chunk} for item, chunk in zip(items, chunks, strict=True)]

    def ids_of(self, ns: list[int]) -> list[str]:
        """The item id of each of these rows."""
        return self.items["item_id"].take(self.item_of[np.asarray(ns, dtype=np.int64)]).to_pylist()

    def item_path(self, item_id: str) -> str | None:
        n = pc.index(self.items["item_id"], item_id).as_py()
        return None if n < 0 else self.items["path"][n].as_py()


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
        term_of, rows = pairs // docs, pairs % docs
        del pairs
        self._offsets = np.searchsorted(term_of, np.arange(len(self._vocab) + 1))
        df = np.diff(self._offsets)
        self._idf = np.log1p((len(documents) - df + 0.5) / (df + 0.5))
        avgdl = float(lengths.mean()) if len(documents) else 1.0
        norm = params.k1 * (1 - params.b + params.b * lengths[rows] / max(avgdl, 1e-9))
        self._rows = rows.astype(np.int32)  # half the RAM of int64: ~5M postings at 100k
        self._weight = (tf * (params.k1 + 1) / (tf + norm)).astype(np.float32)

    def scores(self, terms: list[str], rows: int) -> np.ndarray:
        """Query terms are summed once per occurrence, as BM25's query term frequency.

        One ``bincount`` over the query's postings rather than a scatter-add per term:
        a query here touches ~360k postings at 100k cards, 1.7 ms instead of 2.9.
        """
        spans = [
            (self._offsets[t], self._offsets[t + 1], np.float32(self._idf[t]))
            for t in (self._vocab.get(term) for term in terms) if t is not None
        ]
        if not spans:
            return np.zeros(rows, dtype=np.float32)
        postings = np.concatenate([self._rows[start:end] for start, end, _ in spans])
        weights = np.concatenate([self._weight[start:end] * idf for start, end, idf in spans])
        return np.bincount(postings, weights=weights, minlength=rows).astype(np.float32)


def _flags(batch: pa.RecordBatch) -> tuple[np.ndarray, np.ndarray]:
    """(active, expiry day) of each row; an open expiry is the largest day."""
    active = ~(
        batch.column("superseded").to_numpy(zero_copy_only=False)
        | batch.column("archived").to_numpy(zero_copy_only=False)
    )
    expires = pc.fill_null(batch.column("expires").cast(pa.int32()), _NEVER)
    return active, expires.to_numpy(zero_copy_only=False).astype(np.int32)


def _quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """int8 with a per-row scale (cosine within ~0.002 of float32), and the sign bits."""
    scales = (np.maximum(np.abs(vectors).max(axis=1, initial=0.0), 1e-12) / 127.0)
    scales = scales.astype(np.float32)
    return np.round(vectors / scales[:, None]).astype(np.int8), scales, _sign_codes(vectors)


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _sign_codes(vectors: np.ndarray) -> np.ndarray:
    """Each row's sign bits packed into uint64 words (zero-padded to a whole word)."""
    width = -(-vectors.shape[1] // 64) * 64
    bits = np.zeros((vectors.shape[0], width), dtype=bool)
    bits[:, : vectors.shape[1]] = vectors > 0
    return np.packbits(bits, axis=1).view(np.uint64)


def _hamming(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Bits differing from ``query`` per row, in blocks of rows: one XOR of 200k rows
    is a 9.6 MB temporary, which the service's allocator maps and unmaps per request."""
    distance = np.empty(len(codes), dtype=np.uint16)
    for start in range(0, len(codes), HAMMING_BLOCK):
        bits = np.bitwise_count(codes[start : start + HAMMING_BLOCK] ^ query)
        # Word by word: an axis-1 reduction over 6 columns is 5x slower.
        block = bits[:, 0].astype(np.uint16)
        for word in range(1, bits.shape[1]):
            block += bits[:, word]
        distance[start : start + HAMMING_BLOCK] = block
    return distance


def _lookup(size: int, codes: list[int]) -> np.ndarray:
    """A table from code to "admitted": indexing it with a code column is one gather,
    ~10x cheaper than ``np.isin`` at 20k rows."""
    table = np.zeros(size, dtype=bool)
    table[codes] = True
    return table


def _codes(column: pa.ChunkedArray) -> tuple[dict[str, int], np.ndarray]:
    """A string column as small integer codes, and the code of each value."""
    dictionary, indices = _encoded(column)
    return {value: n for n, value in enumerate(dictionary.to_pylist())}, indices


def _encoded(column: pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """The distinct values, and each row's index into them."""
    encoded = column.dictionary_encode().combine_chunks()
    return encoded.dictionary, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)


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
    return _top_of(rows, scores[rows], depth)


def _top_of(rows: np.ndarray, scores: np.ndarray, depth: int) -> list[tuple[int, float]]:
    """The same, given the score of each of ``rows``."""
    if rows.size == 0 or depth <= 0:
        return []
    if rows.size > depth:
        keep = np.argpartition(-scores, depth - 1)[:depth]
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))
    return [(int(rows[i]), float(scores[i])) for i in order]
