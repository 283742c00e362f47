"""The bilingual retrieval set: does a prompt find its card across Chinese and English?

``tests/data/bilingual_queries.jsonl`` holds hand-labelled queries over the demo memory
(``dose-mem init --demo``), each tagged with its language pair (``zh->en``: a Chinese
prompt whose card is English; ``mixed``: a Chinese sentence with English identifiers;
``en->en`` and ``zh->zh`` are same-language controls). A query scores a hit when one of
its expected cards is among the first ``k`` items (hit@5; hit@1 when it is first) of
``Index.search`` in its project's scope (the project and global memory; every project
when it names none). Labels were written from the card texts before any tuning. The dev
half (odd ids: bq001, bq003 ...) was the only half looked at while tuning the gate; the
even ids are held out (docs/read-path.md, "The gate across languages").
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel

from memory_repo.demo import DEMO_PROJECTS, build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder
from memory_repo.index.query import Index, Mode
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.models import GLOBAL

QUERIES = Path(__file__).resolve().parents[2] / "tests" / "data" / "bilingual_queries.jsonl"
MODES: tuple[Mode, ...] = ("dense", "bm25", "hybrid")
K = 5


class Query(BaseModel):
    id: str
    query: str
    pair: str
    project: str | None = None
    expected: list[str]
    note: str = ""


class PairResult(BaseModel):
    pair: str
    queries: int
    hits: dict[str, int]

    def rate(self, mode: str) -> float:
        return self.hits[mode] / self.queries if self.queries else 0.0


def load_queries(path: Path = QUERIES) -> list[Query]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Query.model_validate_json(line) for line in lines if line.strip()]


def scope_for(query: Query, today: dt.date) -> Prefilter:
    projects = [GLOBAL, query.project] if query.project else [GLOBAL, *DEMO_PROJECTS]
    return Prefilter(clauses=[ScopeClause(projects=projects)], today=today)


def evaluate(
    embedder: Embedder, queries: list[Query] | None = None, k: int = K
) -> dict[str, PairResult]:
    """Hits at ``k`` per language pair and mode, over a fresh demo memory and index."""
    queries = queries if queries is not None else load_queries()
    today = dt.date.today()
    counts: dict[str, int] = defaultdict(int)
    hits: dict[str, dict[str, int]] = defaultdict(
        lambda: dict.fromkeys([*MODES, *(f"{m}@1" for m in MODES)], 0)
    )
    with tempfile.TemporaryDirectory(prefix="bilingual-") as tmp:
        root, index_dir = Path(tmp) / "memory", Path(tmp) / "index"
        build_demo(root, today)
        rebuild(root, index_dir, embedder)
        index = Index.open(index_dir, embedder)
        for query in queries:
            counts[query.pair] += 1
            for mode in MODES:
                found = [
                    h.item_id for h in index.search(query.query, scope_for(query, today), k, mode)
                ]
                hits[query.pair][mode] += bool(set(query.expected) & set(found))
                hits[query.pair][f"{mode}@1"] += bool(set(query.expected) & set(found[:1]))
    return {
        pair: PairResult(pair=pair, queries=counts[pair], hits=hits[pair])
        for pair in sorted(counts)
    }


def as_json(results: dict[str, PairResult]) -> dict[str, object]:
    return {
        pair: {
            "queries": r.queries,
            **{f"{m}_hit@{K}": round(r.rate(m), 3) for m in MODES},
            **{f"{m}_hit@1": round(r.rate(f"{m}@1"), 3) for m in MODES},
        }
        for pair, r in results.items()
    }


def main() -> None:
    """``python -m evaluation.sets.bilingual [EMBEDDER ...]``: one JSON object per embedder."""
    import sys

    from memory_repo.index.embedders import make_embedder
    from memory_repo.settings import Settings

    for kind in sys.argv[1:] or ["local"]:
        embedder = make_embedder(Settings(embedder=kind))
        print(json.dumps({"embedder": embedder.name, "pairs": as_json(evaluate(embedder))}))


if __name__ == "__main__":
    main()
