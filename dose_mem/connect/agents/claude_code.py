"""Claude Code: hooks and env in settings.json, the MCP server beside them.

Formats (Claude Code docs, hooks and settings references; MCP scopes):
* ``settings.json``: ``env`` (applied to Claude Code's process, so hooks and MCP servers
  inherit it) and ``hooks``: event -> ``[{"matcher"?, "hooks": [{"type": "command",
  "command", "timeout"}]}]``, timeouts in seconds. dose-mem's one command serves
  ``UserPromptSubmit`` (recall), ``PostToolUse`` on Bash, ``Stop``, ``SubagentStop`` (task
  state), ``SessionEnd`` (task state and the transcript push, hence 35 s), and
  ``PreCompact`` and ``SessionStart`` (matcher ``compact|clear|resume``), which mark the
  session so its next recall gives again what a compaction took from the agent.
* user scope: ``$CLAUDE_CONFIG_DIR/settings.json`` (default ``~/.claude``) and
  ``mcpServers`` in the global ``.claude.json`` (what ``claude mcp add --scope user``
  writes: ``{"type": "stdio", "command", "args", "env"}``).
* project scope: ``.claude/settings.local.json`` in the current directory (Claude Code's
  uncommitted per-project settings; it gets the token) and ``.mcp.json`` there, which is
  meant to be committed, so its entry refers to ``${DOSE_MEM_TOKEN}`` (Claude Code
  expands ``${VAR}`` in .mcp.json from its environment, which the local settings' ``env``
  sets) and ``enabledMcpjsonServers`` in the local settings approves it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dose_mem.connect import homes, hookgroups
from dose_mem.connect.edits import drop_empty, json_edit, sub
from dose_mem.connect.files import read_text
from dose_mem.connect.jsonfile import load
from dose_mem.connect.model import Plan, Target

AGENT = "claude-code"
SCOPES = ("user", "project")
SERVER = "dose-mem"
COMMAND = "dose-mem hook claude-code"
# event -> (matcher, timeout in seconds)
EVENTS: dict[str, tuple[str | None, int]] = {
    "UserPromptSubmit": (None, 5),
    "PostToolUse": ("Bash", 5),
    "Stop": (None, 5),
    "SubagentStop": (None, 5),
    "SessionEnd": (None, 35),
    # a compaction, clear or resume: the next recall gives again what the agent lost
    # (recall_api/hooks.py RESET_EVENT, RESET_SOURCES; docs/read-path.md "Session-aware dose")
    "PreCompact": (None, 5),
    "SessionStart": ("compact|clear|resume", 5),
}
ENV_KEYS = ("DOSE_MEM_URL", "DOSE_MEM_TOKEN")


def _paths(target: Target) -> tuple[Path, Path]:
    if target.scope == "project":
        return target.cwd / ".claude" / "settings.local.json", target.cwd / ".mcp.json"
    return (
        homes.claude_dir(target.env, target.home) / "settings.json",
        homes.claude_global_file(target.env, target.home),
    )


def wanted_hooks() -> dict[str, dict[str, Any]]:
    return {
        event: hookgroups.group({"type": "command", "command": COMMAND, "timeout": t}, matcher)
        for event, (matcher, t) in EVENTS.items()
    }


def server_entry(target: Target) -> dict[str, Any]:
    token = "${DOSE_MEM_TOKEN}" if target.scope == "project" else None
    env = target.server_env(token)
    return {"type": "stdio", "command": "dose-mem", "args": ["mcp"], "env": env}


def _remove_settings(data: dict[str, Any]) -> None:
    env = data.get("env")
    if isinstance(env, dict):
        for key in ENV_KEYS:
            env.pop(key, None)
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        data["hooks"] = hookgroups.strip(hooks, AGENT)
    approved = data.get("enabledMcpjsonServers")
    if isinstance(approved, list) and SERVER in approved:
        approved.remove(SERVER)
    drop_empty(data, "env", "hooks", "enabledMcpjsonServers")


def _remove_server(data: dict[str, Any]) -> None:
    servers = data.get("mcpServers")
    if isinstance(servers, dict):
        servers.pop(SERVER, None)
    drop_empty(data, "mcpServers")


def connect(target: Target) -> Plan:
    settings_path, mcp_path = _paths(target)
    project = target.scope == "project"

    def add_settings(data: dict[str, Any]) -> None:
        env = sub(data, "env", settings_path)
        env.update({"DOSE_MEM_URL": target.url, "DOSE_MEM_TOKEN": target.token})
        data["hooks"] = hookgroups.merge(sub(data, "hooks", settings_path), wanted_hooks(), AGENT)
        if project:
            approved = data.setdefault("enabledMcpjsonServers", [])
            if isinstance(approved, list) and SERVER not in approved:
                approved.append(SERVER)

    def add_server(data: dict[str, Any]) -> None:
        sub(data, "mcpServers", mcp_path)[SERVER] = server_entry(target)

    what = f"hooks {', '.join(EVENTS)}; env {', '.join(ENV_KEYS)}"
    if project:
        what += "; enabledMcpjsonServers"
    plan = Plan(AGENT)
    plan.edits += [
        json_edit(settings_path, add_settings, what, secret=True, undo=_remove_settings),
        json_edit(
            mcp_path,
            add_server,
            f"mcpServers.{SERVER} (dose-mem mcp)",
            secret=not project,
            undo=_remove_server,
        ),
    ]
    plan.next_steps.append(
        "Start a new Claude Code session (hooks and MCP servers load at start); "
        "`/hooks` and `/mcp` list dose-mem."
    )
    if project:
        plan.next_steps.append(
            f"Keep {settings_path} out of version control (it holds the token); "
            f"{mcp_path} holds none and may be committed."
        )
    return plan


def disconnect(target: Target) -> Plan:
    settings_path, mcp_path = _paths(target)
    plan = Plan(AGENT)
    plan.edits += [
        json_edit(settings_path, _remove_settings, "dose-mem hooks and env", removing=True),
        json_edit(mcp_path, _remove_server, f"mcpServers.{SERVER}", removing=True),
    ]
    return plan


def current_token(target: Target) -> str | None:
    settings_path = _paths(target)[0]
    env = load(settings_path, read_text(settings_path)).get("env")
    if isinstance(env, dict) and isinstance(env.get("DOSE_MEM_TOKEN"), str):
        return env["DOSE_MEM_TOKEN"]
    return None
