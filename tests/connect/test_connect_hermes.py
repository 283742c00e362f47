"""`dose-mem connect hermes`: the plugin directory, memory.provider and .env; then the
real Hermes Agent (0.19.0, its own venv in .tools/agents) loads the plugin from that home."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from dose_mem.connect.files import BACKUP_SUFFIX
from evaluation.agents.install import hermes_python
from recall_api.integrations.client_files import files
from tests.connect.sandbox import TOKEN, Box, mode, write

USER_CONFIG = """# Hermes configuration
model:
  default: "anthropic/claude-opus-4.5"   # main model
  provider: openrouter
toolsets:
  - hermes-cli
  - web
memory:
  memory_enabled: true   # keep curated memory
  provider: honcho       # was trying honcho
  user_char_limit: 1375
display:
  skin: default
"""

USER_ENV = """# API keys
OPENROUTER_API_KEY=sk-or-123
export GITHUB_TOKEN=ghp_456

TELEGRAM_BOT_TOKEN='abc:def'
"""


def test_an_empty_hermes_home(box: Box) -> None:
    box.connect("hermes")
    home = box.root / "hermes"
    plugin = home / "plugins" / "dose-mem"
    for name, text in files("hermes").items():
        assert (plugin / name).read_text() == text
    assert (home / "config.yaml").read_text() == "memory:\n  provider: dose-mem\n"
    assert (home / ".env").read_text() == (
        f"DOSE_MEM_URL=http://127.0.0.1:8765\nDOSE_MEM_TOKEN={TOKEN}\n"
    )
    assert mode(home / ".env") == 0o600

    first = box.files()
    assert box.connect("hermes").written == [] and box.files() == first
    box.disconnect("hermes")
    assert box.files(backups=True) == {}
    assert not (home / "plugins").exists()


def test_the_users_config_and_env_are_kept_and_restored_byte_for_byte(box: Box) -> None:
    home = box.root / "hermes"
    write(home / "config.yaml", USER_CONFIG)
    write(home / ".env", USER_ENV)
    before = box.files()

    result = box.connect("hermes")
    config = (home / "config.yaml").read_text()
    # one line changed, every other byte (comments, quotes, indentation) kept
    assert config == USER_CONFIG.replace(
        "  provider: honcho       # was trying honcho\n", "  provider: dose-mem\n"
    )
    assert any("honcho" in warning for warning in result.plan.warnings)
    env = (home / ".env").read_text()
    assert env.startswith(USER_ENV)
    assert env.endswith(f"DOSE_MEM_TOKEN={TOKEN}\n")
    assert mode(home / ".env") == 0o600

    connected = box.files()
    box.connect("hermes")
    assert box.files() == connected
    assert box.files(backups=True)[f"hermes/.env{BACKUP_SUFFIX}"] == before["hermes/.env"]

    box.disconnect("hermes")
    after = box.files()
    assert after == before  # honcho is back, exactly as it was


def test_a_memory_block_without_provider_gets_it_first(box: Box) -> None:
    home = box.root / "hermes"
    original = "memory:\n    memory_enabled: false\nother: 1\n"
    write(home / "config.yaml", original)
    box.connect("hermes")
    assert (home / "config.yaml").read_text() == (
        "memory:\n    provider: dose-mem\n    memory_enabled: false\nother: 1\n"
    )
    box.disconnect("hermes")
    assert (home / "config.yaml").read_text() == original


def test_a_flow_style_memory_block_is_refused_before_anything_is_written(box: Box) -> None:
    from dose_mem.connect.model import ConnectError

    home = box.root / "hermes"
    write(home / "config.yaml", "memory: {provider: honcho}\n")
    before = box.files(backups=True)
    with pytest.raises(ConnectError, match="by hand"):
        box.connect("hermes", issue_new=True, token=None)
    assert box.files(backups=True) == before
    assert not box.store.exists()  # no token issued for a set-up that could not be written


def _hermes(box: Box, code: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSE_MEM_")}
    env |= {"HERMES_HOME": box.env["HERMES_HOME"], "HOME": box.env["HOME"]}
    done = subprocess.run(
        [str(hermes_python()), "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=box.root,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


LOAD = """
import json
from hermes_cli.env_loader import load_hermes_dotenv
load_hermes_dotenv()
from hermes_cli.config import load_config
from plugins.memory import discover_memory_providers, load_memory_provider
provider = load_memory_provider("dose-mem")
print(json.dumps({
    "active": load_config()["memory"]["provider"],
    "available": {name: ok for name, _, ok in discover_memory_providers()},
    "loaded": getattr(provider, "name", None),
}))
"""


def test_the_real_hermes_loads_the_connected_plugin(box: Box) -> None:
    """A Hermes environment that has never seen dose-mem (no dose-mem package in it):
    the plugin directory alone must load. If this fails only because the plugin's
    provider.py still imports recall_api, the plugin is not yet self-contained."""
    write(box.root / "hermes" / "config.yaml", USER_CONFIG)
    box.connect("hermes")
    seen = _hermes(box, LOAD)
    assert seen["active"] == "dose-mem"  # Hermes reads the edited config.yaml
    assert seen["available"].get("dose-mem") is True  # the token came from .env
    assert seen["loaded"] == "dose-mem"

    box.disconnect("hermes")
    seen = _hermes(box, LOAD.replace('load_memory_provider("dose-mem")', "None"))
    assert seen["active"] == "honcho" and "dose-mem" not in seen["available"]


def test_disconnect_removes_the_bytecode_hermes_left_in_the_plugin(box: Box) -> None:
    box.connect("hermes")
    cache = box.root / "hermes" / "plugins" / "dose-mem" / "__pycache__"
    write(cache / "provider.cpython-311.pyc", "x")
    box.disconnect("hermes")
    assert not (box.root / "hermes" / "plugins").exists()


def test_a_file_of_the_users_in_the_plugin_folder_stays(box: Box) -> None:
    box.connect("hermes")
    mine = write(box.root / "hermes" / "plugins" / "dose-mem" / "notes.txt", "mine")
    box.disconnect("hermes")
    assert mine.read_text() == "mine"
    assert sorted(p.name for p in Path(mine.parent).iterdir()) == ["notes.txt"]
