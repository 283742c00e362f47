"""Build the LanceDB index from the memory repository: full rebuild or incremental refresh.

Readers never see a half-built index. A rebuild writes a *new* table and then switches the
table name in ``meta.json`` (an atomic rename); a refresh commits its removed chunks, new
chunks and flipped superseded/archived flags to the table, then names the resulting
version in ``meta.json``, which is the only version readers load. What each file held
lives in a file map beside the table (``file_map.py``), written before the meta.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

import lancedb
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.index import BTree
from pydantic import BaseModel, Field

from memory_repo.cards import content_hash
from memory_repo.errors import MalformedCard
from memory_repo.history import changed_paths, head
from memory_repo.index.embedders import Embedder
from memory_repo.index.file_map import FileMap, drop_other_maps, map_name
from memory_repo.index.meta import IndexMeta, meta_path, read_meta, write_meta
from memory_repo.index.rows import Progress, embed_rows, item_rows, schema, sql_str
from memory_repo.lifecycle import superseded_ids
from memory_repo.models import Item, Problem
from memory_repo.registry import REGISTRY_FILE, load_registry
from memory_repo.store import EVIDENCE_SUFFIX, load_file, load_memory, memory_files

TABLE_PREFIX = "chunks_"
# A refresh appends a small fragment; compaction (plus folding new rows into the scalar
# indexes and dropping old versions) runs once this many have piled up, not on every
# refresh: it costs seconds at 100k cards even with nothing to do (docs/index.md).
COMPACT_AFTER = 16
_FLAGS = ["path", "item_id", "superseded", "archived"]


class BuildReport(BaseModel):
    mode: Literal["full", "incremental"]
    reason: str = ""
    files_changed: int = 0
    items_changed: int = 0
    chunks_changed: int = 0
    chunks_total: int = 0
    problems: list[Problem] = Field(default_factory=list)
    seconds: float = 0.0


def rebuild(
    memory_root: Path,
    index_dir: Path,
    embedder: Embedder,
    progress: Progress | None = None,
    reason: str = "requested",
) -> BuildReport:
    """Index everything into a fresh table, then switch to it."""
    started = time.perf_counter()
    memory_root, index_dir = Path(memory_root), Path(index_dir)
    memory = load_memory(memory_root)
    items = list(memory.items.values())
    superseded = superseded_ids(items)
    rows = embed_rows(item_rows(items, memory.registry, superseded), embedder, progress)
    index_dir.mkdir(parents=True, exist_ok=True)
    db = lancedb.connect(index_dir)
    stamp = time.time_ns()
    name = f"{TABLE_PREFIX}{stamp}"
    table = db.create_table(name, data=_arrow(rows, embedder.dim), schema=schema(embedder.dim))
    _create_indexes(table)
    previous = read_meta(index_dir)
    files = FileMap.of(memory.files, items, superseded, memory.registry)
    files.write(index_dir, map_name(stamp))
    write_meta(
        index_dir,
        IndexMeta(
            embedder=embedder.name,
            dim=embedder.dim,
            table=name,
            version=table.version,
            files=map_name(stamp),
            commit=head(memory_root),
            registry_hash=_registry_hash(memory_root),
        ),
    )
    drop_other_maps(index_dir, keep=map_name(stamp))
    _drop_stale_tables(db, keep={name, previous.table if previous else name})
    return BuildReport(
        mode="full",
        reason=reason,
        files_changed=len(memory.files),
        items_changed=len(items),
        chunks_changed=len(rows),
        chunks_total=len(rows),
        problems=memory.problems,
        seconds=time.perf_counter() - started,
    )


def refresh(
    memory_root: Path, index_dir: Path, embedder: Embedder, progress: Progress | None = None
) -> BuildReport:
    """Re-index only files that changed since the last build; rebuild when that is unsafe."""
    memory_root, index_dir = Path(memory_root), Path(index_dir)
    meta = read_meta(index_dir)
    if meta is None:
        reason = "index in an older format" if meta_path(index_dir).exists() else "no index yet"
        return rebuild(memory_root, index_dir, embedder, progress, reason=reason)
    if meta.table not in _table_names(index_dir):
        return rebuild(memory_root, index_dir, embedder, progress, reason="index table missing")
    if (meta.embedder, meta.dim) != (embedder.name, embedder.dim):
        return rebuild(
            memory_root,
            index_dir,
            embedder,
            progress,
            reason=f"embedder changed from {meta.embedder} ({meta.dim}d) to "
            f"{embedder.name} ({embedder.dim}d)",
        )
    try:
        files = FileMap.read(index_dir, meta.files)
    except (OSError, pa.ArrowInvalid):
        return rebuild(memory_root, index_dir, embedder, progress, reason="file map unreadable")
    return _refresh(memory_root, index_dir, embedder, meta, files, progress)


def _refresh(
    root: Path,
    index_dir: Path,
    embedder: Embedder,
    meta: IndexMeta,
    indexed: FileMap,
    progress: Progress | None,
) -> BuildReport:
    started = time.perf_counter()
    registry = load_registry(root)
    registry_hash = _registry_hash(root)
    current = set(memory_files(root))
    table = lancedb.connect(index_dir).open_table(meta.table)
    # The map tells what the table holds only if nothing committed after it was written;
    # after a refresh killed between its table commits and its map, ask the table.
    held = _held_flags(table) if table.version != meta.version else None
    known = indexed.paths() | (set(held["path"].to_pylist()) if held is not None else set())
    candidates = _candidates(
        root, meta, current, known, registry_changed=registry_hash != meta.registry_hash
    )
    hashes = indexed.hashes(candidates & known)
    problems: list[Problem] = []
    touched: set[str] = set()
    new_hashes: dict[str, str] = {}
    new_items: list[Item] = []
    for rel in sorted(candidates):
        if rel not in current:
            if rel in known:
                touched.add(rel)
            continue
        try:
            items, digest = load_file(root, rel, registry)
        except MalformedCard as exc:
            problems.append(Problem(path=exc.path, reason=exc.reason))
            if rel in known:
                touched.add(rel)
            continue
        if hashes.get(rel) == digest:
            continue
        touched.add(rel)
        new_hashes[rel] = digest
        new_items.extend(items)
    kept = indexed.without(touched)
    new_items = _drop_duplicates(new_items, kept, problems)
    superseded = kept.superseded() | superseded_ids(new_items)
    files = kept.flagged(superseded, registry)
    fixes = _flag_fixes(kept.table if held is None else held, files.table)
    rows = embed_rows(item_rows(new_items, registry, superseded), embedder, progress)
    _commit(table, rows, touched, fixes, embedder.dim)
    files = files.plus(FileMap.of(new_hashes, new_items, superseded, registry))
    stamp = time.time_ns()
    files.write(index_dir, map_name(stamp))
    write_meta(
        index_dir,
        meta.model_copy(
            update={
                "version": table.version,
                "files": map_name(stamp),
                "commit": head(root),
                "registry_hash": registry_hash,
            }
        ),
    )
    drop_other_maps(index_dir, keep=map_name(stamp))
    return BuildReport(
        mode="incremental",
        files_changed=len(touched),
        items_changed=len(new_items),
        chunks_changed=len(rows),
        chunks_total=table.count_rows(),
        problems=problems,
        seconds=time.perf_counter() - started,
    )


def _candidates(
    root: Path, meta: IndexMeta, current: set[str], known: set[str], registry_changed: bool
) -> set[str]:
    """Files worth hashing: git's changes since the indexed commit, else every file.

    Files that appeared or vanished relative to the map are always candidates, so a
    non-git repository (or a history rewrite) still refreshes correctly by hash.
    """
    appeared_or_gone = current ^ known
    changed = None if registry_changed else _git_changed(root, meta.commit)
    if changed is None:
        return current | known
    return appeared_or_gone | (changed & (current | known))


def _git_changed(root: Path, commit: str | None) -> set[str] | None:
    """Item files changed between ``commit`` and the work tree (an evidence sidecar counts
    as its card); None when git can not say (``history.changed_paths``)."""
    changed = changed_paths(root, commit) if commit is not None else None
    if changed is None:
        return None
    return {
        rel[: -len(EVIDENCE_SUFFIX)] + ".md" if rel.endswith(EVIDENCE_SUFFIX) else rel
        for rel in changed
    }


def _drop_duplicates(items: list[Item], kept: FileMap, problems: list[Problem]) -> list[Item]:
    """An id already held by an untouched file keeps its first home, as in a full load."""
    owner = kept.owners(item.id for item in items)
    out: list[Item] = []
    for item in items:
        if item.id in owner:
            problems.append(
                Problem(
                    path=item.path, reason=f"duplicate id {item.id!r} (also in {owner[item.id]})"
                )
            )
            continue
        owner[item.id] = item.path
        out.append(item)
    return out


def _held_flags(table: Any) -> pa.Table:
    """Each chunk's flags as the table holds them (the slow, always-true answer)."""
    return table.search().select(_FLAGS).limit(None).to_arrow()


def _flag_fixes(held: pa.Table, want: pa.Table) -> dict[tuple[bool, bool], pa.Table]:
    """Items of untouched files whose superseded/archived flags must change, grouped by
    the flags they get: (superseded, archived) -> their (path, item_id)."""
    joined = held.select(_FLAGS).join(
        want.select(_FLAGS).filter(pc.is_valid(want["item_id"])),
        keys=["path", "item_id"],
        right_suffix="_want",
        join_type="inner",
    )
    wrong = joined.filter(
        pc.or_(
            pc.not_equal(joined["superseded"], joined["superseded_want"]),
            pc.not_equal(joined["archived"], joined["archived_want"]),
        )
    )
    groups: dict[tuple[bool, bool], pa.Table] = {}
    for superseded in (False, True):
        for archived in (False, True):
            picked = wrong.filter(
                pc.and_(
                    pc.equal(wrong["superseded_want"], superseded),
                    pc.equal(wrong["archived_want"], archived),
                )
            )
            if picked.num_rows:
                groups[(superseded, archived)] = picked.select(["path", "item_id"])
    return groups


def _commit(
    table: Any,
    rows: list[dict[str, Any]],
    touched: set[str],
    fixes: dict[tuple[bool, bool], pa.Table],
    dim: int,
) -> None:
    """Deletions, additions and flag updates, each a table version; readers load only the
    version ``meta.json`` names afterwards, so none sees the steps in between.

    A single ``merge_insert`` would make one version but scans the whole table
    (docs/index.md, "Build and refresh").
    """
    if touched:
        table.delete(f"path IN ({_sql_list(touched)})")
    if rows:
        table.add(_arrow(rows, dim))
    for (superseded, archived), items in fixes.items():
        table.update(
            where=f"path IN ({_sql_list(items['path'].to_pylist())}) "
            f"AND item_id IN ({_sql_list(items['item_id'].to_pylist())})",
            values={"superseded": superseded, "archived": archived},
        )
    if table.stats()["fragment_stats"]["num_small_fragments"] >= COMPACT_AFTER:
        table.optimize()


def _sql_list(values: Any) -> str:
    return ", ".join(sql_str(v) for v in sorted(set(values)))


def _arrow(rows: list[dict[str, Any]], dim: int) -> pa.Table:
    names = schema(dim).names
    return pa.Table.from_pylist([{k: r[k] for k in names} for r in rows], schema=schema(dim))


def _create_indexes(table: Any) -> None:
    """The one scalar index a refresh looks up by value: it deletes (and updates flags)
    by ``path``. Queries never touch the table's indexes: the service answers from a
    snapshot in RAM (``snapshot.py``).
    """
    table.create_index("path", config=BTree())


def _table_names(index_dir: Path) -> set[str]:
    if not Path(index_dir).exists():
        return set()
    return set(lancedb.connect(index_dir).list_tables().tables)


def _drop_stale_tables(db: Any, keep: set[str]) -> None:
    """Keep the table readers may still hold (the previous one); drop anything older."""
    for name in db.list_tables().tables:
        if name.startswith(TABLE_PREFIX) and name not in keep:
            db.drop_table(name)


def _registry_hash(root: Path) -> str:
    path = root / REGISTRY_FILE
    return content_hash(path.read_bytes()) if path.exists() else ""
