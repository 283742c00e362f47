"""Test helpers: index rows read back for comparison, and a real embeddings server."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

from memory_repo.index.meta import read_meta
from memory_repo.index.scope import Prefilter
from memory_repo.index.tokenize import tokens


def table_rows(index_dir: Path) -> list[dict[str, Any]]:
    meta = read_meta(index_dir)
    assert meta is not None
    table = lancedb.connect(index_dir).open_table(meta.table)
    table.checkout(meta.version)
    rows = table.to_arrow().to_pylist()
    return sorted(rows, key=lambda r: (r["item_id"], r["chunk_no"]))


def admits_row(row: dict[str, Any], prefilter: Prefilter) -> bool:
    """The prefilter's reference rule (``Prefilter.admits``) on one index row."""
    return prefilter.admits(
        row["project"],
        row["type"],
        superseded=row["superseded"],
        archived=row["archived"],
        expires=row["expires"],
    )


class EmbeddingsServer:
    """POST /v1/embeddings on 127.0.0.1: a hashed bag of words per input (unnormalised, and
    answered in reverse order, as the protocol allows), recording every request."""

    dim = 32

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), **body}
                )
                if self.path != "/v1/embeddings":
                    self.send_error(404)
                    return
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [
                    {"object": "embedding", "index": i, "embedding": _bag(text, owner.dim)}
                    for i, text in reversed(list(enumerate(inputs)))
                ]
                payload = json.dumps(
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> EmbeddingsServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _bag(text: str, dim: int) -> list[float]:
    vector = np.full(dim, 0.01)
    for word in tokens(text):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    return (vector * 3.0).tolist()
