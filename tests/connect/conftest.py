"""The sandbox fixture for the connect tests (tests/connect/sandbox.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.connect.sandbox import Box, make_box


@pytest.fixture
def box(tmp_path: Path) -> Box:
    return make_box(tmp_path)
