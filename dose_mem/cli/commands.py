"""The sub-command modules, one file each; add a name here for a new command file."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

NAMES = (
    "bench",
    "check",
    "connect",
    "eval",
    "hook",
    "import_memories",
    "ingest",
    "init",
    "mcp",
    "profiles",
    "reindex",
    "rollback",
    "search",
    "serve",
    "sessions",
    "tasks",
    "token",
)


def modules(names: tuple[str, ...] = NAMES) -> list[ModuleType]:
    return [import_module(f"dose_mem.cli.{name}") for name in names]
