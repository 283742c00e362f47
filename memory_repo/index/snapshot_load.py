"""Reading one index version into a ``Snapshot``: in this process, or in a child process
that hands the finished snapshot over as Arrow files.

Why a child: a long-running service that loads in-process keeps what the load needed
after it is done: the ``lancedb`` import for the process's life, and freed-but-held heap
from the load's scratch memory (batches, quantisation, the postings' sort). A child pays
both and exits; the service receives only the snapshot's own tables and never imports
lancedb. The price is a Python start and the Arrow files' I/O per load, so tools that
open an index once (CLI, evaluation, bench legs) load inline. The sizes are in
docs/index.md.

Run as ``python -m memory_repo.index.snapshot_load INDEX_DIR OUT_DIR REQUEST_JSON``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Literal

import pyarrow as pa
from pydantic import BaseModel

from memory_repo.errors import DoseMemError
from memory_repo.index.meta import IndexMeta
from memory_repo.index.snapshot import DISPLAY, BM25Params, Parts, Snapshot

Loader = Literal["inline", "subprocess"]
COLUMNS = [*DISPLAY, "superseded", "archived", "expires", "tokens", "vector"]
LOAD_BATCH = 8192


class LoadRequest(BaseModel):
    """What the child needs to read exactly the version the parent checked."""

    table: str
    version: int
    dim: int
    bm25: BM25Params

    @classmethod
    def of(cls, meta: IndexMeta, bm25: BM25Params) -> LoadRequest:
        return cls(table=meta.table, version=meta.version, dim=meta.dim, bm25=bm25)


class SnapshotLoadFailed(DoseMemError):
    """The loader process exited without a snapshot."""


def load_inline(index_dir: Path, request: LoadRequest) -> Snapshot:
    # Imported here, not at the top: a service loading in a child never needs it.
    import lancedb

    table = lancedb.connect(index_dir).open_table(request.table)
    table.checkout(request.version)
    batches = table.search().select(COLUMNS).limit(None).to_batches(LOAD_BATCH)
    return Snapshot.from_batches(batches, request.dim, request.bm25)


def load_in_subprocess(index_dir: Path, request: LoadRequest) -> Snapshot:
    with tempfile.TemporaryDirectory(prefix="dose-mem-snapshot-") as out:
        done = subprocess.run(
            [sys.executable, "-m", __name__, str(index_dir), out, request.model_dump_json()],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SnapshotLoadFailed(
                f"loading {index_dir} version {request.version} failed "
                f"(exit {done.returncode}): {done.stderr.strip()[-2000:]}"
            )
        return Snapshot(read_parts(Path(out)))


def load(index_dir: Path, meta: IndexMeta, bm25: BM25Params, loader: Loader) -> Snapshot:
    request = LoadRequest.of(meta, bm25)
    if loader == "subprocess":
        return load_in_subprocess(index_dir, request)
    return load_inline(index_dir, request)


def write_parts(parts: Parts, directory: Path) -> None:
    for name, table in parts.named().items():
        with (
            pa.OSFile(str(directory / f"{name}.arrow"), "wb") as sink,
            pa.ipc.new_file(sink, table.schema) as writer,
        ):
            writer.write_table(table, max_chunksize=max(table.num_rows, 1))


def read_parts(directory: Path) -> Parts:
    """Read into memory, not mapped: the files are deleted as soon as this returns."""
    tables = {}
    for field in fields(Parts):
        with pa.OSFile(str(directory / f"{field.name}.arrow")) as source:
            tables[field.name] = pa.ipc.open_file(source).read_all()
    return Parts(**tables)


def main(argv: list[str]) -> None:
    index_dir, out, request_json = argv
    request = LoadRequest.model_validate_json(request_json)
    write_parts(load_inline(Path(index_dir), request).parts, Path(out))


if __name__ == "__main__":
    main(sys.argv[1:])
