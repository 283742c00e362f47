"""``dose-mem reindex``, ``search`` and ``bench locomo`` as a person runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dose_mem.cli.main import app

LOCOMO = Path(__file__).resolve().parents[2] / "../shared/benchmarks/locomo"


@pytest.fixture
def home(memory: Path, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    shutil.move(memory, home / "memory")
    return home


def test_reindex_then_search(home: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(app, ["--home", str(home), "reindex"])
    assert first.exit_code == 0, first.output
    assert "full reindex (no index yet)" in first.output
    assert "global/cards/broken.md" in first.output
    again = runner.invoke(app, ["--home", str(home), "reindex"])
    assert "incremental reindex" in again.output and "0 files" in again.output
    found = runner.invoke(
        app, ["--home", str(home), "search", "parse_table", "--project", "alpha", "--json"]
    )
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)
    assert hits[0]["item_id"] == "parse-table-header"
    assert {h["project"] for h in hits} <= {"alpha", "global"}
    table = runner.invoke(app, ["--home", str(home), "search", "用什么管理 Python 环境"])
    assert "uv-python-env" in table.stdout


def test_search_errors_are_messages_not_tracebacks(home: Path) -> None:
    runner = CliRunner()
    no_index = runner.invoke(app, ["--home", str(home), "search", "x"])
    assert no_index.exit_code == 1 and "dose-mem reindex" in no_index.output
    runner.invoke(app, ["--home", str(home), "reindex"])
    bad = runner.invoke(app, ["--home", str(home), "search", "x", "--project", "nope"])
    assert bad.exit_code == 2 and "unknown project" in bad.output
    mode = runner.invoke(app, ["--home", str(home), "search", "x", "--mode", "fuzzy"])
    assert mode.exit_code == 2


@pytest.mark.skipif(not LOCOMO.is_dir(), reason="LoCoMo data (shared/benchmarks) not present")
def test_bench_locomo_one_conversation_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["--home", str(tmp_path), "bench", "locomo", str(LOCOMO / "conv-30.json"), "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["questions"] == 81
    assert set(report["systems"]) == {"hybrid", "dense", "bm25"}
    for scores in report["systems"].values():
        assert 0.0 < scores["recall@5"] <= scores["recall@10"] <= 1.0
    assert report["systems"]["bm25"]["recall@10"] > 0.4


def test_serve_is_dispatched_to_a_cli_with_only_serve() -> None:
    """``dose-mem serve`` must not load the other commands' libraries for its lifetime."""
    from typer.main import get_command

    from dose_mem.cli.build import make_app
    from dose_mem.cli.entry import _command

    assert _command(["--home", "/tmp/serve", "serve", "--port", "1"]) == "serve"
    assert _command(["--home", "serve", "reindex"]) == "reindex"
    assert _command(["--help"]) is None
    assert sorted(get_command(make_app(("serve",))).commands) == ["serve"]  # type: ignore[attr-defined]
