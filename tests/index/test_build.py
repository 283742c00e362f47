"""Full rebuild and incremental refresh over a real git memory repo and real LanceDB."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from memory_repo.errors import EmbedderMismatch
from memory_repo.index.build import rebuild, refresh
from memory_repo.index.embedders import Embedder, OpenAIEmbedder
from memory_repo.index.query import Index
from memory_repo.index.snapshot_load import Loader
from tests.index.conftest import git
from tests.index.helpers import EmbeddingsServer, table_rows

LAYERS = ("item_id", "chunk_no", "l0", "l1", "heading", "text", "tokens")


def test_layers_are_byte_identical_across_rebuilds(
    memory: Path, tmp_path: Path, embedder: Embedder
) -> None:
    rebuild(memory, tmp_path / "a", embedder)
    rebuild(memory, tmp_path / "b", embedder)
    first, second = table_rows(tmp_path / "a"), table_rows(tmp_path / "b")
    assert [{c: r[c] for c in LAYERS} for r in first] == [{c: r[c] for c in LAYERS} for r in second]
    assert any("uv" in r["tokens"].split() and "管理" in r["tokens"].split() for r in first)


def test_rebuild_reports_malformed_files_and_indexes_the_rest(
    memory: Path, tmp_path: Path, embedder: Embedder
) -> None:
    report = rebuild(memory, tmp_path / "idx", embedder)
    assert [p.path for p in report.problems] == ["global/cards/broken.md"]
    assert "type" in report.problems[0].reason
    ids = {r["item_id"] for r in table_rows(tmp_path / "idx")}
    assert {"uv-python-env", "parse-table-header", "alpha.brief.goal"} <= ids
    assert "broken" not in ids


def test_flags_are_denormalised(memory: Path, tmp_path: Path, embedder: Embedder) -> None:
    rebuild(memory, tmp_path / "idx", embedder)
    flags = {
        r["item_id"]: (r["superseded"], r["archived"], r["expires"])
        for r in table_rows(tmp_path / "idx")
    }
    assert flags["batch-size-v1"][0] and flags["batch-size-v2"][0]
    assert not flags["batch-size-v3"][0]
    assert flags["retired-deploy"][1] and flags["legacy-cron"][1]
    assert not flags["parse-table-header"][1]
    assert str(flags["old-benchmark"][2]) == "2020-06-29"
    assert flags["uv-python-env"][2] is None


def _edit_add_delete(memory: Path) -> None:
    card = memory / "projects/alpha/cards/parse-table-header.md"
    card.write_text(card.read_text().replace("1,200", "2,400"), encoding="utf-8")
    (memory / "projects/alpha/cards/batch-size-v3.md").unlink()
    (memory / "projects/beta/cards/beta-cache.md").write_text(
        "---\nid: beta-cache\ntype: pitfall\nproject: beta\ncreated: 2026-04-01\n"
        "supersedes: [beta-separator]\n---\n\n缓存目录必须放在 /tmp 之外。\n",
        encoding="utf-8",
    )


def _assert_same_rows(a: Path, b: Path) -> None:
    left, right = table_rows(a), table_rows(b)
    assert [(r["item_id"], r["chunk_no"]) for r in left] == [
        (r["item_id"], r["chunk_no"]) for r in right
    ]
    for x, y in zip(left, right, strict=True):
        assert {k: v for k, v in x.items() if k != "vector"} == {
            k: v for k, v in y.items() if k != "vector"
        }
        assert np.allclose(x["vector"], y["vector"], atol=1e-5)


@pytest.mark.parametrize("commit_first", [False, True])
def test_refresh_after_edit_add_delete_equals_rebuild(
    memory: Path, tmp_path: Path, embedder: Embedder, commit_first: bool
) -> None:
    rebuild(memory, tmp_path / "inc", embedder)
    _edit_add_delete(memory)
    if commit_first:
        git(memory, "add", "-A")
        git(memory, "commit", "-qm", "edit")
    report = refresh(memory, tmp_path / "inc", embedder)
    assert report.mode == "incremental"
    assert report.files_changed == 3
    assert report.items_changed == 2
    rebuild(memory, tmp_path / "full", embedder)
    _assert_same_rows(tmp_path / "inc", tmp_path / "full")
    flags = {r["item_id"]: r["superseded"] for r in table_rows(tmp_path / "inc")}
    assert flags["batch-size-v2"] is False  # its successor was deleted
    assert flags["beta-separator"] is True  # a new card supersedes it


def test_refresh_without_git_compares_hashes(
    memory: Path, tmp_path: Path, embedder: Embedder
) -> None:
    import shutil

    shutil.rmtree(memory / ".git")
    rebuild(memory, tmp_path / "inc", embedder)
    assert refresh(memory, tmp_path / "inc", embedder).files_changed == 0
    _edit_add_delete(memory)
    assert refresh(memory, tmp_path / "inc", embedder).files_changed == 3
    rebuild(memory, tmp_path / "full", embedder)
    _assert_same_rows(tmp_path / "inc", tmp_path / "full")


def test_registry_change_recomputes_archived(
    memory: Path, tmp_path: Path, embedder: Embedder
) -> None:
    rebuild(memory, tmp_path / "inc", embedder)
    registry = memory / "registry.yaml"
    registry.write_text(
        registry.read_text().replace(
            "Beta Site, kind: research, status: active",
            "Beta Site, kind: research, status: archived",
        ),
        encoding="utf-8",
    )
    report = refresh(memory, tmp_path / "inc", embedder)
    assert report.files_changed == 0
    assert {r["item_id"]: r["archived"] for r in table_rows(tmp_path / "inc")}["beta-separator"]
    rebuild(memory, tmp_path / "full", embedder)
    _assert_same_rows(tmp_path / "inc", tmp_path / "full")


def test_other_embedder_raises_on_open_and_rebuilds_on_refresh(
    memory: Path, tmp_path: Path, embedder: Embedder, embeddings_server: EmbeddingsServer
) -> None:
    rebuild(memory, tmp_path / "idx", embedder)
    remote = OpenAIEmbedder(model="tiny", base_url=embeddings_server.url, api_key="k")
    with pytest.raises(EmbedderMismatch):
        Index.open(tmp_path / "idx", remote)
    report = refresh(memory, tmp_path / "idx", remote)
    assert report.mode == "full"
    assert "embedder changed" in report.reason
    assert len(table_rows(tmp_path / "idx")[0]["vector"]) == remote.dim == 32
    Index.open(tmp_path / "idx", remote)
    with pytest.raises(EmbedderMismatch):
        Index.open(tmp_path / "idx", embedder)


def test_refresh_after_a_kill_before_its_meta_equals_rebuild(
    memory: Path, tmp_path: Path, embedder: Embedder
) -> None:
    """A refresh killed after its table commits but before its file map and meta: the
    next refresh must not trust the stale map's flags (beta-separator was marked
    superseded by the lost run; its successor is then deleted)."""
    index = tmp_path / "inc"
    rebuild(memory, index, embedder)
    before = {p.name: p.read_bytes() for p in index.iterdir() if p.is_file()}
    _edit_add_delete(memory)
    refresh(memory, index, embedder)
    for p in index.iterdir():
        if p.is_file():
            p.unlink()
    for name, data in before.items():
        (index / name).write_bytes(data)
    (memory / "projects/beta/cards/beta-cache.md").unlink()
    refresh(memory, index, embedder)
    rebuild(memory, tmp_path / "full", embedder)
    _assert_same_rows(index, tmp_path / "full")
    flags = {r["item_id"]: r["superseded"] for r in table_rows(index)}
    assert flags["beta-separator"] is False


def test_readers_load_the_version_the_meta_names(
    memory: Path, tmp_path: Path, embedder: Embedder
) -> None:
    """A commit that no meta names yet (a refresh mid-way) is invisible to readers."""
    import lancedb

    from memory_repo.index.meta import read_meta

    index = tmp_path / "idx"
    rebuild(memory, index, embedder)
    meta = read_meta(index)
    assert meta is not None
    lancedb.connect(index).open_table(meta.table).delete("item_id = 'uv-python-env'")
    assert Index.open(index, embedder).item_path("uv-python-env") == (
        "global/cards/uv-python-env.md"
    )


@pytest.mark.parametrize("loader", ["inline", "subprocess"])
def test_an_embedder_still_being_built_is_checked_once_it_is_there(
    memory: Path,
    tmp_path: Path,
    embedder: Embedder,
    embeddings_server: EmbeddingsServer,
    loader: Loader,
) -> None:
    """``Index.open`` with a Future reads the snapshot while the embedder is built (the
    service's start) and still refuses an index another embedder built."""
    rebuild(memory, tmp_path / "idx", embedder)
    with ThreadPoolExecutor(1) as pool:
        index = Index.open(tmp_path / "idx", pool.submit(lambda: embedder), loader=loader)
        remote = OpenAIEmbedder(model="tiny", base_url=embeddings_server.url, api_key="k")
        with pytest.raises(EmbedderMismatch):
            Index.open(tmp_path / "idx", pool.submit(lambda: remote), loader=loader)
    same = Index.open(tmp_path / "idx", embedder, loader=loader)
    assert index.snapshot.parts.items.equals(same.snapshot.parts.items)
    assert index.changed() is False  # the stamp of the version read was kept
