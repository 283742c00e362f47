"""A real uvicorn recall service over the shared demo memory (tests/conftest.py), and
one whose task board has a journal of the test's own and the test's clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.task_board import TaskBoard
from tests.integrations.helpers import Clock, LiveServer


@pytest.fixture(scope="session")
def recall_service(demo_settings: Settings, services: Services) -> Iterator[LiveServer]:
    with LiveServer(create_app(demo_settings, services)) as live:
        yield live


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def live(
    demo_settings: Settings,
    services: Services,
    clock: Clock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[LiveServer]:
    board = TaskBoard(tmp_path / "tasks" / "events.jsonl", stale_hours=6, keep_days=7, now=clock)
    monkeypatch.setattr(services.engine, "tasks", board)
    with LiveServer(create_app(demo_settings, services)) as server:
        yield server
