from __future__ import annotations

from pathlib import Path

import pytest

from tests.evaluation.tiny_env import write_tiny_env


@pytest.fixture
def tiny_env(tmp_path: Path) -> Path:
    return write_tiny_env(tmp_path / "tiny")
