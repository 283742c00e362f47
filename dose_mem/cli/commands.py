"""The list of sub-command modules; add one line per new command file."""

from __future__ import annotations

from types import ModuleType

from dose_mem.cli import (
    bench,
    check,
    hook,
    ingest,
    init,
    mcp,
    reindex,
    rollback,
    search,
    serve,
    sessions,
    token,
)

MODULES: list[ModuleType] = [
    bench,
    check,
    hook,
    ingest,
    init,
    mcp,
    reindex,
    rollback,
    search,
    serve,
    sessions,
    token,
]
