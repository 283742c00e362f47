"""Measure the BM25 candidates the index could use, on the same pre-tokenised text.

LanceDB's own full-text index (whitespace tokenizer over the ``tokens`` column), a
separate tantivy index, and the postings the service's in-RAM snapshot builds from the
table (``memory_repo/index/snapshot.py``). Compared on LoCoMo BM25 recall, query latency
with the scope prefilter applied inside the query, and the cost of taking in 20 new cards
(for the snapshot: loading the whole table version again, which is what the service does).
The numbers and the choice are in docs/index.md; run ``python -m evaluation.surveys.bm25_backends``.
"""

from __future__ import annotations

import datetime as dt
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
import tantivy
from lancedb.index import FTS
from lancedb.query import MatchQuery

from evaluation.bench.synthetic import synthetic_queries, write_synthetic_memory
from evaluation.sets.locomo import KS, card_id, load_conversation, write_memory
from evaluation.surveys.leg_compare import agreement_summary, interleaved
from memory_repo.index.rows import item_rows
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.snapshot import BM25Params, Snapshot
from memory_repo.index.terms import bm25_terms
from memory_repo.lifecycle import superseded_ids
from memory_repo.store import load_memory

_FIELDS = [
    "item_id",
    "project",
    "type",
    "path",
    "l0",
    "l1",
    "heading",
    "text",
    "superseded",
    "archived",
    "expires",
    "tokens",
]
_NEVER = dt.date(2262, 1, 1)


def _rows(root: Path) -> list[dict[str, Any]]:
    memory = load_memory(root)
    items = list(memory.items.values())
    return [
        {f: r[f] for f in _FIELDS} for r in item_rows(items, memory.registry, superseded_ids(items))
    ]


class LanceBM25:
    def __init__(self, folder: Path, rows: list[dict[str, Any]]) -> None:
        self.table = lancedb.connect(folder).create_table("t", data=pa.Table.from_pylist(rows))
        # Our tokeniser already segmented ``tokens``: LanceDB must only split on spaces.
        self.table.create_index(
            "tokens",
            config=FTS(
                base_tokenizer="whitespace",
                lower_case=False,
                stem=False,
                remove_stop_words=False,
                ascii_folding=False,
                max_token_length=None,
                with_position=False,
            ),
        )

    def search(self, query: str, where: str, n: int) -> list[str]:
        return [
            r["item_id"]
            for r in (
                self.table.search(MatchQuery(bm25_terms(query), "tokens"), query_type="fts")
                .where(where, prefilter=True)
                .select(["item_id", "_score"])
                .limit(n)
                .to_list()
            )
        ]

    def add(self, rows: list[dict[str, Any]]) -> None:
        self.table.add(pa.Table.from_pylist(rows, schema=self.table.schema))
        self.table.optimize()


class TantivyBM25:
    def __init__(self, folder: Path, rows: list[dict[str, Any]]) -> None:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("item_id", stored=True, tokenizer_name="raw")
        builder.add_text_field("project", tokenizer_name="raw")
        builder.add_boolean_field("superseded", indexed=True)
        builder.add_boolean_field("archived", indexed=True)
        builder.add_date_field("expires", indexed=True, fast=True)
        builder.add_text_field("tokens", tokenizer_name="whitespace", index_option="freq")
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema, path=str(folder))
        self.add(rows)

    def add(self, rows: list[dict[str, Any]]) -> None:
        writer = self.index.writer(heap_size=50_000_000, num_threads=1)
        for r in rows:
            expires = r["expires"] or _NEVER
            writer.add_document(
                tantivy.Document(
                    item_id=r["item_id"],
                    project=r["project"],
                    superseded=r["superseded"],
                    archived=r["archived"],
                    tokens=r["tokens"],
                    expires=dt.datetime(expires.year, expires.month, expires.day),
                )
            )
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()

    def search(self, query: str, projects: list[str], today: dt.date, n: int) -> list[str]:
        return [item for item, _ in self.scored(query, projects, today, n)]

    def scored(
        self, query: str, projects: list[str], today: dt.date, n: int
    ) -> list[tuple[str, float]]:
        """(item id, score) of the top ``n`` chunks, the scope and lifecycle inside the
        query (a constant-score filter clause)."""
        terms = bm25_terms(query).split()
        if not terms:
            return []
        text = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "tokens", t))
                for t in terms
            ]
        )
        day = dt.datetime(today.year, today.month, today.day)
        filters = tantivy.Query.boolean_query(
            [
                (
                    tantivy.Occur.Must,
                    tantivy.Query.term_set_query(self.schema, "project", projects),
                ),
                (tantivy.Occur.MustNot, tantivy.Query.term_query(self.schema, "superseded", True)),
                (tantivy.Occur.MustNot, tantivy.Query.term_query(self.schema, "archived", True)),
                (
                    tantivy.Occur.Must,
                    tantivy.Query.range_query(
                        self.schema,
                        "expires",
                        tantivy.FieldType.Date,
                        day,
                        dt.datetime(2262, 1, 1),
                        include_lower=False,
                        include_upper=True,
                    ),
                ),
            ]
        )
        both = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, text),
                (tantivy.Occur.Must, tantivy.Query.const_score_query(filters, 0.0)),
            ]
        )
        searcher = self.index.searcher()
        return [
            (searcher.doc(addr)["item_id"][0], score)
            for score, addr in searcher.search(both, n).hits
        ]


class SnapshotBM25:
    """The service's own BM25 leg: Okapi BM25 over the table's terms, scope as a mask."""

    def __init__(self, rows: list[dict[str, Any]], params: BM25Params | None = None) -> None:
        self.rows, self.params = list(rows), params
        self.add([])

    def add(self, rows: list[dict[str, Any]]) -> None:
        self.rows += rows
        table = pa.Table.from_pylist([{**r, "vector": [0.0]} for r in self.rows])
        table = table.set_column(
            table.schema.get_field_index("vector"),
            "vector",
            table["vector"].cast(pa.list_(pa.float32(), 1)),
        )
        self.snapshot = Snapshot.from_batches(table.to_reader(), 1, self.params)

    def search(self, query: str, prefilter: Prefilter, n: int) -> list[str]:
        return [item for item, _ in self.scored(query, prefilter, n)]

    def scored(self, query: str, prefilter: Prefilter, n: int) -> list[tuple[str, float]]:
        """(item id, score) of the top ``n`` chunks, as the service's leg reads them: the
        cached scope mask, and only the scope's row ranges when it is narrow."""
        snapshot = self.snapshot
        mask = snapshot.mask(prefilter)
        hits = snapshot.bm25(bm25_terms(query).split(), mask, n, snapshot.runs(prefilter))
        ids = snapshot.ids_of([row for row, _ in hits])
        return [(item, score) for item, (_, score) in zip(ids, hits, strict=True)]


def locomo_recall(files: list[Path]) -> dict[str, float]:
    """BM25-only recall@10 for each backend over the same turns."""
    hits: dict[str, list[float]] = {"lancedb": [], "tantivy": [], "snapshot": []}
    today = dt.date(2026, 1, 1)
    prefilter = Prefilter(clauses=[ScopeClause(projects=["global"])], today=today)
    where = prefilter.where()
    for path in files:
        conversation = load_conversation(path)
        with tempfile.TemporaryDirectory() as tmp:
            write_memory(Path(tmp) / "m", conversation)
            rows = _rows(Path(tmp) / "m")
            lance = LanceBM25(Path(tmp) / "l", rows)
            (Path(tmp) / "t").mkdir()
            tan = TantivyBM25(Path(tmp) / "t", rows)
            ram = SnapshotBM25(rows)
            for q in conversation.questions:
                wanted = {card_id(e) for e in q.evidence}
                for name, found in (
                    ("lancedb", lance.search(q.question, where, max(KS))),
                    ("tantivy", tan.search(q.question, ["global"], today, max(KS))),
                    ("snapshot", ram.search(q.question, prefilter, max(KS))),
                ):
                    hits[name].append(len(wanted & set(found)) / len(wanted))
    return {name: round(statistics.fmean(v), 4) for name, v in hits.items()}


def latency_and_update(cards: int = 5000, queries: int = 200) -> dict[str, dict[str, float]]:
    """p50/p99 query ms with the prefilter inside the query, and seconds to add 20 cards."""
    out: dict[str, dict[str, float]] = {}
    today = dt.date(2026, 6, 1)
    projects = ["p001", "p002", "p003", "global"]
    prefilter = Prefilter(clauses=[ScopeClause(projects=projects)], today=today)
    where = prefilter.where()
    prompts = synthetic_queries(queries)
    with tempfile.TemporaryDirectory() as tmp:
        write_synthetic_memory(Path(tmp) / "m", cards)
        rows = _rows(Path(tmp) / "m")
        write_synthetic_memory(Path(tmp) / "extra", 20, seed=99)
        extra = _rows(Path(tmp) / "extra")
        (Path(tmp) / "t").mkdir()
        backends = {
            "lancedb": (LanceBM25(Path(tmp) / "l", rows), lambda b, q: b.search(q, where, 50)),
            "tantivy": (
                TantivyBM25(Path(tmp) / "t", rows),
                lambda b, q: b.search(q, projects, today, 50),
            ),
            "snapshot": (SnapshotBM25(rows), lambda b, q: b.search(q, prefilter, 50)),
        }
        for name, (backend, run) in backends.items():
            times = []
            for q in prompts:
                start = time.perf_counter()
                run(backend, q)
                times.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            backend.add(extra)
            update = time.perf_counter() - start
            times.sort()
            out[name] = {
                "chunks": len(rows),
                "p50_ms": round(times[len(times) // 2], 2),
                "p99_ms": round(times[int(len(times) * 0.99) - 1], 2),
                "add_20_cards_s": round(update, 3),
            }
    return out


def leg_comparison(
    cards: int = 10_000, queries: int = 300, rounds: int = 5, k: int = 10, wide: bool = False
) -> dict[str, Any]:
    """The snapshot's BM25 leg against tantivy on one synthetic memory, scope (3 projects
    and global, or with ``wide`` every project) and lifecycle inside each query, the two
    interleaved query by query in every round (order alternating between rounds) so that
    load from other processes falls on both alike. Per round each backend's p50 and p99
    in ms; the medians over rounds; and the top-``k`` agreement over all queries."""
    today = dt.date(2026, 6, 1)
    prompts = synthetic_queries(queries)
    with tempfile.TemporaryDirectory() as tmp:
        registry = write_synthetic_memory(Path(tmp) / "m", cards)
        projects = sorted(registry.ids) if wide else ["p001", "p002", "p003"]
        projects = [*projects, "global"]
        prefilter = Prefilter(clauses=[ScopeClause(projects=projects)], today=today)
        rows = _rows(Path(tmp) / "m")
        (Path(tmp) / "t").mkdir()
        ram, tan = SnapshotBM25(rows), TantivyBM25(Path(tmp) / "t", rows)
        runners = {
            "snapshot": lambda q: ram.scored(q, prefilter, k),
            "tantivy": lambda q: tan.scored(q, projects, today, k),
        }
        for run in runners.values():  # warm: jieba, the cached mask, tantivy's searcher
            run(prompts[0])
            timings = interleaved(runners, prompts, rounds)
        pairs = [(runners["snapshot"](q), runners["tantivy"](q)) for q in prompts]

    return {
        "cards": cards,
        "scope_projects": len(projects),
        "chunks": len(rows),
        "queries": queries,
        "rounds": rounds,
        **timings,
        **agreement_summary(pairs, k),
    }


if __name__ == "__main__":
    import json

    locomo = sorted(
        (Path(__file__).resolve().parents[3] / "shared/benchmarks/locomo").glob("conv-*.json")
    )
    print(
        json.dumps(
            {
                "locomo_bm25_recall@10": locomo_recall(locomo),
                "latency_10k_chunks": latency_and_update(),
                "legs_10k_cards_interleaved": leg_comparison(),
                "legs_10k_cards_interleaved_wide": leg_comparison(wide=True),
            },
            indent=1,
        )
    )
