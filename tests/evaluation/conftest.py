from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prefect.testing.utilities import prefect_test_harness

from tests.evaluation.tiny_env import write_tiny_env


@pytest.fixture
def tiny_env(tmp_path: Path) -> Path:
    return write_tiny_env(tmp_path / "tiny")


@pytest.fixture(scope="session")
def harness() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=120):
        yield
