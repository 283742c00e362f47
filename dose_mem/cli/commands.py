"""The list of sub-command modules; add one line per new command file."""

from __future__ import annotations

from types import ModuleType

from dose_mem.cli import (
    bench,
    check,
    eval,
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
    eval,
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
