"""OpenClaw: dose-mem's MCP server in OpenClaw's MCP registry.

Format, read in openclaw/openclaw: ``docs/cli/mcp.md`` ("OpenClaw as an MCP client
registry"): ``mcp.servers.<name>`` in the OpenClaw config, a stdio server being
``{"command", "args", "env"}`` (what ``openclaw mcp set <name> <json>`` writes); embedded
OpenClaw runs expose its tools. The config file is ``src/config/paths.ts``
``resolveCanonicalConfigPath`` (``homes.openclaw_config``).

What this covers: the agent can search and read memory (``memory_search``,
``memory_read``), ask for its dose (``memory_recall``) and report tasks (``task_update``)
when it decides to. What it does not: memory injected before every prompt, task reports
after each turn and the session push, which in OpenClaw take a native plugin
(``before_prompt_build``, ``agent_end``, ``session_end`` hooks, docs/plugins/hooks.md) with
its own manifest and install; dose-mem ships no such plugin yet (docs/integrations.md).

The config is JSON5; a file using JSON5 syntax (comments, trailing commas) is not
rewritten, and the error gives the ``openclaw mcp set`` command to run instead.
"""

from __future__ import annotations

import json
from typing import Any

from dose_mem.connect import homes
from dose_mem.connect.edits import drop_empty, json_edit, sub
from dose_mem.connect.files import read_text
from dose_mem.connect.jsonfile import load
from dose_mem.connect.model import ConnectError, Plan, Target

AGENT = "openclaw"
SCOPES = ("user",)
SERVER = "dose-mem"


def server_entry(env: dict[str, str]) -> dict[str, Any]:
    return {"command": "dose-mem", "args": ["mcp"], "env": env}


def connect(target: Target) -> Plan:
    if target.scope != "user":
        raise ConnectError("openclaw: only --scope user (OpenClaw has one config)")
    path = homes.openclaw_config(target.env, target.home)

    def add(data: dict[str, Any]) -> None:
        servers = sub(sub(data, "mcp", path), "servers", path)
        servers[SERVER] = server_entry(target.server_env())

    try:
        edit = json_edit(
            path, add, f"mcp.servers.{SERVER} (dose-mem mcp)", secret=True, undo=_remove
        )
    except ConnectError as exc:
        entry = json.dumps(server_entry(target.server_env("<token>")), separators=(",", ":"))
        raise ConnectError(f"{exc}\nOr run: openclaw mcp set {SERVER} '{entry}'") from None
    plan = Plan(AGENT, edits=[edit])
    plan.next_steps += [
        "Restart the OpenClaw gateway (or `openclaw mcp reload`); "
        f"`openclaw mcp probe {SERVER}` lists dose-mem's tools.",
        "OpenClaw gets the memory tools only: no memory before each prompt, no task reports "
        "after each turn, no session push (they need an OpenClaw plugin; docs/integrations.md).",
    ]
    return plan


def _remove(data: dict[str, Any]) -> None:
    mcp = data.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    if isinstance(servers, dict):
        servers.pop(SERVER, None)
        drop_empty(mcp, "servers")  # type: ignore[arg-type]
    drop_empty(data, "mcp")


def disconnect(target: Target) -> Plan:
    path = homes.openclaw_config(target.env, target.home)
    return Plan(AGENT, edits=[json_edit(path, _remove, f"mcp.servers.{SERVER}", removing=True)])


def current_token(target: Target) -> str | None:
    path = homes.openclaw_config(target.env, target.home)
    try:
        data = load(path, read_text(path))
    except ConnectError:
        return None
    value: Any = data
    for key in ("mcp", "servers", SERVER, "env", "DOSE_MEM_TOKEN"):
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else None
