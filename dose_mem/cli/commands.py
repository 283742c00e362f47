"""The list of sub-command modules; add one line per new command file."""

from __future__ import annotations

from types import ModuleType

from dose_mem.cli import bench, check, init, reindex, search, serve, token

MODULES: list[ModuleType] = [
    bench,
    check,
    init,
    reindex,
    search,
    serve,
    token,
]
