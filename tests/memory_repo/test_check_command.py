"""`dose-mem check` names every malformed file once, with its reason, and exits 1."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from dose_mem.cli.main import app
from memory_repo.check import check_memory
from memory_repo.demo import build_demo
from memory_repo.store import load_memory

runner = CliRunner()

_REGISTRY = "projects:\n- id: tablekit\n  name: TableKit\n"


def _card(card_id: str, extra: str = "", project: str = "global") -> str:
    return (
        f"---\nid: {card_id}\ntype: fact\nproject: {project}\ncreated: 2026-10-05\n{extra}---\n"
        "A fact.\n"
    )


BROKEN: dict[str, bytes] = {
    "global/cards/bad-yaml.md": b"---\nid: [bad-yaml\n---\nbody\n",
    "global/cards/no-id.md": b"---\ntype: fact\ncreated: 2026-10-05\n---\nbody\n",
    "global/cards/wrong-name.md": _card("other-name").encode(),
    "projects/nowhere/cards/lost.md": _card("lost", project="nowhere").encode(),
    "global/cards/points-nowhere.md": _card("points-nowhere", "supersedes: [ghost]\n").encode(),
    "global/cards/cycle-a.md": _card("cycle-a", "supersedes: [cycle-b]\n").encode(),
    "global/cards/cycle-b.md": _card("cycle-b", "supersedes: [cycle-a]\n").encode(),
    "global/cards/dup.md": _card("dup").encode(),
    "projects/tablekit/cards/dup.md": _card("dup", project="tablekit").encode(),
    "global/cards/binary.md": b"---\nid: binary\x00\x01\x02\n---\n",
    "global/cards/latin1.md": _card("latin1").encode() + "café".encode("latin-1"),
    "global/cards/good.md": _card("good").encode(),
    "global/cards/stray-project.md": _card("stray-project", project="nope").encode(),
    "global/cards/good.evidence.jsonl": (
        b'{"agent": "codex", "session": "s1", "quote": "fine"}\n{"agent": "codex"\n'
    ),
    "global/cards/notes.txt": b"scratch\n",
}

EXPECTED = {
    "global/cards/bad-yaml.md": "bad YAML front matter",
    "global/cards/no-id.md": "missing id",
    "global/cards/wrong-name.md": "does not match file name",
    "projects/nowhere/cards/lost.md": "unknown project 'nowhere'",
    "global/cards/points-nowhere.md": "supersedes 'ghost', which does not exist",
    "global/cards/cycle-a.md": "supersedes cycle: cycle-a -> cycle-b -> cycle-a",
    "projects/tablekit/cards/dup.md": "duplicate id 'dup' (also in global/cards/dup.md)",
    "global/cards/binary.md": "binary file",
    "global/cards/latin1.md": "not UTF-8",
    "global/cards/good.evidence.jsonl:2": "bad evidence line",
    "global/cards/notes.txt": "not a card",
    "global/cards/stray-project.md": "unknown project 'nope'",
}


def _broken_repo(root: Path) -> Path:
    (root / "registry.yaml").parent.mkdir(parents=True, exist_ok=True)
    (root / "registry.yaml").write_text(_REGISTRY, encoding="utf-8")
    for rel, data in BROKEN.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def test_each_malformed_file_is_reported_once_with_its_reason(tmp_path: Path) -> None:
    report = check_memory(_broken_repo(tmp_path / "m"))
    paths = [p.path for p in report.problems]
    assert sorted(paths) == sorted(EXPECTED), report.problems
    for problem in report.problems:
        assert EXPECTED[problem.path] in problem.reason
    # cycle-a, cycle-b, points-nowhere, the first dup, and good (its bad evidence line skipped)
    assert report.items == 5
    assert not report.ok


def test_cli_check_exits_1_and_prints_json(tmp_path: Path) -> None:
    _broken_repo(tmp_path / "memory")
    result = runner.invoke(app, ["--home", str(tmp_path), "check", "--json"])
    assert result.exit_code == 1
    listed = json.loads(result.stdout)
    assert {p["path"] for p in listed} == set(EXPECTED)
    text = runner.invoke(app, ["--home", str(tmp_path), "check"])
    assert text.exit_code == 1
    assert "global/cards/no-id.md: missing id" in text.stdout


def test_cli_check_on_the_demo_is_clean(tmp_path: Path) -> None:
    build_demo(tmp_path / "memory")
    result = runner.invoke(app, ["--home", str(tmp_path), "check"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("files, no problems")
    assert json.loads(runner.invoke(app, ["--home", str(tmp_path), "check", "--json"]).stdout) == []


def test_a_broken_registry_is_the_one_problem(tmp_path: Path) -> None:
    root = _broken_repo(tmp_path / "m")
    (root / "registry.yaml").write_text("projects: [\n", encoding="utf-8")
    report = check_memory(root)
    assert [p.path for p in report.problems] == ["registry.yaml"]


def test_cli_check_without_a_memory_says_so(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--home", str(tmp_path), "check"])
    assert result.exit_code == 2
    assert "dose-mem init" in result.output


def test_a_bad_evidence_line_keeps_the_card_and_its_good_evidence(tmp_path: Path) -> None:
    memory = load_memory(_broken_repo(tmp_path / "m"))
    assert [e.quote for e in memory.items["good"].evidence] == ["fine"]
