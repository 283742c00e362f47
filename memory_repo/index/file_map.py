"""What each indexed file held, kept as one Arrow IPC file beside the index table.

A refresh must know every file's hash, every item's ``supersedes`` list and the lifecycle
flags each item was indexed with. As JSON that map was most of a refresh's time at 100k
cards (docs/index.md, "Layout"); as an Arrow table it maps without building a Python
object per item, and the few questions a refresh asks of it
(which paths, which hashes, who owns an id, which ids are superseded, whose flags moved)
are Arrow compute over columns.

One row per item; a file that holds no items keeps one row with a null ``item_id``, so
its hash is still remembered.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from memory_repo.lifecycle import is_archived
from memory_repo.models import CardStatus, Item, ProjectStatus, Registry

SCHEMA = pa.schema(
    [
        ("path", pa.string()),
        ("hash", pa.string()),
        ("item_id", pa.string()),
        ("supersedes", pa.list_(pa.string())),
        ("project", pa.string()),
        ("status", pa.string()),
        ("superseded", pa.bool_()),
        ("archived", pa.bool_()),
    ]
)
PREFIX = "files-"
SUFFIX = ".arrow"


@dataclass(frozen=True)
class FileMap:
    table: pa.Table

    @classmethod
    def of(
        cls,
        hashes: dict[str, str],
        items: Iterable[Item],
        superseded: set[str],
        registry: Registry,
    ) -> FileMap:
        """The map of these files (path -> hash) holding these items."""
        rows = [
            {
                "path": item.path,
                "hash": hashes[item.path],
                "item_id": item.id,
                "supersedes": list(item.supersedes),
                "project": item.project,
                "status": item.status.value,
                "superseded": item.id in superseded,
                "archived": is_archived(item, registry),
            }
            for item in items
        ]
        held = {row["path"] for row in rows}
        rows += [{"path": rel, "hash": digest} for rel, digest in hashes.items() if rel not in held]
        return cls(pa.Table.from_pylist(rows, schema=SCHEMA))

    def paths(self) -> set[str]:
        return set(pc.unique(self.table["path"]).to_pylist())

    def hashes(self, paths: Iterable[str]) -> dict[str, str]:
        """Path -> hash for those of ``paths`` the map holds."""
        picked = self.table.filter(pc.is_in(self.table["path"], value_set=_strings(paths)))
        return dict(zip(picked["path"].to_pylist(), picked["hash"].to_pylist(), strict=True))

    def owners(self, item_ids: Iterable[str]) -> dict[str, str]:
        """Item id -> the path holding it, for those of ``item_ids`` the map holds."""
        picked = self.table.filter(pc.is_in(self.table["item_id"], value_set=_strings(item_ids)))
        return dict(zip(picked["item_id"].to_pylist(), picked["path"].to_pylist(), strict=True))

    def without(self, paths: Iterable[str]) -> FileMap:
        keep = pc.invert(pc.is_in(self.table["path"], value_set=_strings(paths)))
        return FileMap(self.table.filter(keep))

    def plus(self, other: FileMap) -> FileMap:
        return FileMap(pa.concat_tables([self.table, other.table]).combine_chunks())

    def superseded(self) -> set[str]:
        """Every id that some other item names in ``supersedes``."""
        held = self.table.filter(pc.is_valid(self.table["item_id"])).combine_chunks()
        olds = pc.list_flatten(held["supersedes"])
        if len(olds) == 0:
            return set()
        owners = pc.take(held["item_id"], pc.list_parent_indices(held["supersedes"]))
        return set(olds.filter(pc.not_equal(olds, owners)).to_pylist())

    def flagged(self, superseded: set[str], registry: Registry) -> FileMap:
        """The same rows with the flags an index built now would give them."""
        archived_projects = [p.id for p in registry.projects if p.status == ProjectStatus.archived]
        held = pc.is_valid(self.table["item_id"])
        want_superseded = pc.and_(
            held, pc.is_in(self.table["item_id"], value_set=_strings(superseded))
        )
        want_archived = pc.and_(
            held,
            pc.or_(
                pc.equal(self.table["status"], CardStatus.archived.value),
                pc.is_in(self.table["project"], value_set=_strings(archived_projects)),
            ),
        )
        table = self.table.set_column(
            SCHEMA.get_field_index("superseded"),
            "superseded",
            pc.fill_null(want_superseded, False),
        )
        table = table.set_column(
            SCHEMA.get_field_index("archived"), "archived", pc.fill_null(want_archived, False)
        )
        return FileMap(table)

    def write(self, index_dir: Path, name: str) -> None:
        """Whole or not at all: written to a temp file, then renamed."""
        path = Path(index_dir) / name
        tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, SCHEMA) as writer:
            writer.write_table(self.table)
        os.replace(tmp, path)

    @classmethod
    def read(cls, index_dir: Path, name: str) -> FileMap:
        with pa.OSFile(str(Path(index_dir) / name)) as source:
            return cls(pa.ipc.open_file(source).read_all())


def map_name(stamp: int) -> str:
    return f"{PREFIX}{stamp}{SUFFIX}"


def drop_other_maps(index_dir: Path, keep: str) -> None:
    """Maps of earlier builds; only writers read a map, and only the current one."""
    for path in Path(index_dir).glob(f"{PREFIX}*{SUFFIX}*"):
        if path.name != keep:
            path.unlink(missing_ok=True)


def _strings(values: Iterable[str]) -> pa.Array:
    return pa.array(sorted(set(values)), type=pa.string())
