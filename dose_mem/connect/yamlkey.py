"""``memory.provider`` in Hermes' ``config.yaml``, edited as one line.

Why not a YAML library: PyYAML drops comments, and ruamel.yaml's round trip (in the venv
only through Prefect) re-indents sequences, drops quotes and re-wraps long lines. Here
only the ``provider:`` line directly under the top-level ``memory:`` block is replaced,
inserted (first in the block) or removed, and the block or key is appended when absent;
every other byte stays. Each result is parsed (PyYAML) and must equal the old document
with just that key changed, else ``ConnectError`` and nothing is written: a flow-style
``memory: {...}`` or a quoted key is left for the user to edit.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import yaml

from dose_mem.connect.model import ConnectError

_HEADER = re.compile(r"memory[ \t]*:[ \t]*(#.*)?$")
_INLINE = re.compile(r"memory[ \t]*:[ \t]*[^#\s]")
_PROVIDER = re.compile(r"(?P<indent>[ \t]+)provider[ \t]*:")

_HELP = "set `memory: {provider: dose-mem}` in it by hand"


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise ConnectError(f"{where} is not valid YAML ({exc}); nothing was changed.") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConnectError(f"{where} does not hold a mapping; nothing was changed.")
    return data


def _content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _top_level(line: str) -> bool:
    return _content(line) and not line[0].isspace()


def _block(lines: list[str], where: str) -> tuple[int, int] | None:
    """(header index, end index) of the top-level ``memory:`` block mapping, or None."""
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if _INLINE.match(body):
            raise ConnectError(f"{where}: `memory:` is written inline; {_HELP}.")
        if _HEADER.match(body):
            tops = (j for j in range(i + 1, len(lines)) if _top_level(lines[j]))
            end = next(tops, len(lines))
            return i, end
    return None


def _child_indent(lines: list[str], start: int, end: int) -> str | None:
    for line in lines[start + 1 : end]:
        if _content(line):
            return line[: len(line) - len(line.lstrip())]
    return None


def _provider_line(lines: list[str], start: int, end: int) -> int | None:
    indent = _child_indent(lines, start, end)
    for j in range(start + 1, end):
        found = _PROVIDER.match(lines[j])
        if found and found.group("indent") == indent:
            return j
    return None


def _value(line: str, where: str) -> Any:
    try:
        parsed = yaml.safe_load(line.strip())
    except yaml.YAMLError:
        raise ConnectError(f"{where}: memory.provider is not a one-line value; {_HELP}.") from None
    return parsed.get("provider") if isinstance(parsed, dict) else None


def _eol(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n"


def _check(new_text: str, expected: dict[str, Any], where: str) -> str:
    if _parse(new_text, where) != expected:
        raise ConnectError(f"{where}: could not change memory.provider safely; {_HELP}.")
    return new_text


def get_provider(text: str | None) -> Any:
    """memory.provider as the file gives it (None when unset or unreadable)."""
    try:
        data = yaml.safe_load(text or "") or {}
    except yaml.YAMLError:
        return None
    memory = data.get("memory") if isinstance(data, dict) else None
    return memory.get("provider") if isinstance(memory, dict) else None


def set_provider(text: str | None, name: str, where: str) -> tuple[str, str | None]:
    """``(new text, replaced line)``: the line of another provider that was replaced (to
    restore on disconnect), or None when there was none."""
    text = text or ""
    old = _parse(text, where)
    expected = copy.deepcopy(old)
    if not isinstance(expected.get("memory"), dict):
        expected["memory"] = {}
    expected["memory"]["provider"] = name
    lines = text.splitlines(keepends=True)
    block = _block(lines, where)
    replaced = None
    if block is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines += ["memory:\n", f"  provider: {name}\n"]
    else:
        start, end = block
        j = _provider_line(lines, start, end)
        if j is not None:
            if _value(lines[j], where) == name:
                return text, None
            replaced = lines[j]
            indent = _PROVIDER.match(lines[j]).group("indent")  # type: ignore[union-attr]
            lines[j] = f"{indent}provider: {name}{_eol(lines[j])}"
        else:
            indent = _child_indent(lines, start, end) or "  "
            lines.insert(start + 1, f"{indent}provider: {name}{_eol(lines[start])}")
    return _check("".join(lines), expected, where), replaced


def unset_provider(text: str | None, name: str, restore: str | None, where: str) -> str:
    """``text`` without dose-mem as memory.provider: the line ``restore`` put back when
    given, else the line removed (and the ``memory:`` header too if nothing is left under
    it). Unchanged when the provider is not ``name``."""
    text = text or ""
    lines = text.splitlines(keepends=True)
    block = _block(lines, where)
    if block is None:
        return text
    start, end = block
    j = _provider_line(lines, start, end)
    if j is None or _value(lines[j], where) != name:
        return text
    expected = copy.deepcopy(_parse(text, where))
    if restore is not None:
        lines[j] = restore if restore.endswith("\n") else restore + _eol(lines[j])
        expected["memory"]["provider"] = _value(restore, where)
    else:
        del lines[j]
        del expected["memory"]["provider"]
        if not any(_content(line) for line in lines[start + 1 : end - 1]):
            del lines[start]
            if not expected["memory"]:
                del expected["memory"]
    return _check("".join(lines), expected, where)
