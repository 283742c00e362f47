"""The small JSON beside the index table: which embedder built it, which table version a
reader should load, from which commit, and which file map (``file_map.py``) describes it.

It is written atomically (temp file + rename) *after* the table commits it describes, and
readers watch its stat to notice a finished reindex. Because it names the table version,
a reader loads exactly what the last finished build or refresh committed, never a later
refresh's half (a refresh commits its deletions, additions and flag updates as separate
versions).
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ValidationError

META_FILE = "meta.json"
# 2: the per-file map moved out of this file into an Arrow file, and the version is named.
# 3: terms fold traditional characters, keep flags whole, drop Chinese filler words.
# 4: no ``key`` column (nothing read it); an older table could not take the new rows.
FORMAT = 4


class IndexMeta(BaseModel):
    embedder: str
    dim: int
    table: str
    version: int
    files: str
    commit: str | None = None
    registry_hash: str = ""
    format: int = FORMAT


def meta_path(index_dir: Path) -> Path:
    return Path(index_dir) / META_FILE


def read_meta(index_dir: Path) -> IndexMeta | None:
    """None when there is no meta, or one from an older format (the index is rebuilt)."""
    path = meta_path(index_dir)
    if not path.exists():
        return None
    try:
        meta = IndexMeta.model_validate_json(path.read_bytes())
    except ValidationError:
        return None
    return meta if meta.format == FORMAT else None


def write_meta(index_dir: Path, meta: IndexMeta) -> None:
    path = meta_path(index_dir)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(meta.model_dump_json(indent=1), encoding="utf-8")
    os.replace(tmp, path)


def meta_stamp(index_dir: Path) -> tuple[int, int] | None:
    """A cheap change marker: (mtime_ns, inode) of the meta file, None when absent."""
    try:
        st = meta_path(index_dir).stat()
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_ino)
