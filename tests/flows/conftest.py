"""Shared fixtures: one Prefect test harness for the whole session, a fresh home per test,
and capture directories the test fills with transcripts from tests/data."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from prefect.testing.utilities import prefect_test_harness

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/llm_server.py, shared with others

DATA = Path(__file__).parents[1] / "data" / "transcripts"
SOURCES = {
    "claude_code": "DOSE_MEM_CAPTURE_CLAUDE_DIR",
    "codex": "DOSE_MEM_CAPTURE_CODEX_DIR",
    "hermes": "DOSE_MEM_CAPTURE_HERMES_DIR",
    "pi": "DOSE_MEM_CAPTURE_PI_DIR",
}


@pytest.fixture(scope="session")
def harness() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=120):
        yield


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
        for key in ("DOSE_MEM_LLM_BASE_URL", "OPENAI_API_KEY", "DOSE_MEM_LLM_API_KEY",
                    "DOSE_MEM_CRASH_AT"):
            monkeypatch.delenv(key, raising=False)

    @property
    def memory(self) -> Path:
        return self.root / "memory"

    @property
    def state(self) -> Path:
        return self.root / "state"

    def add(self, agent: str) -> None:
        shutil.copytree(DATA / agent, self.sources / agent, dirs_exist_ok=True)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    return Home(tmp_path, monkeypatch)
