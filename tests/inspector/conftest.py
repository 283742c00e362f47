"""The inspector over a demo home with one real ingest run, served by a real uvicorn, and
a real headless Chromium (Debian's package, driven through its chromedriver).

``make test`` installs chromium when it is missing (Makefile); if the browser still
cannot be found, the browser tests fail with the command to run, never skip.
"""

from __future__ import annotations

import datetime as dt
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from prefect.testing.utilities import prefect_test_harness
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from flows.ingest import ingest
from flows.rollback import rollback
from memory_repo.demo import build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.services import build_services
from recall_api.tokens import TokenStore, tokens_path

sys.path.insert(0, str(Path(__file__).parents[1] / "flows"))  # tests/flows/ingest_home.py

from ingest_home import Home

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# The demo agents `make up` issues (dose_mem/up.py), each seeing every project.
AGENTS = {"demo-hermes": "full", "demo-claude-code": "working", "demo-calendar": "personal"}


@dataclass
class Inspected:
    settings: Settings
    services: Services
    admin: str
    agent: str
    run_id: str


@pytest.fixture(scope="session")
def inspected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspected]:
    """The demo memory, indexed, plus one ingest run of the test transcripts (a real
    Prefect flow run), and tokens: one admin, the three demo agents."""
    root = tmp_path_factory.mktemp("inspector")
    with pytest.MonkeyPatch.context() as mp, prefect_test_harness(server_startup_timeout=120):
        home = Home(root, mp)  # its environment lasts only for the ingest run
        settings = Settings(home=home.root)
        build_demo(settings.memory_path, dt.date.today())
        rebuild(settings.memory_path, settings.index_path, make_embedder(settings))
        for agent in ("claude_code", "hermes"):
            home.add(agent)
        run = ingest(home=str(home.root))
    store = TokenStore(tokens_path(settings))
    admin = store.issue("person", "admin", None, admin=True)[0]
    tokens = {a: store.issue(a, p, None)[0] for a, p in AGENTS.items()}
    services = build_services(settings, rollback)
    yield Inspected(settings, services, admin, tokens["demo-claude-code"], run.run_id)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server(inspected: Inspected) -> Iterator[str]:
    """The recall service on a free loopback port, in a thread of this process."""
    port = free_port()
    app = create_app(inspected.settings, inspected.services)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="session")
def browser() -> Iterator[webdriver.Chrome]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.fail(
            f"the browser tests need {', '.join(missing)}: run `make test` as root (it "
            "installs them) or `apt-get install -y chromium chromium-driver`"
        )
    profile = tempfile.mkdtemp(prefix="dose-mem-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")
