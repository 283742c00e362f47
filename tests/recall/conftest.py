"""The app over the shared demo memory (tests/conftest.py), behind a TestClient."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.deps import Services


@pytest.fixture(scope="session")
def client(demo_settings: Settings, services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(demo_settings, services)) as c:
        yield c
