"""The list of sub-command modules; add one line per new command file."""

from __future__ import annotations

from types import ModuleType

MODULES: list[ModuleType] = []
