"""One module per agent, each with the same four names:

* ``SCOPES``: the ``--scope`` values it supports;
* ``connect(target) -> Plan`` and ``disconnect(target) -> Plan``: what to write or take
  out, read from disk but not written (``dose_mem.connect.run`` applies it);
* ``current_token(target) -> str | None``: the token its set-up already holds.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

_MODULES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "hermes": "hermes",
    "pi": "pi",
    "openclaw": "openclaw",
}


def module(agent: str) -> ModuleType:
    """The module for ``agent`` (KeyError for an unknown one)."""
    return import_module(f"dose_mem.connect.agents.{_MODULES[agent]}")
