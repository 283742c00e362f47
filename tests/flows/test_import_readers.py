"""The readers and the grouping step of the import, without Prefect: statements with their
line numbers, Hermes' § entries, the default locations, equivalents across files and
languages, and contradictions settled by date or listed for the person."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from flows import prescreen
from flows.facts import Candidate, Fact
from flows.onboarding import grouping, hermes_reader, markdown_reader
from flows.onboarding.locations import claude_slug, default_files
from memory_repo.index.embedders import make_embedder
from memory_repo.models import CardType, Project, Registry
from memory_repo.settings import get_settings

DOC = """---
description: front matter is skipped
---
# Preferences

- Every Python project gets its own uv environment.
* [ ] Keep answers short.
1. Numbered lines count too.
> Quoted lines as well.

```sh
uv venv   # code is not a statement
```
<!-- a comment
over lines -->
| a | table |
@~/.claude/extra.md
---
ok
A plain sentence-level line stays whole.
"""


def test_markdown_statements_keep_the_line_and_quote_the_text_verbatim() -> None:
    found = markdown_reader.statements(DOC)
    assert [(s.line, s.quote) for s in found] == [
        (6, "Every Python project gets its own uv environment."),
        (7, "Keep answers short."),
        (8, "Numbered lines count too."),
        (9, "Quoted lines as well."),
        (20, "A plain sentence-level line stays whole."),
    ]
    lines = DOC.splitlines()
    assert all(s.quote in lines[s.line - 1] for s in found)


def test_hermes_entries_split_on_the_section_sign() -> None:
    text = "User prefers replies in Chinese.\n§\nProject lives in ~/code/lab;\nuses uv.\n§\n"
    assert [(s.line, s.quote) for s in hermes_reader.statements(text)] == [
        (1, "User prefers replies in Chinese."),
        (3, "Project lives in ~/code/lab;"),
        (4, "uses uv."),
    ]  # a multi-line entry gives one statement per line


def test_default_locations_map_project_files_to_their_project(tmp_path, monkeypatch) -> None:
    lab = tmp_path / "code" / "lab"
    claude = tmp_path / ".claude"
    for path in (
        claude / "CLAUDE.md",
        lab / ".claude" / "CLAUDE.md",
        lab / "AGENTS.md",
        claude / "projects" / claude_slug(lab) / "memory" / "MEMORY.md",
        claude / "projects" / "-elsewhere" / "memory" / "notes.md",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("- something worth keeping\n", encoding="utf-8")
    monkeypatch.setenv("DOSE_MEM_IMPORT_CLAUDE_HOME", str(claude))
    monkeypatch.setenv("DOSE_MEM_IMPORT_CODEX_HOME", str(tmp_path / ".codex"))
    registry = Registry(projects=[Project(id="lab", name="Lab", paths=[str(lab)])])
    files = default_files("claude-code", get_settings(), registry)
    got = {(f.path.relative_to(tmp_path).as_posix(), f.kind, f.project) for f in files}
    assert got == {
        (".claude/CLAUDE.md", "instructions", "global"),
        ("code/lab/.claude/CLAUDE.md", "instructions", "lab"),
        (f".claude/projects/{claude_slug(lab)}/memory/MEMORY.md", "memory", "lab"),
        (".claude/projects/-elsewhere/memory/notes.md", "memory", "global"),
    }
    [agents] = default_files("codex", get_settings(), registry)
    assert agents.path == lab / "AGENTS.md" and agents.project == "lab" and agents.by_user


def _c(text: str, path: str, when: dt.datetime, *, by_user: bool = True) -> Candidate:
    return Candidate(
        fact=Fact(statement=text, type=CardType.preference, confidence=0.9, quote=text),
        agent="claude_code",
        session=f"{Path(path)}:1",
        at=when,
        by_user=by_user,
    )


NEW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
OLD = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def test_equivalents_group_across_languages_and_contraries_do_not() -> None:
    embedder = make_embedder(get_settings())
    out = grouping.group(
        [
            _c("Every Python project gets its own uv environment.", "/a/CLAUDE.md", NEW),
            _c("每个 Python 项目都用自己的 uv 环境。", "/b/AGENTS.md", NEW - dt.timedelta(days=1)),
            _c("Each Python project should get its own uv environment.", "/c/USER.md", NEW),
            _c("Never push directly to main.", "/a/CLAUDE.md", NEW),
            _c("Always push directly to main.", "/b/AGENTS.md", OLD),
        ],
        embedder,
    )
    uv = next(c for c in out.kept if "uv" in c.fact.statement)
    assert uv.fact.statement == "Every Python project gets its own uv environment."
    assert [e.session for e in uv.also] == ["/b/AGENTS.md:1", "/c/USER.md:1"]
    assert out.merged == 2
    assert [c.fact.statement for c, _ in out.superseded] == ["Always push directly to main."]
    assert "Never push directly to main." in out.superseded[0][1]


def test_a_same_day_contradiction_keeps_the_clearer_and_is_listed() -> None:
    embedder = make_embedder(get_settings())
    out = grouping.group(
        [
            _c("Use the shared conda env for Python projects.", "/o/MEMORY.md", NEW, by_user=False),
            _c("Every Python project gets its own uv environment.", "/a/CLAUDE.md", NEW),
        ],
        embedder,
    )
    assert [c.fact.statement for c in out.kept] == [
        "Every Python project gets its own uv environment."
    ]
    [conflict] = out.conflicts
    assert "conda" in conflict and "/o/MEMORY.md:1" in conflict


def test_a_line_of_an_instructions_file_stands_yet_secrets_and_logs_still_fail() -> None:
    line = _c("Run the tests with `pytest -q` before every commit.", "/a/CLAUDE.md", NEW)
    assert prescreen.screen(line) == "one-off task instruction"  # said once in a session
    assert prescreen.screen(line, standing=True) is None  # written into CLAUDE.md
    key = _c("The deploy token is ghp_abcdefghijklmnopqrstuvwxyz123456", "/a/MEMORY.md", NEW)
    assert prescreen.screen(key, standing=True) == "looks like a secret"
    log = _c("Ran pip install -U torch, then it worked and fixed the import.", "/m.md", NEW)
    assert prescreen.screen(log, standing=True) == "command-repair log"
