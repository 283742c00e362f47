"""Codex: the MCP server and notify in config.toml, hooks in hooks.json, and a small env
file the hooks and notify run through.

Formats, read in openai/codex (codex-rs):
* ``config.toml`` ``[mcp_servers.<name>]`` with ``command``, ``args``, ``env``,
  ``startup_timeout_sec`` and ``default_tools_approval_mode = "approve"`` (config/src/
  mcp_types.rs; checked in the real ``codex exec``); ``notify``, one argv array run after
  each turn with the event JSON appended (hooks/src/legacy_notify.rs) -- a single value,
  so another program already there is left alone with a warning.
* ``hooks.json`` ``{"hooks": {event: [{"matcher"?, "hooks": [{"type": "command",
  "command", "timeout"}]}]}}`` (config/src/hook_config.rs ``HooksFile``, which newer
  versions parse with ``deny_unknown_fields``: only ``hooks`` is written). Hooks are a
  stable feature on by default (features/src/lib.rs: ``CodexHooks``, key ``hooks``,
  ``default_enabled: true``); the deprecated ``[features] codex_hooks`` is not written.
  Events used: ``UserPromptSubmit`` (recall, answered with Claude Code's
  ``hookSpecificOutput.additionalContext``, which Codex reads: events/user_prompt_submit.rs),
  ``PostToolUse`` (Codex names its shell tool ``Bash``: events/post_tool_use.rs),
  ``Stop``, and ``PreCompact`` and ``SessionStart`` (matcher ``compact|clear|resume``),
  which mark the session so its next recall gives again what a compaction took. Codex
  lists new hooks as untrusted until they are reviewed with ``/hooks``; the report says so.
* Hooks and notify get Codex's own environment and have no env setting of their own, so
  they run ``sh $CODEX_HOME/dose-mem-env.sh ...``, which exports DOSE_MEM_URL and
  DOSE_MEM_TOKEN and execs dose-mem (mode 0600; a new token changes only this file, so
  the reviewed hooks stay trusted). The MCP server gets them in its ``env``.

User scope only: a project's ``.codex/config.toml`` would put the token in the repository.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from pathlib import Path, PurePath
from typing import Any

from dose_mem.connect import homes, hookgroups
from dose_mem.connect.edits import drop_empty, json_edit, owned, text_edit
from dose_mem.connect.files import backup_path, read_text
from dose_mem.connect.model import ConnectError, Plan, Target

AGENT = "codex"
SCOPES = ("user",)
SERVER = "dose-mem"
ENV_SCRIPT = hookgroups.CODEX_ENV_SCRIPT
# event -> matcher
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": None,
    "PostToolUse": "Bash",
    "Stop": None,
    # a compaction or clear: the next recall gives again what the agent lost (0.171.0's
    # app-server lists both, as preCompact and sessionStart; recall_api/hooks.py)
    "PreCompact": None,
    "SessionStart": "compact|clear|resume",
}
HOOK_TIMEOUT = 5
STARTUP_TIMEOUT = 30

TRUST_STEP = (
    "In Codex, run `/hooks` and trust the dose-mem hooks: Codex lists hooks from "
    "~/.codex/hooks.json as untrusted, and does not run them, until they are reviewed."
)


def _paths(target: Target) -> tuple[Path, Path, Path]:
    home = homes.codex_home(target.env, target.home)
    return home / "config.toml", home / "hooks.json", home / ENV_SCRIPT


def env_script(url: str, token: str) -> str:
    return (
        "# Written by `dose-mem connect codex`; `dose-mem disconnect codex` removes it.\n"
        "# Codex runs its hooks and notify program with its own environment, so they reach\n"
        "# dose-mem through this file: the service's address and Codex's token (mode 0600).\n"
        f"export DOSE_MEM_URL={shlex.quote(url)}\n"
        f"export DOSE_MEM_TOKEN={shlex.quote(token)}\n"
        'exec dose-mem "$@"\n'
    )


def notify_argv(script: Path) -> list[str]:
    return ["sh", str(script), "notify", "codex"]


def is_ours_notify(argv: object) -> bool:
    """dose-mem's notify program, however it was written (README, remote client, connect)."""
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return False
    starts = [0, 1] if argv and hookgroups.INTERPRETER.fullmatch(PurePath(argv[0]).name) else [0]
    for i in starts:
        name = PurePath(argv[i]).name if i < len(argv) else ""
        if name in ("dose-mem", ENV_SCRIPT) and argv[i + 1 : i + 3] == ["notify", "codex"]:
            return True
        if name == "dose_mem_hook.py" and argv[i + 1 : i + 2] == ["notify-codex"]:
            return True
    return False


def wanted_hooks(script: Path) -> dict[str, dict[str, Any]]:
    command = f"sh {shlex.quote(str(script))} hook codex"
    handler = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    return {event: hookgroups.group(handler, matcher) for event, matcher in EVENTS.items()}


def server_table(env: dict[str, str]) -> dict[str, Any]:
    return {
        "command": "dose-mem",
        "args": ["mcp"],
        "env": env,
        "startup_timeout_sec": STARTUP_TIMEOUT,
        # The server's tools read memory and report tasks; without this, ``codex exec``
        # (approval policy ``never``) refuses every call ("MCP tool call requires
        # approval") and an interactive session asks before each memory lookup.
        "default_tools_approval_mode": "approve",
    }


def _parse(path: Path, text: str | None) -> Any:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text or "")
    except TOMLKitError as exc:
        raise ConnectError(f"{path} is not valid TOML ({exc}); nothing was changed.") from None


def _toml_connect(
    path: Path, text: str | None, env: dict[str, str], script: Path
) -> tuple[str | None, list[str]]:
    """config.toml's new text and the warnings (a notify program of the user's)."""
    import tomlkit

    doc = _parse(path, text)
    warnings: list[str] = []
    changed = False
    servers = doc.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise ConnectError(f"{path}: mcp_servers is not a table; nothing was changed.")
    wanted = server_table(env)
    current = servers.get(SERVER) if servers is not None else None
    if current is None or current.unwrap() != wanted:
        table = tomlkit.table()
        for key, value in wanted.items():
            if isinstance(value, dict):
                inline = tomlkit.inline_table()
                inline.update(value)
                table[key] = inline
            else:
                table[key] = value
        table.add(tomlkit.nl())
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            servers[SERVER] = table
            doc["mcp_servers"] = servers
        else:
            servers[SERVER] = table
        changed = True
    notify = doc.get("notify")
    ours = notify_argv(script)
    if notify is None or (is_ours_notify(notify.unwrap()) and notify.unwrap() != ours):
        doc["notify"] = ours
        changed = True
    elif not is_ours_notify(notify.unwrap()):
        warnings.append(
            f"{path} already has notify = {notify.unwrap()!r}; Codex runs one notify program, "
            "so it was left as it is. The dose-mem hooks still report task state; to have "
            f"dose-mem's notify too, call `{shlex.join(ours)} <event json>` from your program."
        )
    return (tomlkit.dumps(doc) if changed else text), warnings


def trust_keys(hooks_file: Path) -> list[str]:
    """The keys under which Codex records its trust of dose-mem's hooks in config.toml
    (``[hooks.state."<hooks.json>:<event_in_snake_case>:<group>:<handler>"]``, as its
    ``hooks/list`` reports them), read from the hooks file as it is now."""
    try:
        data = json.loads(read_text(hooks_file) or "{}")
    except ValueError:
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return []
    keys = []
    for event, groups in hooks.items():
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and hookgroups.is_ours(handler.get("command"), AGENT):
                    keys.append(f"{hooks_file}:{snake}:{g}:{h}")
    return keys


def _toml_disconnect(path: Path, text: str | None, trusted: list[str] | None = None) -> str | None:
    """config.toml without dose-mem's server and notify, and without Codex's trust records
    of the hooks ``trusted`` names (they would outlive the hooks)."""
    import tomlkit

    if text is None:
        return None
    doc = _parse(path, text)
    changed = False
    servers = doc.get("mcp_servers")
    if isinstance(servers, dict) and SERVER in servers:
        del servers[SERVER]
        if not servers:
            del doc["mcp_servers"]
        changed = True
    notify = doc.get("notify")
    if notify is not None and is_ours_notify(notify.unwrap()):
        del doc["notify"]
        changed = True
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if isinstance(state, dict):
        for key in trusted or []:
            if key in state:
                del state[key]
                changed = True
        if not state:
            del hooks["state"]  # type: ignore[union-attr]
        if not hooks:
            del doc["hooks"]
    return tomlkit.dumps(doc) if changed else text


def _remove_hooks(data: dict[str, Any]) -> None:
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        data["hooks"] = hookgroups.strip(hooks, AGENT)
    drop_empty(data, "hooks")


def connect(target: Target) -> Plan:
    if target.scope != "user":
        raise ConnectError("codex: only --scope user (a project's .codex/ would hold the token)")
    config, hooks_file, script = _paths(target)
    toml_text, warnings = _toml_connect(config, read_text(config), target.server_env(), script)

    def add_hooks(data: dict[str, Any]) -> None:
        hooks = data.get("hooks", {})
        if not isinstance(hooks, dict):
            raise ConnectError(f"{hooks_file}: 'hooks' is not an object; nothing was changed.")
        data["hooks"] = hookgroups.merge(hooks, wanted_hooks(script), AGENT)

    plan = Plan(AGENT, warnings=warnings)
    plan.edits += [
        owned(script, env_script(target.url, target.token), "env for hooks, notify", secret=True),
        text_edit(
            config,
            toml_text,
            f"[mcp_servers.{SERVER}] (dose-mem mcp); notify",
            secret=True,
            undo=lambda text: _toml_disconnect(config, text) or "",
        ),
        json_edit(hooks_file, add_hooks, "hooks " + ", ".join(EVENTS), undo=_remove_hooks),
    ]
    plan.next_steps += [TRUST_STEP, "Start a new Codex session (config is read at start)."]
    return plan


def _restored(config: Path, script: Path, trusted: list[str]) -> str | None:
    """config.toml without dose-mem's entries. When the file is exactly what connect made of
    the user's file (its ``.dose-mem.bak``), that file comes back byte for byte; else the
    entries are taken out of the current text (tomlkit may leave a blank line behind)."""
    text = read_text(config)
    removed = _toml_disconnect(config, text, trusted)
    kept = read_text(backup_path(config))
    servers = _parse(config, text).unwrap().get("mcp_servers") if text else None
    server = servers.get(SERVER) if isinstance(servers, dict) else None
    env = server.get("env") if isinstance(server, dict) else None
    if kept is not None and isinstance(env, dict):
        with contextlib.suppress(ConnectError):
            if _toml_connect(config, kept, env, script)[0] == text:
                return kept
    if removed is None or removed == text:
        return removed
    # blank lines tomlkit leaves at the end where dose-mem's tables were
    ending = len(kept) - len(kept.rstrip("\n")) if kept else 1
    return removed.rstrip("\n") + "\n" * ending if removed.strip() else ""


def disconnect(target: Target) -> Plan:
    config, hooks_file, script = _paths(target)
    plan = Plan(AGENT)
    plan.edits += [
        text_edit(
            config,
            _restored(config, script, trust_keys(hooks_file)),
            f"[mcp_servers.{SERVER}]; notify; Codex's trust of the hooks",
            removing=True,
        ),
        json_edit(hooks_file, _remove_hooks, "dose-mem hooks", removing=True),
        owned(script, None, "env for hooks, notify"),
    ]
    return plan


def current_token(target: Target) -> str | None:
    script = _paths(target)[2]
    for line in (read_text(script) or "").splitlines():
        if line.startswith("export DOSE_MEM_TOKEN="):
            words = shlex.split(line.split("=", 1)[1])
            return words[0] if words else None
    return None
