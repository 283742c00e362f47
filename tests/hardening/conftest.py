"""Fixtures of the hardening tests. The demo memory here is per module (not the shared
session one in tests/conftest.py) because these tests add cards and revoke tokens; the
Prefect test server is per worker, for the ingest tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from prefect.settings import get_current_settings
from prefect.testing.utilities import prefect_test_harness

from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.services import build_services
from recall_api.tokens import TokenStore, tokens_path
from tests.conftest import make_demo_home


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A demo home of this module's own: hardening tests reindex and revoke under load."""
    return make_demo_home(tmp_path_factory, "hardening-home")


@pytest.fixture(scope="module")
def services(demo: Settings) -> Services:
    return build_services(demo)


@pytest.fixture(scope="module")
def tokens(demo: Settings) -> TokenStore:
    return TokenStore(tokens_path(demo))


@pytest.fixture(scope="module")
def client(demo: Settings, services: Services) -> Iterator[TestClient]:
    """Server exceptions become 500 responses, as a real server would send them."""
    with TestClient(create_app(demo, services), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="session")
def prefect_api() -> Iterator[str]:
    """A Prefect test server; its URL lets subprocesses (``dose-mem ingest``) report to it."""
    with prefect_test_harness(server_startup_timeout=120):
        yield str(get_current_settings().api.url)
