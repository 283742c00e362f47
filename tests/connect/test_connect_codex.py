"""`dose-mem connect codex`: config.toml (MCP server, notify), hooks.json and the env file,
merged with the user's, and read back by the real Codex (0.171.0, installed from npm)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

from dose_mem.connect.files import BACKUP_SUFFIX
from dose_mem.connect.run import report
from evaluation.agents.codex import codex_command
from tests.connect.sandbox import TOKEN, Box, mode, write
from tests.integrations.codex_app_server import AppServer

USER_CONFIG = """# my Codex settings
model = "gpt-5.5"  # the big one
approval_policy = "on-request"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

[profiles.fast]
model = "gpt-5.5-mini"   # cheap
"""

USER_HOOKS = """{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit",
        "hooks": [
          {
            "type": "command",
            "command": "ruff format --quiet"
          }
        ]
      }
    ]
  }
}
"""


def _codex_hooks(box: Box) -> dict[str, Any]:
    """Codex's own view of the hooks (app-server ``hooks/list``)."""
    server = AppServer(codex_command(), box.env | {"PATH": "/usr/bin:/bin"}, box.cwd)
    try:
        server.start()
        return server.request("hooks/list", {"cwds": [str(box.cwd)]})["data"][0]
    finally:
        server.close()


def test_an_empty_codex_home_gets_server_notify_hooks_and_the_env_file(box: Box) -> None:
    result = box.connect("codex")
    home = box.root / "codex"
    config = tomllib.loads((home / "config.toml").read_text())
    script = home / "dose-mem-env.sh"
    assert config["mcp_servers"]["dose-mem"] == {
        "command": "dose-mem",
        "args": ["mcp"],
        "env": {"DOSE_MEM_URL": "http://127.0.0.1:8765", "DOSE_MEM_TOKEN": TOKEN},
        "startup_timeout_sec": 30,
        "default_tools_approval_mode": "approve",
    }
    assert config["notify"] == ["sh", str(script), "notify", "codex"]
    assert "features" not in config  # no deprecated codex_hooks flag: hooks are on by default
    hooks = json.loads((home / "hooks.json").read_text())
    assert list(hooks) == ["hooks"]
    command = f"sh {script} hook codex"
    assert hooks["hooks"] == {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": command, "timeout": 5}]}],
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 5}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": command, "timeout": 5}]}],
        "PreCompact": [{"hooks": [{"type": "command", "command": command, "timeout": 5}]}],
        "SessionStart": [
            {
                "matcher": "compact|clear|resume",
                "hooks": [{"type": "command", "command": command, "timeout": 5}],
            }
        ],
    }
    assert f"export DOSE_MEM_TOKEN={TOKEN}\n" in script.read_text()
    assert mode(script) == 0o600 and mode(home / "config.toml") == 0o600
    assert any("/hooks" in step for step in result.plan.next_steps)  # the trust step

    first = box.files()
    assert box.connect("codex").written == [] and box.files() == first
    box.disconnect("codex")
    assert box.files(backups=True) == {}


def test_the_users_config_and_hooks_are_kept_and_restored(box: Box) -> None:
    home = box.root / "codex"
    write(home / "config.toml", USER_CONFIG)
    write(home / "hooks.json", USER_HOOKS)
    before = box.files()

    box.connect("codex")
    text = (home / "config.toml").read_text()
    assert text.startswith(USER_CONFIG.split("[mcp_servers.context7]")[0].rstrip("\n"))
    assert "# cheap" in text and "# the big one" in text  # comments survive
    config = tomllib.loads(text)
    assert config["model"] == "gpt-5.5" and config["profiles"]["fast"]["model"] == "gpt-5.5-mini"
    assert set(config["mcp_servers"]) == {"context7", "dose-mem"}
    hooks = json.loads((home / "hooks.json").read_text())["hooks"]
    assert hooks["PostToolUse"][0]["hooks"][0]["command"] == "ruff format --quiet"
    assert hooks["PostToolUse"][1]["matcher"] == "Bash"

    connected = box.files()
    box.connect("codex")
    assert box.files() == connected
    assert (
        box.files(backups=True)[f"codex/config.toml{BACKUP_SUFFIX}"] == before["codex/config.toml"]
    )

    box.disconnect("codex")
    after = box.files()
    assert after["codex/config.toml"] == before["codex/config.toml"]  # byte for byte
    assert after["codex/hooks.json"] == before["codex/hooks.json"]
    assert set(after) == set(before)


def test_another_notify_program_is_left_alone_with_a_warning(box: Box) -> None:
    home = box.root / "codex"
    theirs = 'notify = ["terminal-notifier", "-title", "Codex"]\n'
    write(home / "config.toml", theirs)
    result = box.connect("codex")
    config = tomllib.loads((home / "config.toml").read_text())
    assert config["notify"] == ["terminal-notifier", "-title", "Codex"]
    assert any("notify" in warning for warning in result.plan.warnings)
    box.disconnect("codex")
    assert (
        home / "config.toml"
    ).read_text() == 'notify = ["terminal-notifier", "-title", "Codex"]\n'


def test_the_readme_notify_is_replaced_by_the_one_that_carries_the_token(box: Box) -> None:
    home = box.root / "codex"
    write(home / "config.toml", 'notify = ["dose-mem", "notify", "codex"]\n')
    box.connect("codex")
    config = tomllib.loads((home / "config.toml").read_text())
    assert config["notify"] == ["sh", str(home / "dose-mem-env.sh"), "notify", "codex"]


def test_dry_run_changes_nothing(box: Box) -> None:
    write(box.root / "codex" / "config.toml", USER_CONFIG)
    before = box.files(backups=True)
    text = "\n".join(report(box.connect("codex", dry_run=True)))
    assert box.files(backups=True) == before
    assert "+[mcp_servers.dose-mem]" in text and TOKEN not in text


def test_the_real_codex_reads_the_server_and_the_hooks(box: Box) -> None:
    home = box.root / "codex"
    write(home / "hooks.json", USER_HOOKS)
    box.connect("codex")
    listed = subprocess.run(
        [*codex_command(), "mcp", "list", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=box.env,
        check=True,
    )
    [server] = [s for s in json.loads(listed.stdout) if s["name"] == "dose-mem"]
    assert server["transport"]["command"] == "dose-mem"
    assert server["transport"]["env"]["DOSE_MEM_TOKEN"] == TOKEN

    seen = _codex_hooks(box)
    assert seen["warnings"] == [] and seen["errors"] == []
    ours = [h for h in seen["hooks"] if h["command"] == f"sh {home / 'dose-mem-env.sh'} hook codex"]
    assert sorted(h["eventName"] for h in ours) == [
        "postToolUse",
        "preCompact",
        "sessionStart",
        "stop",
        "userPromptSubmit",
    ]
    assert all(h["trustStatus"] == "untrusted" for h in ours)  # hence the printed trust step
    assert any(h["command"] == "ruff format --quiet" for h in seen["hooks"])


def test_project_scope_is_refused(box: Box) -> None:
    from dose_mem.connect.model import ConnectError

    try:
        box.connect("codex", scope="project")
    except ConnectError as exc:
        assert "--scope" in str(exc)
    else:
        raise AssertionError("expected ConnectError")
    assert not Path(box.env["CODEX_HOME"]).exists()


def test_codex_trust_records_of_the_hooks_go_with_them(box: Box) -> None:
    """Trusting a hook with /hooks makes Codex write ``[hooks.state."<key>"]`` into
    config.toml (the key as app-server hooks/list reports it); disconnect removes the
    records of dose-mem's hooks and keeps the user's."""
    home = box.root / "codex"
    hooks_file = write(home / "hooks.json", USER_HOOKS)
    box.connect("codex")
    records = "".join(
        f'\n[hooks.state."{hooks_file}:{key}"]\ntrusted_hash = "sha256:{n}"\n'
        for n, key in enumerate(["post_tool_use:0:0", "post_tool_use:1:0", "stop:0:0"])
    )
    with (home / "config.toml").open("a") as f:
        f.write(records)
    box.disconnect("codex")
    state = tomllib.loads((home / "config.toml").read_text())["hooks"]["state"]
    assert state == {f"{hooks_file}:post_tool_use:0:0": {"trusted_hash": "sha256:0"}}
    assert "mcp_servers" not in tomllib.loads((home / "config.toml").read_text())
