"""The settings a CLI invocation runs with, set once by the global ``--home`` option."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pydantic-settings loads when a command reads its settings, not for --help
    from memory_repo.settings import Settings

_home: Path | None = None


def set_home(home: Path | None) -> None:
    global _home
    _home = home


def settings() -> Settings:
    from memory_repo.settings import get_settings

    return get_settings(home=_home)
