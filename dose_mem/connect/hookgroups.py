"""The ``hooks`` object Claude Code's settings.json and Codex's hooks.json share:
event name -> list of matcher groups ``{"matcher"?: str, "hooks": [handler, ...]}``, a
handler being ``{"type": "command", "command": str, "timeout"?: int}``.

dose-mem's handlers are recognised by their command, never by position: ``dose-mem hook
AGENT`` (any path to dose-mem, extra options after it), the Codex wrapper ``sh
.../dose-mem-env.sh hook AGENT``, or the remote client ``python3 .../dose_mem_hook.py
AGENT``, optionally after ``VAR=value`` assignments (an interpreter may come first: sh,
bash, zsh, dash, env, python*). So a set-up made by hand from the
README is taken over rather than doubled, and the user's own handlers are never touched.

Contract: ``merge`` leaves exactly one dose-mem handler per wanted event, in a group of
its own appended after the user's groups (an existing canonical group is left in place,
so merging twice changes nothing); ``strip`` removes every dose-mem handler, then the
groups and events it leaves empty.
"""

from __future__ import annotations

import copy
import re
import shlex
from pathlib import PurePath
from typing import Any

CODEX_ENV_SCRIPT = "dose-mem-env.sh"
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
INTERPRETER = re.compile(r"(?:env|sh|bash|zsh|dash|python[0-9.]*)")


def is_ours(command: object, agent: str) -> bool:
    """Whether a hook command is dose-mem's handler for ``agent``."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    while words and _ASSIGNMENT.fullmatch(words[0]):
        words.pop(0)
    starts = [0]
    if words and INTERPRETER.fullmatch(PurePath(words[0]).name):
        starts.append(1)  # an interpreter and its script
    for i in starts:
        name = PurePath(words[i]).name if i < len(words) else ""
        if name in ("dose-mem", CODEX_ENV_SCRIPT) and words[i + 1 : i + 3] == ["hook", agent]:
            return True
        if name == "dose_mem_hook.py" and words[i + 1 : i + 2] == [agent]:
            return True
    return False


def _handler_is_ours(handler: object, agent: str) -> bool:
    return isinstance(handler, dict) and is_ours(handler.get("command"), agent)


def _strip_groups(groups: list[Any], agent: str) -> list[Any]:
    kept = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            kept.append(group)
            continue
        mine = [h for h in handlers if _handler_is_ours(h, agent)]
        if not mine:
            kept.append(group)
            continue
        rest = [h for h in handlers if not _handler_is_ours(h, agent)]
        if rest:
            kept.append({**group, "hooks": rest})
    return kept


def _count_ours(groups: list[Any], agent: str) -> int:
    return sum(
        1
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
        if _handler_is_ours(handler, agent)
    )


def group(handler: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    """A matcher group holding one handler (``matcher`` first, as the agents write it)."""
    return {"matcher": matcher, "hooks": [handler]} if matcher else {"hooks": [handler]}


def merge(hooks: dict[str, Any], wanted: dict[str, dict[str, Any]], agent: str) -> dict[str, Any]:
    """``hooks`` with ``wanted`` (event -> the group to have) in it; a new object."""
    result = copy.deepcopy(hooks)
    for event, canonical in wanted.items():
        groups = result.get(event)
        groups = list(groups) if isinstance(groups, list) else []
        if canonical in groups and _count_ours(groups, agent) == 1:
            continue
        result[event] = [*_strip_groups(groups, agent), copy.deepcopy(canonical)]
    return result


def strip(hooks: dict[str, Any], agent: str) -> dict[str, Any]:
    """``hooks`` without any dose-mem handler for ``agent``; a new object."""
    result = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            result[event] = copy.deepcopy(groups)
            continue
        kept = _strip_groups(copy.deepcopy(groups), agent)
        if kept or not groups:
            result[event] = kept
    return result
