"""`dose-mem connect openclaw`: dose-mem's MCP server in openclaw.json's mcp.servers."""

from __future__ import annotations

import json

import pytest

from dose_mem.connect.model import ConnectError
from tests.connect.sandbox import TOKEN, Box, mode, write

USER_CONFIG = json.dumps(
    {
        "gateway": {"port": 18789},
        "mcp": {"servers": {"context7": {"command": "uvx", "args": ["context7-mcp"]}}},
        "agents": {"defaults": {"workspace": "~/.openclaw/workspace"}},
    },
    indent=2,
)


def test_an_empty_openclaw_home(box: Box) -> None:
    result = box.connect("openclaw")
    path = box.root / "openclaw" / "openclaw.json"
    assert json.loads(path.read_text()) == {
        "mcp": {
            "servers": {
                "dose-mem": {
                    "command": "dose-mem",
                    "args": ["mcp"],
                    "env": {"DOSE_MEM_URL": "http://127.0.0.1:8765", "DOSE_MEM_TOKEN": TOKEN},
                }
            }
        }
    }
    assert mode(path) == 0o600
    # what is not covered is said, not hidden
    assert any("no memory before each prompt" in step for step in result.plan.next_steps)
    first = box.files()
    assert box.connect("openclaw").written == [] and box.files() == first
    box.disconnect("openclaw")
    assert box.files(backups=True) == {}


def test_the_users_config_is_kept_and_restored(box: Box) -> None:
    path = write(box.root / "openclaw" / "openclaw.json", USER_CONFIG)
    before = box.files()
    box.connect("openclaw")
    data = json.loads(path.read_text())
    assert data["gateway"] == {"port": 18789}
    assert set(data["mcp"]["servers"]) == {"context7", "dose-mem"}
    box.disconnect("openclaw")
    assert box.files() == before


def test_openclaw_config_path_wins(box: Box) -> None:
    box.env["OPENCLAW_CONFIG_PATH"] = str(box.root / "elsewhere" / "oc.json")
    box.connect("openclaw")
    assert (
        "dose-mem" in json.loads((box.root / "elsewhere" / "oc.json").read_text())["mcp"]["servers"]
    )


def test_a_json5_config_is_not_rewritten_and_the_command_to_run_is_given(box: Box) -> None:
    text = "{\n  // my gateway\n  gateway: { port: 18789, },\n}\n"
    path = write(box.root / "openclaw" / "openclaw.json", text)
    with pytest.raises(ConnectError, match="openclaw mcp set dose-mem"):
        box.connect("openclaw")
    assert path.read_text() == text
