"""Fixtures shared across test areas: the demo memory with a real index, tokens for it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_repo.demo import build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import Settings
from recall_api.deps import Services
from recall_api.services import build_services
from recall_api.tokens import TokenStore, tokens_path


@pytest.fixture(autouse=True)
def own_outbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's clients keep what they could not send in an outbox of its own, never
    in the machine's ~/.dose-mem, where another test's client would deliver it."""
    folder = tmp_path / "client-outbox"
    monkeypatch.setenv("DOSE_MEM_OUTBOX", str(folder))
    return folder


IssueToken = Callable[..., str]


def make_demo_home(tmp_path_factory: pytest.TempPathFactory, name: str) -> Settings:
    """The demo memory built for today (its lifecycle is the same on any day) and indexed."""
    settings = Settings(home=tmp_path_factory.mktemp(name))
    build_demo(settings.memory_path, dt.date.today())
    rebuild(settings.memory_path, settings.index_path, make_embedder(settings))
    return settings


@pytest.fixture(scope="session")
def demo_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return make_demo_home(tmp_path_factory, "dose-home")


@pytest.fixture(scope="session")
def issue_token(demo_settings: Settings) -> IssueToken:
    store = TokenStore(tokens_path(demo_settings))

    def issue(profile: str, projects: list[str] | None = None, agent: str = "test") -> str:
        return store.issue(agent, profile, projects)[0]

    return issue


@pytest.fixture(scope="session")
def services(demo_settings: Settings) -> Services:
    return build_services(demo_settings)
