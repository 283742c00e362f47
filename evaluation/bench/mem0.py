"""mem0 in the same run, as a ratio: its own local search (qdrant on disk, ``infer=False``).

mem0 lives in a scratch venv of its own (``BENCH_MEM0_VENV``, default ``.tools/mem0-venv``,
created with uv when missing) so its dependencies never touch the project's. It has no
offline embedder without torch, so the bench lends it ours: an OpenAI-compatible
``/v1/embeddings`` endpoint on loopback serving the same local model. mem0 therefore pays
one loopback HTTP call per query that dose-mem does not; the table says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from memory_repo.index.embedders import Embedder
from memory_repo.layers import l0
from memory_repo.store import load_memory

MEM0_VERSION = "2.2.1"  # pinned, as the project pins its own dependencies
WORKER = Path(__file__).with_name("mem0_worker.py")


class Mem0Unavailable(Exception):
    """mem0 could not be installed or run here; the message is the reason printed."""


def venv_python() -> Path:
    """The scratch venv's interpreter, creating the venv with uv if it is missing."""
    venv = Path(os.environ.get("BENCH_MEM0_VENV", ".tools/mem0-venv")).resolve()
    python = venv / "bin" / "python"
    if python.exists():
        return python
    uv = shutil.which("uv") or str(Path(".tools/uv/bin/uv").resolve())
    if not Path(uv).exists():
        raise Mem0Unavailable("uv not found to create its scratch venv")
    try:
        subprocess.run([uv, "venv", "-q", str(venv)], check=True, capture_output=True, timeout=300)
        subprocess.run(
            [uv, "pip", "install", "-q", "--python", str(python), f"mem0ai=={MEM0_VERSION}"],
            check=True,
            capture_output=True,
            timeout=600,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(venv, ignore_errors=True)
        raise Mem0Unavailable(f"could not install mem0ai into {venv}: {exc}") from exc
    return python


@contextmanager
def embedding_endpoint(embedder: Embedder) -> Iterator[str]:
    """``POST /v1/embeddings`` on a free loopback port, answering with ``embedder``."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
            with lock:
                vectors = embedder.embed([str(t) for t in texts])
            body = json.dumps(
                {
                    "object": "list",
                    "model": request.get("model", ""),
                    "data": [
                        {"object": "embedding", "index": i, "embedding": v.tolist()}
                        for i, v in enumerate(vectors)
                    ],
                    "usage": {"prompt_tokens": 0, "total_tokens": 0},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def run_mem0(
    memory_root: Path, prompts: list[str], embedder: Embedder, workdir: Path
) -> dict[str, object]:
    """Every card's L0 and body as one mem0 memory; the same prompts searched, top 10."""
    python = venv_python()
    workdir.mkdir(parents=True, exist_ok=True)
    cards, queries = workdir / "cards.jsonl", workdir / "queries.json"
    with cards.open("w", encoding="utf-8") as out:
        for item in load_memory(memory_root).items.values():
            text = f"{l0(item)}\n{item.body}".strip()
            out.write(
                json.dumps({"text": text, "project": item.project}, ensure_ascii=False) + "\n"
            )
    queries.write_text(json.dumps(prompts, ensure_ascii=False), encoding="utf-8")
    with embedding_endpoint(embedder) as url:
        done = subprocess.run(
            [
                str(python),
                str(WORKER),
                str(cards),
                str(queries),
                str(workdir / "mem0"),
                url,
                str(embedder.dim),
            ],
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
    if done.returncode != 0:
        raise Mem0Unavailable(f"mem0 worker failed: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
