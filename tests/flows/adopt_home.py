"""A machine whose four agents already keep memory: the fixture of the import tests.

The same "own uv environment per Python project" rule is in the user's Claude Code
CLAUDE.md, Hermes' USER.md and Codex's AGENTS.md (in Chinese); an older "shared conda
env" line is in OpenClaw's MEMORY.md; a registered project's CLAUDE.md holds a project
convention; Hermes' MEMORY.md holds an API key.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
import yaml
from ingest_home import Home

from memory_repo.bootstrap import init_memory
from memory_repo.history import commit

KEY = "sk-proj-Zx81Kq0PLm4Vw7RtY2uB9nHc"
UV_EN = "Every Python project gets its own uv environment."
UV_HERMES = "Each Python project should get its own uv environment."
UV_ZH = "每个 Python 项目都用自己的 uv 环境。"
CONDA = "Use the shared conda env for Python projects."
CONVENTION = "Commit messages in this repo start with the ticket number."
NOW = dt.datetime.now(dt.UTC)


def _write(path: Path, text: str, when: dt.datetime) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (when.timestamp(), when.timestamp()))
    return path


class AgentFiles:
    def __init__(self, home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
        base = home.root.parent / "machine"
        self.claude = base / ".claude"
        self.codex = base / ".codex"
        self.hermes = base / ".hermes"
        self.openclaw = base / ".openclaw" / "workspace"
        self.lab = base / "code" / "lab"
        for var, path in {
            "DOSE_MEM_IMPORT_CLAUDE_HOME": self.claude,
            "DOSE_MEM_IMPORT_CODEX_HOME": self.codex,
            "DOSE_MEM_IMPORT_HERMES_HOME": self.hermes,
            "DOSE_MEM_IMPORT_OPENCLAW_WORKSPACE": self.openclaw,
        }.items():
            monkeypatch.setenv(var, str(path))
        recent = NOW - dt.timedelta(hours=1)
        older = NOW - dt.timedelta(days=2)
        self.claude_md = _write(self.claude / "CLAUDE.md", f"# How I work\n\n- {UV_EN}\n", recent)
        self.hermes_user = _write(self.hermes / "memories" / "USER.md", f"{UV_HERMES}\n§\n", older)
        self.hermes_memory = _write(
            self.hermes / "memories" / "MEMORY.md",
            f"The OpenAI key for the lab box is {KEY}\n",
            older,
        )
        self.agents_md = _write(self.codex / "AGENTS.md", f"## 环境\n\n- {UV_ZH}\n", older)
        self.openclaw_memory = _write(
            self.openclaw / "MEMORY.md",
            f"- {CONDA}\n",
            dt.datetime(2024, 3, 1, tzinfo=dt.UTC),
        )
        self.daily = _write(
            self.openclaw / "memory" / "2026-11-30.md", "- Ran the nightly backup job.\n", older
        )
        self.project_md = _write(self.lab / "CLAUDE.md", f"# lab\n\n- {CONVENTION}\n", older)
        init_memory(home.memory)
        registry = {"projects": [{"id": "lab", "name": "Lab", "paths": [str(self.lab)]}]}
        (home.memory / "registry.yaml").write_text(yaml.safe_dump(registry), encoding="utf-8")
        commit(home.memory, ["registry.yaml"], "registry")
