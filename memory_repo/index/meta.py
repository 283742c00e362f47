"""The small JSON beside the index table: which embedder built it, from which commit, and
what each file held, so a refresh knows what changed without reading the table.

It is written atomically (temp file + rename) *after* the table commit it describes, and
readers watch its stat to notice a finished reindex.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

META_FILE = "meta.json"


@dataclass(slots=True)
class FileEntry:
    """One source file: its content hash and, per item id, the ids that item supersedes.

    A plain dataclass, not a model: a 100k-card meta holds 100k of them, and building
    pydantic models for each cost more than parsing the file.
    """

    hash: str
    items: dict[str, list[str]] = field(default_factory=dict)


class IndexMeta(BaseModel):
    embedder: str
    dim: int
    table: str
    commit: str | None = None
    registry_hash: str = ""
    files: dict[str, FileEntry] = Field(default_factory=dict)

    def superseded(self) -> set[str]:
        return {
            old
            for entry in self.files.values()
            for item_id, olds in entry.items.items()
            for old in olds
            if old != item_id
        }


def meta_path(index_dir: Path) -> Path:
    return Path(index_dir) / META_FILE


def read_meta(index_dir: Path) -> IndexMeta | None:
    """The header is validated; the per-file map, which only ``write_meta`` writes, is
    taken as written: validating 100k entries cost ~0.5 s of every refresh and reload
    at 100k cards, more than twice what parsing them costs."""
    path = meta_path(index_dir)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    files = data.pop("files", {})
    meta = IndexMeta.model_validate(data)
    meta.files = {
        rel: FileEntry(entry["hash"], entry.get("items", {}))
        for rel, entry in files.items()
    }
    return meta


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
