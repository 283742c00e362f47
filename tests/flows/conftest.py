"""Shared fixtures: one Prefect test harness for the whole session and a fresh home per test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from prefect.testing.utilities import prefect_test_harness

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/flows/ingest_home.py, adopt_home.py

from ingest_home import Home


@pytest.fixture(scope="session")
def harness() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    return Home(tmp_path, monkeypatch)


@pytest.fixture
def agent_files(home: Home, monkeypatch: pytest.MonkeyPatch):
    """The four agents' own memory files on a fixture machine (``adopt_home.AgentFiles``)."""
    from adopt_home import AgentFiles

    return AgentFiles(home, monkeypatch)
