"""``KEY=value`` files (Hermes' ``$HERMES_HOME/.env``), edited line by line.

Contract: ``set_keys`` gives each key one ``KEY=value`` line: the first line defining it
(``KEY=`` or ``export KEY=``) is replaced in place, later duplicates are dropped, a missing
key is appended at the end; every other line (comments, blank lines, other keys) is kept
byte for byte. ``remove_keys`` drops every line defining the keys and nothing else. Values
must not need quoting (URLs and tokens do not); ``set_keys`` refuses one that would.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_SAFE_VALUE = re.compile(r"[A-Za-z0-9_.:/@%+=,~-]*")


def _defines(line: str, key: str) -> bool:
    return re.match(rf"\s*(export\s+)?{re.escape(key)}\s*=", line) is not None


def set_keys(text: str | None, values: Mapping[str, str]) -> str:
    for key, value in values.items():
        if not _SAFE_VALUE.fullmatch(value):
            raise ValueError(f"{key}'s value would need quoting in a .env file")
    lines = (text or "").splitlines(keepends=True)
    placed: set[str] = set()
    out = []
    for line in lines:
        key = next((k for k in values if _defines(line, k)), None)
        if key is None:
            out.append(line)
        elif key not in placed:
            ending = "\n" if line.endswith("\n") else ""
            out.append(f"{key}={values[key]}{ending}")
            placed.add(key)
    missing = [k for k in values if k not in placed]
    if missing and out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    out.extend(f"{k}={values[k]}\n" for k in missing)
    return "".join(out)


def remove_keys(text: str | None, keys: Iterable[str]) -> str:
    keys = list(keys)
    lines = (text or "").splitlines(keepends=True)
    return "".join(line for line in lines if not any(_defines(line, k) for k in keys))


def get(text: str | None, key: str) -> str | None:
    """The value the last line defining ``key`` gives it (as dotenv reads), unquoted."""
    found = None
    for line in (text or "").splitlines():
        if _defines(line, key):
            found = line.split("=", 1)[1].strip().strip("'\"")
    return found
