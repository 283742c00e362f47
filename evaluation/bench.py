"""``python -m evaluation.bench`` (``make bench``): speed of the shipped index code.

Each section is one function taking the shared ``Bench`` context and returning a
JSON-able dict; ``SECTIONS`` lists them in order, so a new section (recall over HTTP,
throughput, 100k cards) is one function plus one line. Results print as rich tables and
land in ``bench-results/<section>.json``.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from dose_mem.settings import get_settings
from evaluation.synthetic import synthetic_queries, write_synthetic_memory
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause

RESULTS = Path("bench-results")
LATENCY_QUERIES = 200


@dataclass
class Bench:
    """What sections share: the embedder, a scratch dir, and indexes built so far."""

    embedder: Embedder
    workdir: Path
    indexes: dict[int, Path] = field(default_factory=dict)

    def index_of(self, cards: int) -> Path:
        """The index over ``cards`` synthetic cards, built once and reused by later sections."""
        if cards not in self.indexes:
            memory = self.workdir / f"memory-{cards}"
            write_synthetic_memory(memory, cards)
            rebuild(memory, self.workdir / f"index-{cards}", self.embedder)
            self.indexes[cards] = self.workdir / f"index-{cards}"
        return self.indexes[cards]


def build_time(bench: Bench) -> dict[str, Any]:
    """Full index build (parse, layers, tokenise, embed, write, FTS) at 1k and 10k cards."""
    out: dict[str, Any] = {}
    for cards in (1_000, 10_000):
        memory = bench.workdir / f"memory-{cards}"
        write_synthetic_memory(memory, cards)
        started = time.perf_counter()
        report = rebuild(memory, bench.workdir / f"index-{cards}", bench.embedder)
        seconds = time.perf_counter() - started
        bench.indexes[cards] = bench.workdir / f"index-{cards}"
        out[f"{cards} cards"] = {
            "chunks": report.chunks_total, "seconds": round(seconds, 1),
            "chunks_per_s": round(report.chunks_total / seconds, 1),
        }
    return out


def query_latency(bench: Bench) -> dict[str, Any]:
    """p50/p99 of ``Index.search`` at 10k cards, scoped to a few projects plus global.

    Every mode gets its own distinct prompts, so the query-embedding cache never hits:
    this is the cold cost of a new prompt.
    """
    index = Index.open(bench.index_of(10_000), bench.embedder)
    scope = Prefilter(clauses=[ScopeClause(projects=["p001", "p002", "p003", "global"])])
    out: dict[str, Any] = {}
    for seed, mode in enumerate(("dense", "bm25", "hybrid"), 1):
        index.search("warm the table caches", scope, 10, mode)
        prompts = synthetic_queries(LATENCY_QUERIES, seed=seed)
        times = []
        for prompt in prompts:
            started = time.perf_counter()
            index.search(prompt, scope, 10, mode)
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        out[mode] = {
            "p50_ms": round(statistics.median(times), 1),
            "p99_ms": round(times[max(0, int(len(times) * 0.99) - 1)], 1),
            "queries": len(times),
        }
    return out


SECTIONS: list[Callable[[Bench], dict[str, Any]]] = [build_time, query_latency]


def _table(name: str, result: dict[str, Any]) -> Table:
    columns = sorted({k for row in result.values() for k in row})
    table = Table("", *columns, title=name.replace("_", " "))
    for label, row in result.items():
        table.add_row(label, *(str(row.get(c, "")) for c in columns))
    return table


def main() -> None:
    console = Console()
    RESULTS.mkdir(exist_ok=True)
    embedder = make_embedder(get_settings())
    console.print(f"embedder: {embedder.name} ({embedder.dim}d)")
    with tempfile.TemporaryDirectory(prefix="dose-bench-") as tmp:
        bench = Bench(embedder=embedder, workdir=Path(tmp))
        for section in SECTIONS:
            result = section(bench)
            (RESULTS / f"{section.__name__}.json").write_text(
                json.dumps({"embedder": embedder.name, **result}, indent=1), encoding="utf-8"
            )
            console.print(_table(section.__name__, result))


if __name__ == "__main__":
    main()
