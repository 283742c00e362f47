"""Where each agent keeps its configuration, found the way the agent itself finds it.

Each function takes the environment and the user's home directory, so a test points an
agent at a temporary directory with the agent's own variable:

* Claude Code: ``CLAUDE_CONFIG_DIR`` or ``~/.claude`` (settings.json); its global file
  ``.claude.json`` lives in ``CLAUDE_CONFIG_DIR`` when that is set, else in ``~``, unless
  a legacy ``<config dir>/.config.json`` exists (Claude Code's ``getGlobalClaudeFile``).
* Codex: ``CODEX_HOME`` or ``~/.codex``.
* Hermes Agent: ``HERMES_HOME`` or ``~/.hermes`` (``hermes_constants.get_hermes_home``).
* Pi: ``PI_CODING_AGENT_DIR`` or ``~/.pi/agent`` (``getAgentDir`` in its config.js).
* OpenClaw: ``OPENCLAW_CONFIG_PATH``, else ``$OPENCLAW_STATE_DIR/openclaw.json``, else
  ``~/.openclaw/openclaw.json`` with ``OPENCLAW_HOME`` standing in for ``~``
  (openclaw ``src/config/paths.ts``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def _dir(env: Mapping[str, str], name: str, default: Path) -> Path:
    value = env.get(name, "").strip()
    return Path(value).expanduser() if value else default


def claude_dir(env: Mapping[str, str], home: Path) -> Path:
    return _dir(env, "CLAUDE_CONFIG_DIR", home / ".claude")


def claude_global_file(env: Mapping[str, str], home: Path) -> Path:
    legacy = claude_dir(env, home) / ".config.json"
    if legacy.exists():
        return legacy
    return _dir(env, "CLAUDE_CONFIG_DIR", home) / ".claude.json"


def codex_home(env: Mapping[str, str], home: Path) -> Path:
    return _dir(env, "CODEX_HOME", home / ".codex")


def hermes_home(env: Mapping[str, str], home: Path) -> Path:
    return _dir(env, "HERMES_HOME", home / ".hermes")


def pi_agent_dir(env: Mapping[str, str], home: Path) -> Path:
    return _dir(env, "PI_CODING_AGENT_DIR", home / ".pi" / "agent")


def openclaw_config(env: Mapping[str, str], home: Path) -> Path:
    explicit = env.get("OPENCLAW_CONFIG_PATH", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    user_home = _dir(env, "OPENCLAW_HOME", home)
    return _dir(env, "OPENCLAW_STATE_DIR", user_home / ".openclaw") / "openclaw.json"
