"""A real uvicorn recall service over the shared demo memory (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.deps import Services
from tests.integrations.helpers import LiveServer


@pytest.fixture(scope="session")
def recall_service(demo_settings: Settings, services: Services) -> Iterator[LiveServer]:
    with LiveServer(create_app(demo_settings, services)) as live:
        yield live
