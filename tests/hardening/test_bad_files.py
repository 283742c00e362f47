"""A memory repo with malformed, duplicate-id, binary and huge files: the index is built
around them, the good cards stay searchable, and each bad file is reported exactly once,
by the rebuild, by an incremental refresh and by ``dose-mem check``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from dose_mem.cli.main import app
from memory_repo.bootstrap import init_memory
from memory_repo.cards import MAX_FILE_BYTES
from memory_repo.index.build import rebuild, refresh
from memory_repo.index.embedders import make_embedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.models import GLOBAL, Project, Registry
from memory_repo.registry import REGISTRY_FILE, render_registry
from memory_repo.settings import get_settings

GOOD = """---
id: {id}
type: preference
project: global
conclusion: {text}
created: 2026-10-01
---
{text}
"""

BAD = {
    "global/cards/bad-yaml.md": (b"---\nid: bad-yaml\ntype: [unclosed\n---\nbody\n", "YAML"),
    "global/cards/no-front.md": ("Just words, no front matter 没有元数据。\n".encode(), "front"),
    "global/cards/wrong-type.md": (
        GOOD.format(id="wrong-type", text="x").replace("type: preference", "type: colour").encode(),
        "type",
    ),
    "global/cards/binary.md": (bytes(range(256)) * 8, "binary"),
    "global/cards/latin1.md": ("caf\xe9 au lait".encode("latin-1"), "UTF-8"),
    "global/cards/huge.md": (
        GOOD.format(id="huge", text="大" * 10).encode() + b"padding line\n" * (5 * 2**20 // 13),
        "too large",
    ),
    "projects/alpha/cards/dup-a.md": (
        GOOD.format(id="dup-a", text="Second copy of dup-a.")
        .replace("project: global", "project: alpha")
        .encode(),
        "duplicate",
    ),
}


def _repo(root: Path) -> Path:
    init_memory(root)
    (root / REGISTRY_FILE).write_text(
        render_registry(Registry(projects=[Project(id="alpha", name="Alpha")])), encoding="utf-8"
    )
    cards = root / "global" / "cards"
    (cards / "keep-uv.md").write_text(
        GOOD.format(id="keep-uv", text="Use uv for Python environments, 不要用 conda."),
        encoding="utf-8",
    )
    (cards / "dup-a.md").write_text(
        GOOD.format(id="dup-a", text="Plots use matplotlib with the teal palette."),
        encoding="utf-8",
    )
    for rel, (data, _) in BAD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, capture_output=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "bad files",
        ],
        check=True,
        capture_output=True,
    )
    return root


def _assert_each_once(problems: list[tuple[str, str]]) -> None:
    paths = [path for path, _ in problems]
    assert sorted(paths) == sorted(BAD), problems
    for path, reason in problems:
        assert BAD[path][1].lower() in reason.lower(), (path, reason)


def test_the_huge_file_really_is_over_the_limit() -> None:
    assert len(BAD["global/cards/huge.md"][0]) > 5 * 2**20 > MAX_FILE_BYTES


def test_rebuild_goes_around_bad_files_and_reports_each_once(tmp_path: Path) -> None:
    root = _repo(tmp_path / "memory")
    embedder = make_embedder(get_settings(home=tmp_path))
    report = rebuild(root, tmp_path / "index", embedder)
    _assert_each_once([(p.path, p.reason) for p in report.problems])
    index = Index.open(tmp_path / "index", embedder)
    scope = Prefilter(clauses=[ScopeClause(projects=[GLOBAL])])
    assert {h.item_id for h in index.search("uv conda python", scope, k=10)} == {"keep-uv", "dup-a"}
    assert index.search("teal matplotlib", scope, k=1)[0].path == "global/cards/dup-a.md"

    (root / "global/cards/keep-uv.md").write_text(
        GOOD.format(
            id="keep-uv", text="Use uv for Python environments, never pip install globally."
        ),
        encoding="utf-8",
    )
    (root / "global/cards/binary.md").write_bytes(b"\x00still binary")
    again = refresh(root, tmp_path / "index", embedder)
    assert again.mode == "incremental"
    # The unreadable files are retried (and named once each); the unchanged duplicate's
    # file is remembered from the rebuild, so it is not read again.
    assert sorted(p.path for p in again.problems) == sorted(
        set(BAD) - {"projects/alpha/cards/dup-a.md"}
    )
    assert again.items_changed == 1


def test_check_reports_each_bad_file_once(tmp_path: Path) -> None:
    _repo(tmp_path / "memory")
    result = CliRunner().invoke(app, ["--home", str(tmp_path), "check", "--json"])
    assert result.exit_code == 1
    _assert_each_once([(p["path"], p["reason"]) for p in json.loads(result.stdout)])
