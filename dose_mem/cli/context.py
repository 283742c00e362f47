"""The settings a CLI invocation runs with, set once by the global ``--home`` option."""

from __future__ import annotations

from pathlib import Path

from memory_repo.settings import Settings, get_settings

_home: Path | None = None


def set_home(home: Path | None) -> None:
    global _home
    _home = home


def settings() -> Settings:
    return get_settings(home=_home)
