"""Keeping a long-running reader's memory near what it holds.

Loading a table version into a snapshot allocates several times the snapshot's size for
a moment. By default Arrow's mimalloc pool and glibc's per-thread malloc arenas keep
those pages, so the service stays well above what it holds, and the service runs a
thread per concurrent request (docs/index.md, "Measurements behind the code").
"""

from __future__ import annotations

import ctypes
import ctypes.util

import pyarrow as pa

_M_ARENA_MAX = -8  # glibc mallopt parameters
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 4 * 2**20


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name) if name else None


def lean_allocators() -> None:
    """For a serving process, before its threads start: Arrow on the system allocator
    (so a trim can return its pages) and at most four malloc arenas (fewer contend for
    locks, more keep memory resident: docs/index.md, "Measurements behind the code")."""
    pa.set_memory_pool(pa.system_memory_pool())
    libc = _libc()
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is not None:
        mallopt(_M_ARENA_MAX, 4)
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release_memory() -> None:
    """Hand freed pages back to the OS after a load."""
    pa.default_memory_pool().release_unused()
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is not None:
        trim(0)
