"""Reading, diffing and writing the agents' files.

Contract: ``apply`` writes each changed file atomically (a temporary file in the same
directory, fsync'd, then renamed over the target), so an agent reading its config never
sees half a file. A symlinked config (dotfile managers) is written through to its target.
A user file that already exists gets ``<name>.dose-mem.bak`` once, before dose-mem first
merges into it (``FileEdit.backup``), holding it as it was before dose-mem touched it; the
backup is never overwritten and never removed (mode 0600: it may hold the user's secrets).
A file holding a token is 0600; any other file keeps its mode (new ones: 0644).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import shutil
from pathlib import Path

from dose_mem.connect.model import SECRET_MODE, FileEdit, Plan
from memory_repo.files import write_atomic

BACKUP_SUFFIX = ".dose-mem.bak"

# A dose-mem token, ``dm_<id>_<secret>`` (recall_api/tokens.py); the id is not secret.
_TOKEN = re.compile(r"\b(dm_[A-Za-z0-9]+)_[A-Za-z0-9_-]+")


def read_text(path: Path) -> str | None:
    """The file's text, or None when it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def mask(text: str) -> str:
    """``text`` with every token's secret replaced by ``***`` (the id stays readable)."""
    return _TOKEN.sub(r"\1_***", text)


def diff(edit: FileEdit) -> str:
    """The unified diff of one edit, tokens masked; empty when nothing changes."""
    if not edit.changed:
        return ""
    before = (edit.before or "").splitlines(keepends=True)
    after = (edit.after or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        before,
        after,
        fromfile=str(edit.path) if edit.before is not None else "/dev/null",
        tofile=str(edit.path) if edit.after is not None else "/dev/null",
    )
    return mask("".join(line if line.endswith("\n") else line + "\n" for line in lines))


def atomic_write(path: Path, text: str, mode: int) -> None:
    """Write ``text`` to ``path`` (through a symlink) by rename, with ``mode``."""
    target = path.resolve() if path.is_symlink() else path
    write_atomic(target, text.encode("utf-8"), mode)


def _mode_for(edit: FileEdit) -> int:
    if edit.secret:
        return SECRET_MODE
    try:
        return edit.path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o644


def _backup_once(edit: FileEdit) -> None:
    if not edit.backup or edit.before is None:
        return
    bak = backup_path(edit.path)
    if not bak.exists():
        atomic_write(bak, edit.before, SECRET_MODE)


def _remove_cache(folder: Path, stems: set[str]) -> None:
    """Remove ``folder`` (a ``__pycache__``) if it holds only bytecode of ``stems``."""
    try:
        entries = list(folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return
    if all(e.is_file() and e.name.split(".", 1)[0] in stems for e in entries):
        shutil.rmtree(folder, ignore_errors=True)


def apply(plan: Plan) -> list[FileEdit]:
    """Carry out the plan's changed edits in order, then remove its directories that are
    empty by then; returns the edits that changed something. Files that stay the same
    are not rewritten, except that a token-holding file is brought to 0600."""
    done = []
    for edit in plan.edits:
        if not edit.changed:
            if edit.secret and edit.after is not None and edit.path.exists():
                os.chmod(edit.path.resolve(), SECRET_MODE)
            continue
        _backup_once(edit)
        if edit.after is None:
            with contextlib.suppress(FileNotFoundError):
                edit.path.unlink()
        else:
            atomic_write(edit.path, edit.after, _mode_for(edit))
        done.append(edit)
    for folder, stems in plan.caches:
        _remove_cache(folder, stems)
    for folder in plan.remove_dirs:
        with contextlib.suppress(FileNotFoundError, OSError):
            folder.rmdir()  # only when empty: a file the user put there keeps it
    return done
