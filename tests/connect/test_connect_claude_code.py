"""`dose-mem connect claude-code`: settings.json hooks and env, the MCP entry, both scopes."""

from __future__ import annotations

import json
from pathlib import Path

from dose_mem.connect.files import BACKUP_SUFFIX
from tests.connect.sandbox import OTHER_TOKEN, TOKEN, Box, mode, write

COMMAND = "dose-mem hook claude-code"
EVENTS = {"UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop", "SessionEnd", "PreCompact"}
EVENTS |= {"SessionStart"}  # matcher compact|clear|resume: a context reset

USER_SETTINGS = """{
  "permissions": {
    "allow": ["Bash(git status)"]
  },
  "env": {
    "ANTHROPIC_MODEL": "claude-opus-4-5"
  },
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "lint-guard", "timeout": 3}]}
    ],
    "UserPromptSubmit": [
      {"hooks": [{"type": "command", "command": "~/bin/prompt-log.sh"}]}
    ]
  },
  "model": "opus"
}
"""

# As Claude Code writes it: JSON.stringify(config, null, 2), no final newline.
USER_GLOBAL = json.dumps(
    {
        "numStartups": 42,
        "mcpServers": {
            "github": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {},
            }
        },
        "projects": {"/home/me/code/x": {"allowedTools": [], "note": "café ✓"}},
    },
    indent=2,
    ensure_ascii=False,
)


def _ours(settings: dict, event: str) -> list[dict]:
    return [
        handler
        for group in settings["hooks"].get(event, [])
        for handler in group["hooks"]
        if handler["command"] == COMMAND
    ]


def test_an_empty_home_gets_hooks_env_and_the_mcp_entry(box: Box) -> None:
    result = box.connect("claude-code")
    settings_path = box.root / "claude" / "settings.json"
    global_path = box.root / "claude" / ".claude.json"  # CLAUDE_CONFIG_DIR is set
    settings = json.loads(settings_path.read_text())
    assert settings["env"] == {"DOSE_MEM_URL": "http://127.0.0.1:8765", "DOSE_MEM_TOKEN": TOKEN}
    assert set(settings["hooks"]) == EVENTS
    for event in EVENTS:
        [handler] = _ours(settings, event)
        assert handler["timeout"] == (35 if event == "SessionEnd" else 5)
    assert settings["hooks"]["PostToolUse"][0]["matcher"] == "Bash"
    server = json.loads(global_path.read_text())["mcpServers"]["dose-mem"]
    assert server == {
        "type": "stdio",
        "command": "dose-mem",
        "args": ["mcp"],
        "env": {"DOSE_MEM_URL": "http://127.0.0.1:8765", "DOSE_MEM_TOKEN": TOKEN},
    }
    assert mode(settings_path) == 0o600 and mode(global_path) == 0o600
    assert [e.path for e in result.written] == [settings_path, global_path]

    first = box.files()
    again = box.connect("claude-code")
    assert again.written == [] and box.files() == first

    box.disconnect("claude-code")
    assert box.files(backups=True) == {}


def test_the_users_settings_are_kept_and_come_back_after_disconnect(box: Box) -> None:
    settings_path = write(box.root / "claude" / "settings.json", USER_SETTINGS)
    global_path = write(box.root / "claude" / ".claude.json", USER_GLOBAL)
    before = box.files()

    box.connect("claude-code", url="http://127.0.0.1:9000")
    settings = json.loads(settings_path.read_text())
    assert settings["permissions"] == {"allow": ["Bash(git status)"]}
    assert settings["model"] == "opus"
    assert settings["env"]["ANTHROPIC_MODEL"] == "claude-opus-4-5"
    assert settings["env"]["DOSE_MEM_URL"] == "http://127.0.0.1:9000"
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "lint-guard"
    # their UserPromptSubmit hook first, ours after it, once
    prompt_groups = settings["hooks"]["UserPromptSubmit"]
    assert prompt_groups[0]["hooks"][0]["command"] == "~/bin/prompt-log.sh"
    assert len(_ours(settings, "UserPromptSubmit")) == 1
    data = json.loads(global_path.read_text())
    assert data["numStartups"] == 42 and "/home/me/code/x" in data["projects"]
    assert set(data["mcpServers"]) == {"github", "dose-mem"}

    connected = box.files()
    box.connect("claude-code", url="http://127.0.0.1:9000")
    assert box.files() == connected

    # the files as they were before dose-mem, kept once
    backups = box.files(backups=True)
    assert backups[f"claude/settings.json{BACKUP_SUFFIX}"] == before["claude/settings.json"]

    box.disconnect("claude-code")
    after = box.files()
    assert json.loads(after["claude/settings.json"]) == json.loads(before["claude/settings.json"])
    # .claude.json was already in Claude Code's own format: byte for byte
    assert after["claude/.claude.json"] == before["claude/.claude.json"]


def test_a_hand_made_setup_from_the_readme_is_taken_over_not_doubled(box: Box) -> None:
    manual = {
        "env": {"DOSE_MEM_URL": "http://127.0.0.1:8765", "DOSE_MEM_TOKEN": OTHER_TOKEN},
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": COMMAND, "timeout": 5}]}
            ],
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "notify-send done"},
                        {"type": "command", "command": "dose-mem hook claude-code --timeout 3"},
                    ]
                }
            ],
        },
    }
    path = write(box.root / "claude" / "settings.json", json.dumps(manual, indent=2) + "\n")
    box.connect("claude-code")
    settings = json.loads(path.read_text())
    assert settings["env"]["DOSE_MEM_TOKEN"] == TOKEN
    for event in EVENTS:
        assert len(_ours(settings, event)) == 1, event
    stop_commands = [h["command"] for g in settings["hooks"]["Stop"] for h in g["hooks"]]
    assert stop_commands == ["notify-send done", COMMAND]
    box.disconnect("claude-code")
    left = json.loads(path.read_text())
    assert left == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}
    }


def test_dry_run_writes_nothing_and_shows_the_diff(box: Box) -> None:
    write(box.root / "claude" / "settings.json", USER_SETTINGS)
    before = box.files(backups=True)
    result = box.connect("claude-code", dry_run=True)
    assert box.files(backups=True) == before
    assert result.written == []
    from dose_mem.connect.run import report

    text = "\n".join(report(result))
    assert "would update" in text and "would create" in text
    assert '+    "DOSE_MEM_TOKEN": "dm_c0ffee01_***"' in text
    assert "S3cret" not in text  # the secret never printed
    assert "dry run: nothing was written" in text


def test_project_scope_keeps_the_token_out_of_the_committed_file(box: Box) -> None:
    write(box.cwd / ".mcp.json", '{\n  "mcpServers": {\n    "db": {"command": "pg-mcp"}\n  }\n}\n')
    box.connect("claude-code", scope="project")
    local = json.loads((box.cwd / ".claude" / "settings.local.json").read_text())
    assert local["env"]["DOSE_MEM_TOKEN"] == TOKEN
    assert local["enabledMcpjsonServers"] == ["dose-mem"]
    assert len(_ours(local, "SessionEnd")) == 1
    shared_text = (box.cwd / ".mcp.json").read_text()
    assert TOKEN not in shared_text
    shared = json.loads(shared_text)["mcpServers"]
    assert shared["db"] == {"command": "pg-mcp"}
    assert shared["dose-mem"]["env"]["DOSE_MEM_TOKEN"] == "${DOSE_MEM_TOKEN}"
    assert mode(box.cwd / ".claude" / "settings.local.json") == 0o600
    assert not (box.root / "claude").exists()  # the user scope is untouched

    box.disconnect("claude-code", scope="project")
    assert json.loads((box.cwd / ".mcp.json").read_text()) == {
        "mcpServers": {"db": {"command": "pg-mcp"}}
    }
    assert not (box.cwd / ".claude" / "settings.local.json").exists()


def test_without_claude_config_dir_the_mcp_entry_goes_to_the_home_claude_json(box: Box) -> None:
    del box.env["CLAUDE_CONFIG_DIR"]
    box.connect("claude-code")
    home = Path(box.env["HOME"])
    assert "dose-mem" in json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert (home / ".claude" / "settings.json").is_file()


def test_a_symlinked_settings_file_is_written_through_and_backed_up_privately(box: Box) -> None:
    dotfiles = write(box.root / "home" / "dotfiles" / "claude-settings.json", USER_SETTINGS)
    link = box.root / "claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    box.connect("claude-code")
    assert link.is_symlink()  # the dotfile manager's link stays
    assert "DOSE_MEM_TOKEN" in json.loads(dotfiles.read_text())["env"]
    assert mode(dotfiles) == 0o600
    backup = link.with_name("settings.json" + BACKUP_SUFFIX)
    assert backup.read_text() == USER_SETTINGS and mode(backup) == 0o600
