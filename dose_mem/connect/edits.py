"""Building ``FileEdit``s: a JSON file changed by a function, a whole file dose-mem owns,
a file removed. Shared by the agent modules so each only says what goes where.

Contract of ``json_edit``: a file whose data the function leaves equal is not rewritten
(its bytes stay, whatever their formatting); when removing leaves nothing but empty
containers in a file that did not exist before dose-mem (no ``.dose-mem.bak``), the file
is deleted. Given ``undo`` (the disconnect side of ``change``), a file that ``undo`` would
leave as it is holds nothing of dose-mem's yet, so it is backed up before the change.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dose_mem.connect import jsonfile
from dose_mem.connect.files import backup_path, read_text
from dose_mem.connect.model import ConnectError, FileEdit


def existed_before(path: Path) -> bool:
    """Whether the user had this file before dose-mem first changed it."""
    return backup_path(path).exists()


def json_edit(
    path: Path,
    change: Callable[[dict[str, Any]], None],
    what: str,
    *,
    secret: bool = False,
    removing: bool = False,
    undo: Callable[[dict[str, Any]], None] | None = None,
) -> FileEdit:
    before = read_text(path)
    data = jsonfile.load(path, before)
    original = copy.deepcopy(data)
    change(data)
    if data == original:
        after = before
    elif removing and jsonfile.is_empty(data) and not existed_before(path):
        after = None
    else:
        after = jsonfile.dump(data, before)
    pristine = False
    if undo is not None and before is not None:
        probe = copy.deepcopy(original)
        undo(probe)
        pristine = probe == original
    return FileEdit(path, before, after, what, secret=secret, backup=pristine)


def text_edit(
    path: Path,
    after: str | None,
    what: str,
    *,
    secret: bool = False,
    removing: bool = False,
    undo: Callable[[str], str] | None = None,
) -> FileEdit:
    """A merged text file's new text; an emptied one is deleted if dose-mem created it.
    ``undo`` as for ``json_edit``, on the text."""
    before = read_text(path)
    if removing and after is not None and not after.strip() and not existed_before(path):
        after = None
    if before is None and after is not None and not after.strip():
        after = None
    pristine = undo is not None and before is not None and undo(before) == before
    return FileEdit(path, before, after, what, secret=secret, backup=pristine)


def owned(path: Path, text: str | None, what: str, *, secret: bool = False) -> FileEdit:
    """A file that is dose-mem's own: written whole, or deleted with ``text=None``."""
    return FileEdit(path, read_text(path), text, what, secret=secret, owned=True)


def sub(data: dict[str, Any], key: str, where: Path) -> dict[str, Any]:
    """``data[key]`` as an object, created when absent; ``ConnectError`` if it is not one."""
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConnectError(f"{where}: {key!r} is not an object; nothing was changed.")
    return value


def drop_empty(data: dict[str, Any], *keys: str) -> None:
    """Remove each of ``keys`` whose value is an empty object or list."""
    for key in keys:
        if key in data and isinstance(data[key], dict | list) and not data[key]:
            del data[key]
