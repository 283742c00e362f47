"""Run by the mem0 scratch venv's Python (not the project's): mem0's own local search over
the bench's cards, embedded by the bench's embedding endpoint, timed the same way.

Usage: ``python mem0_worker.py CARDS.jsonl QUERIES.json WORKDIR EMBED_URL DIM`` prints one JSON
object. Only the standard library and ``mem0`` are imported, so the project's
dependencies never meet mem0's.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path


def main(cards: Path, queries: Path, workdir: Path, url: str, dim: int) -> dict[str, object]:
    os.environ["MEM0_TELEMETRY"] = "False"
    from mem0 import Memory

    memory = Memory.from_config(
        {
            "embedder": {
                "provider": "openai",
                "config": {
                    "model": "bench-local",
                    "openai_base_url": url,
                    "api_key": "offline",
                    "embedding_dims": dim,
                },
            },
            "llm": {
                "provider": "openai",
                "config": {"model": "unused", "openai_base_url": url, "api_key": "offline"},
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "bench",
                    "path": str(workdir / "qdrant"),
                    "embedding_model_dims": dim,
                    "on_disk": True,
                },
            },
            "history_db_path": str(workdir / "history.db"),
        }
    )
    started = time.perf_counter()
    count = 0
    for line in cards.read_text("utf-8").splitlines():
        card = json.loads(line)
        memory.add(
            card["text"], user_id="bench", metadata={"project": card["project"]}, infer=False
        )
        count += 1
    add_s = time.perf_counter() - started
    times = []
    for prompt in json.loads(queries.read_text("utf-8")):
        started = time.perf_counter()
        memory.search(prompt, top_k=10, filters={"user_id": "bench"})
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "cards": count,
        "add_seconds": round(add_s, 1),
        "p50_ms": round(statistics.median(times), 1),
        "p99_ms": round(times[max(0, round(len(times) * 0.99) - 1)], 1),
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(main(Path(args[0]), Path(args[1]), Path(args[2]), args[3], int(args[4]))))
