"""Loading a snapshot in a child process: the same snapshot as inline, clear failures, and
a serving process that never imports lancedb."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder
from memory_repo.index.meta import read_meta, write_meta
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.snapshot import Snapshot
from memory_repo.index.snapshot_load import SnapshotLoadFailed
from profiles.model import load_profiles
from recall_api.engine import RecallEngine
from recall_api.models import Identity

ALL = Prefilter(clauses=[ScopeClause(projects=["alpha", "beta", "oldproj", "global"])])


@pytest.fixture
def index_dir(memory: Path, tmp_path: Path, embedder: Embedder) -> Path:
    rebuild(memory, tmp_path / "idx", embedder)
    return tmp_path / "idx"


def test_a_child_hands_over_the_snapshot_an_inline_load_builds(
    index_dir: Path, embedder: Embedder
) -> None:
    inline = Index.open(index_dir, embedder)
    child = Index.open(index_dir, embedder, loader="subprocess")
    for name, table in inline.snapshot.parts.named().items():
        assert child.snapshot.parts.named()[name].equals(table), name
    assert child.snapshot.rows == inline.snapshot.rows > 0
    for query in ("用什么管理 Python 环境", "parse_table tabs", "batch size benchmark"):
        for mode in ("hybrid", "dense", "bm25"):
            got = child.search(query, ALL, k=10, mode=mode)
            want = inline.search(query, ALL, k=10, mode=mode)
            assert [(h.item_id, h.rrf, h.text) for h in got] == [
                (h.item_id, h.rrf, h.text) for h in want
            ]


def test_a_failed_child_load_names_the_version_and_the_reader_keeps_its_snapshot(
    index_dir: Path, embedder: Embedder
) -> None:
    index = Index.open(index_dir, embedder, loader="subprocess")
    before = index.snapshot
    answer = [h.item_id for h in index.search("parse_table tabs", ALL, k=5)]
    meta = read_meta(index_dir)
    assert meta is not None
    write_meta(index_dir, meta.model_copy(update={"version": meta.version + 99}))
    with pytest.raises(SnapshotLoadFailed, match=f"version {meta.version + 99}"):
        index.reload_if_changed()
    assert index.snapshot is before
    assert [h.item_id for h in index.search("parse_table tabs", ALL, k=5)] == answer != []


def test_a_service_loading_in_a_child_never_imports_lancedb(index_dir: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from recall_api.engine import RecallEngine\n"
        f"engine = RecallEngine(Path('.'), Path({str(index_dir)!r}), {{}}, loader='subprocess')\n"
        "engine.warm_up()\n"
        "print(engine.index.snapshot.rows, sorted(m for m in sys.modules if 'lance' in m))\n"
    )
    # The index fixtures are built by the English model (tests/index/conftest.py).
    env = {**os.environ, "DOSE_MEM_EMBEDDER": "minilm-en"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    rows, modules = done.stdout.split(" ", 1)
    assert int(rows) > 0
    assert modules.strip() == "[]"


def test_a_request_never_waits_for_a_reload(
    memory: Path, index_dir: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = RecallEngine(memory, index_dir, load_profiles(), embedder)
    who = Identity(agent="t", profile="full", projects=None)
    before = engine.index.snapshot
    release = threading.Event()
    load = Index._load

    def slow_load(self: Index) -> Snapshot:
        release.wait(60)
        return load(self)

    monkeypatch.setattr(Index, "_load", slow_load)
    rebuild(memory, index_dir, embedder)
    engine.refresh_soon()
    engine.refresh_soon()  # a second notice while loading starts nothing new
    reloads = [t for t in threading.enumerate() if t.name == "index-reload"]
    assert len(reloads) == 1
    assert engine.search(who, "parse_table tabs")  # answered while the load waits
    assert engine.index.snapshot is before
    release.set()
    reloads[0].join(60)
    assert engine.index.snapshot is not before
    assert not engine.index.changed()
