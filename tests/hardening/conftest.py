"""The demo memory with a real index, the app over it, and tokens: shared by the hardening
tests that talk to the service."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dose_mem.settings import Settings
from memory_repo.demo import build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import make_embedder
from recall_api.app import build_services, create_app, tokens_path
from recall_api.deps import Services
from recall_api.tokens import TokenStore


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = Settings(home=tmp_path_factory.mktemp("hardening-home"))
    build_demo(settings.memory_path, dt.date.today())
    rebuild(settings.memory_path, settings.index_path, make_embedder(settings))
    return settings


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
