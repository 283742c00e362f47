"""`dose-mem init`: an empty memory once, the demo only over nothing unless --force."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from dose_mem.cli.main import app
from memory_repo import history
from memory_repo.demo import DEMO_IDS, DEMO_PROJECTS
from memory_repo.registry import load_registry
from memory_repo.store import load_memory

runner = CliRunner()


def _run(home: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--home", str(home), *args])
    return result.exit_code, result.output


def test_init_creates_an_empty_memory_once(tmp_path: Path) -> None:
    code, _ = _run(tmp_path, "init")
    memory = tmp_path / "memory"
    assert code == 0
    assert (memory / "README.md").read_text(encoding="utf-8").startswith("# Memory")
    assert load_registry(memory).projects == []
    assert (memory / "global" / "cards").is_dir()
    assert len(history.history(memory)) == 1
    code, out = _run(tmp_path, "init")
    assert code == 0 and "already exists" in out
    assert len(history.history(memory)) == 1


def test_init_demo_twice_refuses_without_force(tmp_path: Path) -> None:
    code, _ = _run(tmp_path, "init", "--demo", "--today", "2026-11-30")
    memory = tmp_path / "memory"
    assert code == 0
    assert [p.id for p in load_registry(memory).projects] == list(DEMO_PROJECTS)
    (memory / "global/cards/mine.md").write_text("my own notes", encoding="utf-8")
    code, out = _run(tmp_path, "init", "--demo")
    assert code == 1 and "--force" in out
    assert (memory / "global/cards/mine.md").exists()
    code, _ = _run(tmp_path, "init", "--demo", "--force", "--today", "2026-11-30")
    assert code == 0
    assert not (memory / "global/cards/mine.md").exists()
    assert len(history.history(memory)) == 8
    assert set(DEMO_IDS.values()) <= set(load_memory(memory).items)


def test_init_demo_over_an_empty_memory_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    code, _ = _run(tmp_path, "init", "--demo")
    assert code == 0
    assert load_memory(tmp_path / "memory").problems == []
