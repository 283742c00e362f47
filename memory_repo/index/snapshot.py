"""One version of the index table held in RAM, so a query costs numpy work and nothing else.

Why: from Python, every LanceDB query pays a fixed cost of planning and conversion, even
for one row, that was most of a recall's budget (docs/index.md, "Measurements behind the
code"). So the service reads a table version once and answers both legs itself:

- the prefilter becomes one boolean mask over the rows (project and type codes,
  superseded, archived, expiry) computed *before* either leg scores anything, so an
  out-of-scope row is never a candidate: scope stays inside the query;
- dense: each row keeps its vector's sign bits (one bit per dimension) and the vector
  as int8 with a per-row scale; a query ranks the admitted rows by Hamming distance of
  the sign bits, then rescores the nearest ``RESCORE`` of them with the int8 vectors. A
  scope of no more rows than that is rescored whole, i.e. searched exactly. The bit
  scan against a float32 scan, and its agreement with exact search, are measured in
  docs/index.md.
- BM25: Okapi BM25 over the ``tokens`` column (our own tokeniser's terms), with each
  posting's whole weight (idf times the term-frequency part) precomputed at load.

LanceDB stays the store: builds and refreshes write it, and a snapshot is a read of one
committed version, so a reader never sees half a refresh.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel

from memory_repo.index.legs import Ranked, Runs
from memory_repo.index.scope import Prefilter
from memory_repo.index.vectors import Part

_EPOCH = np.datetime64("1970-01-01", "D")
_NEVER = np.iinfo(np.int32).max
# Rows rescored exactly after the sign-bit scan; docs/index.md has the recall check.
RESCORE = 1000
MASKS = 64
BAR_STRIDE = 16  # see ``_best``
HAMMING_BLOCK = 1 << 16  # rows per step of the Hamming scan (the XOR buffer's length)
ITEM_FIELDS = ("item_id", "project", "type", "path", "l0", "l1")
CHUNK_FIELDS = ("heading", "text")
DISPLAY = ITEM_FIELDS + CHUNK_FIELDS


class BM25Params(BaseModel):
    """Okapi BM25's two knobs (Lucene's defaults; docs/index.md has the LoCoMo sweep)."""

    k1: float = 1.2
    b: float = 0.75


@dataclass(frozen=True)
class Parts:
    """A snapshot as four Arrow tables, the form a loader process hands to the service
    (``snapshot_load.py``): rows (per chunk), items, terms and postings."""

    rows: pa.Table
    items: pa.Table
    terms: pa.Table
    postings: pa.Table

    def named(self) -> dict[str, pa.Table]:
        return {field.name: getattr(self, field.name) for field in fields(self)}


class Snapshot:
    """Read-only after construction but for a small cache of scope masks (under a lock),
    so any number of request threads may share one.

    Its numpy arrays are views of the ``Parts`` tables, so the snapshot built in this
    process and the one received from a loader process are the same, byte for byte.
    """

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        rows, self.items = parts.rows, parts.items
        self.rows = rows.num_rows
        self.item_of = _numpy(rows, "item_of")
        self.chunks = rows.select(list(CHUNK_FIELDS))
        self._project_codes, item_project = _codes(self.items["project"])
        self._type_codes, item_type = _codes(self.items["type"])
        # (project, type) as one code per row, so a scope is one gather from a small
        # table; and the last day a row is alive (0 when superseded or archived), so the
        # lifecycle rule is one comparison.
        self._scope_code = (item_project * len(self._type_codes) + item_type).astype(np.int32)[
            self.item_of
        ]
        self._runs = _runs(item_project[self.item_of])
        self._alive_until = np.where(_numpy(rows, "active"), _numpy(rows, "expires"), 0)
        self.scales = _numpy(rows, "scale")
        self.vectors = _numpy(rows, "vector")
        self.codes = [_numpy(rows, f"code_{w}") for w in range(_words(rows))]
        self._bm25 = _Postings(parts.terms, parts.postings)
        self._masks: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._masks_lock = threading.Lock()
        self._chinese: np.ndarray | None = None

    @classmethod
    def from_batches(
        cls, batches: pa.RecordBatchReader, dim: int, bm25: BM25Params | None = None
    ) -> Snapshot:
        """Built from a stream of record batches, so a load never holds the table's float32
        vectors or its columns all at once: each batch is quantised and dropped (peak
        memory of a load: docs/index.md)."""
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
        # Rows in project order, so each project's rows are one range (``runs``).
        order = pc.sort_indices(table["project"]).to_numpy()
        table = table.take(order)
        documents = pa.chunked_array(tokens, pa.string()).combine_chunks().take(order)
        # An item's fields are the same on each of its chunks: held once per item (half
        # the rows), with each row pointing at its item. Items are numbered in id order,
        # so ranking ties break by id without fetching any id.
        ids = table["item_id"]
        unique = pc.unique(ids)
        item_of = pc.index_in(ids, value_set=unique.take(pc.sort_indices(unique)))
        item_of = item_of.to_numpy().astype(np.int32)
        first = np.unique(item_of, return_index=True)[1]
        vectors = _joined([q[0] for q in quantised], np.int8).reshape(-1, dim)[order]
        codes = _joined([q[2] for q in quantised], np.uint64).reshape(-1, -(-dim // 64))[order]
        rows = pa.table(
            {
                "item_of": item_of,
                "active": _joined([f[0] for f in flags], np.bool_)[order],
                "expires": _joined([f[1] for f in flags], np.int32)[order],
                "scale": _joined([q[1] for q in quantised], np.float32)[order],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), dim),
                # A column per 64-bit word of the sign bits: see ``_hamming``.
                **{f"code_{w}": np.ascontiguousarray(codes[:, w]) for w in range(codes.shape[1])},
                **{c: table[c] for c in CHUNK_FIELDS},
            }
        )
        items = table.select(list(ITEM_FIELDS)).take(first)
        del table, quantised
        return cls(Parts(rows, items, *_postings(documents, bm25 or BM25Params())))

    # -- scope ------------------------------------------------------------------------
    def mask(self, prefilter: Prefilter) -> np.ndarray:
        """The rows the prefilter admits (the rule's reference is ``Prefilter.admits``). A
        token and profile ask the same scope request after request (one per project at
        most), so the last ``MASKS`` masks are kept, packed as bits (one bit per row)."""
        key = _scope_key(prefilter)
        with self._masks_lock:
            bits = self._masks.get(key)
            if bits is not None:
                self._masks.move_to_end(key)
        if bits is None:
            mask = self._mask(prefilter)
            with self._masks_lock:
                self._masks[key] = np.packbits(mask)
                if len(self._masks) > MASKS:
                    self._masks.popitem(last=False)
            return mask
        return np.unpackbits(bits, count=self.rows).view(bool)

    def runs(self, prefilter: Prefilter, share: float = 1 / 3) -> Runs | None:
        """The row ranges holding every row of the prefilter's projects, when they hold
        less than ``share`` of all rows (a narrow scope); None for a wide one."""
        projects = {
            self._project_codes[p]
            for clause in prefilter.clauses
            for p in clause.projects
            if p in self._project_codes
        }
        runs = sorted(run for p in projects for run in self._runs[p])
        if sum(end - start for start, end in runs) >= share * self.rows:
            return None
        return runs

    def _mask(self, prefilter: Prefilter) -> np.ndarray:
        """Any clause's projects (and types), then the lifecycle rule when the prefilter
        is automatic."""
        admitted = np.zeros((len(self._project_codes), len(self._type_codes)), dtype=bool)
        for clause in prefilter.clauses:
            projects = [self._project_codes[p] for p in clause.projects if p in self._project_codes]
            if clause.types is None:
                admitted[projects, :] = True
            else:
                types = [
                    self._type_codes[t.value] for t in clause.types if t.value in self._type_codes
                ]
                admitted[np.ix_(projects, types)] = True
        mask = admitted.reshape(-1)[self._scope_code]
        if prefilter.automatic:
            day = int((np.datetime64(prefilter.today, "D") - _EPOCH).astype(np.int64))
            mask &= self._alive_until > day
        return mask

    # -- legs -------------------------------------------------------------------------
    def dense(
        self, vector: np.ndarray, mask: np.ndarray, depth: int, part: Part | None = None
    ) -> Ranked:
        """(row, cosine) of the ``depth`` nearest admitted rows, best first.

        With ``part``, only that model's columns count: ``vector`` is the whole query
        vector, and the cosine is of the two parts, each taken as a unit vector.
        """
        codes, query = self.codes, vector
        vectors: np.ndarray = self.vectors
        gain = 1.0
        if part is not None:
            codes = codes[part.start // 64 : part.stop // 64]
            query = vector[part.start : part.stop]
            vectors = vectors[:, part.start : part.stop]
            gain = 1.0 / (part.norm * max(float(np.linalg.norm(query)), 1e-12))
        admitted = int(np.count_nonzero(mask))
        if admitted <= RESCORE:
            rows = np.flatnonzero(mask)
        elif admitted * 3 < self.rows:
            # A narrow scope gathers its rows' codes first...
            rows = np.flatnonzero(mask)
            distance = _hamming([word[rows] for word in codes], _query_code(query))
            rows = rows[_nearest(distance, RESCORE)]
        else:
            # ...a wide one scans every row in place and puts the others out of reach
            # (a gather of most rows costs more than the rows it skips).
            distance = _hamming(codes, _query_code(query))
            distance[~mask] = 64 * len(codes) + 1
            rows = _nearest(distance, RESCORE)
        cosine = (vectors[rows].astype(np.float32) @ query) * self.scales[rows]
        if gain != 1.0:
            cosine *= gain
        return _top_of(rows, cosine, depth)

    def chinese(self) -> np.ndarray:
        """Rows whose item headline or chunk has Chinese characters in it (computed once)."""
        if self._chinese is None:
            pattern = "[\u3400-\u9fff\uf900-\ufaff]"
            l0 = pc.match_substring_regex(self.items["l0"], pattern).to_numpy(False)
            text = pc.match_substring_regex(self.chunks["text"], pattern)
            heading = pc.match_substring_regex(self.chunks["heading"], pattern)
            rows = pc.or_(text, heading).to_numpy(False)
            self._chinese = rows | l0[self.item_of]
        return self._chinese

    def bm25(
        self, terms: list[str], mask: np.ndarray, depth: int, runs: Runs | None = None
    ) -> Ranked:
        """(row, BM25) of the ``depth`` best admitted rows that match any term; ``runs``
        (from ``runs()``) limits the postings read to those row ranges."""
        scores = self._bm25.scores(terms, self.rows, runs)
        np.multiply(scores, mask, out=scores)
        return _best(scores, depth)

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


def _postings(documents: pa.Array, params: BM25Params) -> tuple[pa.Table, pa.Table]:
    """(terms, postings): each term's end offset into the postings; each posting's row
    and its whole BM25 weight (idf times the term-frequency part), precomputed at load,
    so a query only gathers and sums.

    Built with Arrow compute rather than Python lists: a 200k-chunk table has millions
    of terms, and as Python strings they cost seconds and hundreds of MB at load.
    """
    split = pc.split_pattern(pc.fill_null(documents, ""), " ")
    lengths = pc.list_value_length(split).to_numpy().astype(np.int64)
    terms = pc.drop_null(split.flatten())
    present = pc.not_equal(terms, "")
    encoded = pc.filter(terms, present).dictionary_encode()
    docs = max(len(documents), 1)
    owner = np.repeat(np.arange(len(documents), dtype=np.int64), lengths)
    owner = owner[present.to_numpy(zero_copy_only=False)]
    lengths = np.bincount(owner, minlength=len(documents))
    vocab = encoded.dictionary
    term_ids = encoded.indices.to_numpy().astype(np.int64)
    pairs, tf = np.unique(term_ids * docs + owner, return_counts=True)
    term_of, rows = pairs // docs, pairs % docs
    del pairs
    ends = np.searchsorted(term_of, np.arange(len(vocab)), side="right")
    df = np.diff(ends, prepend=0)
    idf = np.log1p((len(documents) - df + 0.5) / (df + 0.5))
    avgdl = float(lengths.mean()) if len(documents) else 1.0
    norm = params.k1 * (1 - params.b + params.b * lengths[rows] / max(avgdl, 1e-9))
    weight = (idf[term_of] * tf * (params.k1 + 1) / (tf + norm)).astype(np.float32)
    # int32 rows: half the RAM of int64.
    return (
        pa.table({"term": vocab, "end": ends}),
        pa.table({"row": rows.astype(np.int32), "weight": weight}),
    )


class _Postings:
    """Term -> (rows, BM25 weights) as flat numpy arrays sliced by term offsets."""

    def __init__(self, terms: pa.Table, postings: pa.Table) -> None:
        self._vocab = {t: n for n, t in enumerate(terms["term"].to_pylist())}
        self._offsets = np.concatenate([[0], _numpy(terms, "end")])
        self._rows = _numpy(postings, "row")
        self._weight = _numpy(postings, "weight")

    def scores(self, terms: list[str], rows: int, runs: Runs | None = None) -> np.ndarray:
        """Query terms are summed once per occurrence, as BM25's query term frequency.

        Term by term into float32 with ``np.add.at``: its temporaries are one term's
        postings at most, never a 64-bit copy of all of a query's postings (why that
        matters under load: docs/index.md, "Allocation on the hot path").

        With ``runs``, only the postings inside those row ranges are read; a term's
        postings are in row order, so each range is one slice found by binary search.
        """
        scores = np.zeros(rows, dtype=np.float32)
        bounds = None if runs is None else np.array(runs, dtype=np.int64).reshape(-1)
        for t in (self._vocab.get(term) for term in terms):
            if t is None:
                continue
            hit = self._rows[self._offsets[t] : self._offsets[t + 1]]
            weight = self._weight[self._offsets[t] : self._offsets[t + 1]]
            if bounds is None:
                np.add.at(scores, hit, weight)
                continue
            # A term's postings are in row order: each run is one slice.
            cuts = np.searchsorted(hit, bounds).tolist()
            for start, end in zip(cuts[::2], cuts[1::2], strict=True):
                np.add.at(scores, hit[start:end], weight[start:end])
        return scores


def _runs(project: np.ndarray) -> dict[int, Runs]:
    """Each project code's row ranges (one each when rows are in project order)."""
    runs: dict[int, Runs] = {}
    if not len(project):
        return runs
    starts = np.flatnonzero(np.diff(project, prepend=-1))
    ends = [*starts[1:].tolist(), len(project)]
    for start, end in zip(starts.tolist(), ends, strict=True):
        runs.setdefault(int(project[start]), []).append((start, end))
    return runs


def _scope_key(prefilter: Prefilter) -> Hashable:
    clauses = frozenset(
        (frozenset(c.projects), None if c.types is None else frozenset(c.types))
        for c in prefilter.clauses
    )
    return clauses, prefilter.automatic, prefilter.today


def _flags(batch: pa.RecordBatch) -> tuple[np.ndarray, np.ndarray]:
    """(active, expiry day) of each row; an open expiry is the largest day."""
    active = ~(
        batch.column("superseded").to_numpy(zero_copy_only=False)
        | batch.column("archived").to_numpy(zero_copy_only=False)
    )
    expires = pc.fill_null(batch.column("expires").cast(pa.int32()), _NEVER)
    return active, expires.to_numpy(zero_copy_only=False).astype(np.int32)


def _quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """int8 with a per-row scale (max absolute value / 127), and the sign bits."""
    scales = np.maximum(np.abs(vectors).max(axis=1, initial=0.0), 1e-12) / 127.0
    scales = scales.astype(np.float32)
    return np.round(vectors / scales[:, None]).astype(np.int8), scales, _sign_codes(vectors)


def _numpy(table: pa.Table, name: str) -> np.ndarray:
    """A column as numpy, without a copy where Arrow's layout allows (all but booleans);
    a fixed-size list column comes as a (rows, width) array."""
    column = table[name]
    array = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if pa.types.is_fixed_size_list(array.type):
        width = array.type.list_size
        return array.flatten().to_numpy(zero_copy_only=False).reshape(len(array), width)
    return array.to_numpy(zero_copy_only=False)


def _words(rows: pa.Table) -> int:
    return sum(name.startswith("code_") for name in rows.column_names)


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _sign_codes(vectors: np.ndarray) -> np.ndarray:
    """Each row's sign bits packed into uint64 words (zero-padded to a whole word)."""
    width = -(-vectors.shape[1] // 64) * 64
    bits = np.zeros((vectors.shape[0], width), dtype=bool)
    bits[:, : vectors.shape[1]] = vectors > 0
    return np.packbits(bits, axis=1).view(np.uint64)


def _query_code(vector: np.ndarray) -> np.ndarray:
    return _sign_codes(vector[None, :])[0]


def _hamming(codes: list[np.ndarray], query: np.ndarray) -> np.ndarray:
    """Bits differing from ``query`` per row, given the codes a column per 64-bit word.

    Column by column, each XOR and popcount runs over one contiguous array. Three words
    differ in at most 192 bits, so their counts add up in bytes and only every third sum
    widens to uint16. Blocks of ``HAMMING_BLOCK`` rows and reused buffers bound the
    temporaries.
    """
    rows = len(codes[0]) if codes else 0
    distance = np.zeros(rows, dtype=np.uint16)
    xor = np.empty(min(rows, HAMMING_BLOCK), dtype=np.uint64)
    bits = np.empty(len(xor), dtype=np.uint8)
    more = np.empty(len(xor), dtype=np.uint8)
    for start in range(0, rows, HAMMING_BLOCK):
        n = min(HAMMING_BLOCK, rows - start)
        for first in range(0, len(codes), 3):
            for word in range(first, min(first + 3, len(codes))):
                np.bitwise_xor(codes[word][start : start + n], query[word], out=xor[:n])
                np.bitwise_count(xor[:n], out=more[:n] if word > first else bits[:n])
                if word > first:
                    bits[:n] += more[:n]
            distance[start : start + n] += bits[:n]
    return distance


def _codes(column: pa.ChunkedArray) -> tuple[dict[str, int], np.ndarray]:
    """A string column as small integer codes, and the code of each value."""
    encoded = column.dictionary_encode().combine_chunks()
    dictionary = encoded.dictionary
    indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    return {value: n for n, value in enumerate(dictionary.to_pylist())}, indices


def _nearest(distance: np.ndarray, count: int) -> np.ndarray:
    """Positions within the smallest distance that covers ``count`` of them (ties kept,
    up to twice ``count``). A histogram over the few possible distances, not a partial
    sort."""
    covered = np.cumsum(np.bincount(distance))
    limit = int(np.searchsorted(covered, count))
    near = np.flatnonzero(distance <= limit)
    if near.size > 2 * count:
        near = near[np.argpartition(distance[near], count - 1)[:count]]
    return near


def _best(scores: np.ndarray, depth: int) -> Ranked:
    """The ``depth`` rows of highest positive score, best first, ties broken by row.

    A query's common terms give a large share of the rows some score, and ranking them
    all would dominate the leg. Every ``BAR_STRIDE``-th row is a sample whose top few
    set a bar about twice ``depth`` rows reach; when at least ``depth`` do, the best
    ``depth`` are all among them, so the answer is exact. Otherwise every positive row
    is ranked.
    """
    sample = scores[::BAR_STRIDE]
    sample = sample[sample > 0.0]  # numpy's partition crawls through many equal zeros
    need = -(-2 * depth // BAR_STRIDE)
    if len(sample) > need:
        bar = np.partition(sample, len(sample) - need)[len(sample) - need]
        rows = np.flatnonzero(scores >= bar)
        if rows.size >= depth:
            return _top_of(rows, scores[rows], depth)
    rows = np.flatnonzero(scores > 0.0)
    return _top_of(rows, scores[rows], depth)


def _top_of(rows: np.ndarray, scores: np.ndarray, depth: int) -> Ranked:
    """The ``depth`` best of ``rows`` given the score of each, best first; rows tied at
    the cut are taken in row order, so an answer never depends on a sort's whims."""
    if rows.size == 0 or depth <= 0:
        return []
    if rows.size > depth:
        cut = np.partition(scores, rows.size - depth)[rows.size - depth]
        keep = scores >= cut
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:depth]
    return [(int(rows[i]), float(scores[i])) for i in order]
