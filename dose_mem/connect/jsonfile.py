"""JSON config files, read and written back in their own indentation.

Contract: ``load`` gives the top-level object (``{}`` for an absent or blank file) and
raises ``ConnectError`` naming the file for anything that is not a JSON object (JSON5
comments included: nothing is rewritten then). ``dump`` writes with the indentation the
file already used (2 spaces for a new one), keys in their order, non-ASCII as is, and a
final newline if the file had one (a new file gets one); so a file the agent wrote itself
(``JSON.stringify(v, null, 2)``) comes back byte for byte apart from the keys dose-mem
adds. A compact one-line file comes back indented.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dose_mem.connect.model import ConnectError

_INDENT = re.compile(r"^[{\[][ \t]*\r?\n([ \t]+)\S", re.MULTILINE)


def load(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConnectError(
            f"{path} is not plain JSON ({exc}); nothing was changed. Fix or convert it, "
            "or add the entry by hand (docs/integrations.md)."
        ) from None
    if not isinstance(data, dict):
        raise ConnectError(f"{path} does not hold a JSON object; nothing was changed.")
    return data


def dump(data: dict[str, Any], like: str | None) -> str:
    """``data`` as JSON text in the style of ``like`` (the file's previous text)."""
    indent: str | int = 2
    if like:
        found = _INDENT.search(like.lstrip())
        if found:
            indent = found.group(1)
    ending = "" if like and not like.endswith("\n") else "\n"
    return json.dumps(data, indent=indent, ensure_ascii=False) + ending


def is_empty(data: dict[str, Any]) -> bool:
    """Nothing left but empty containers."""
    return all(isinstance(v, dict | list) and not v for v in data.values())
