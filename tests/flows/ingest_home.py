"""A dose-mem home for flow tests, with capture directories filled from tests/data."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data" / "transcripts"
# Hermes' state.db as early versions made it (no cwd, parent, model_config, active, title).
OLD_HERMES_SCHEMA = (
    "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL,"
    " ended_at REAL, end_reason TEXT);"
    "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT,"
    " role TEXT, content TEXT, tool_name TEXT, tool_calls TEXT, timestamp REAL);"
)
SOURCES = {
    "claude_code": "DOSE_MEM_CAPTURE_CLAUDE_DIR",
    "codex": "DOSE_MEM_CAPTURE_CODEX_DIR",
    "hermes": "DOSE_MEM_CAPTURE_HERMES_DIR",
    "pi": "DOSE_MEM_CAPTURE_PI_DIR",
}


class Home:
    """A dose-mem home with its own capture sources; ``add`` copies one agent's test data."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root / "home"
        self.sources = root / "sources"
        self.env = {"DOSE_MEM_HOME": str(self.root), "DOSE_MEM_CAPTURE_IDLE_MINUTES": "0"}
        for agent, var in SOURCES.items():
            self.env[var] = str(self.sources / agent)
        for key, value in self.env.items():
            monkeypatch.setenv(key, value)
        for key in (
            "DOSE_MEM_LLM_BASE_URL",
            "OPENAI_API_KEY",
            "DOSE_MEM_LLM_API_KEY",
            "DOSE_MEM_CRASH_AT",
        ):
            monkeypatch.delenv(key, raising=False)

    @property
    def memory(self) -> Path:
        return self.root / "memory"

    @property
    def state(self) -> Path:
        return self.root / "state"

    def add(self, agent: str) -> None:
        shutil.copytree(DATA / agent, self.sources / agent, dirs_exist_ok=True)
