"""The demo memory, a real index over it, and the app behind a TestClient."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from dose_mem.settings import Settings
from memory_repo.demo import DEMO_TODAY, build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import make_embedder
from recall_api.app import build_services, create_app, tokens_path
from recall_api.deps import Services
from recall_api.tokens import TokenStore

Issue = Callable[..., str]


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = Settings(home=tmp_path_factory.mktemp("recall-home"))
    build_demo(settings.memory_path, DEMO_TODAY)
    rebuild(settings.memory_path, settings.index_path, make_embedder(settings))
    return settings


@pytest.fixture(scope="session")
def services(demo: Settings) -> Services:
    svc = build_services(demo)
    svc.engine._today = lambda: DEMO_TODAY
    return svc


@pytest.fixture(scope="session")
def client(demo: Settings, services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(demo, services)) as c:
        yield c


@pytest.fixture(scope="session")
def issue(demo: Settings) -> Issue:
    store = TokenStore(tokens_path(demo))

    def _issue(profile: str, projects: list[str] | None = None, agent: str = "t") -> str:
        return store.issue(agent, profile, projects)[0]

    return _issue
