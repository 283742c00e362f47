"""The `dose-mem connect` / `disconnect` commands: tokens (--token, --issue, env), the dry
run's output, clear refusals; through the CLI app, and once through the installed script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result as CliResult
from typer.testing import CliRunner

from dose_mem.cli.build import make_app
from recall_api.tokens import TokenStore
from tests.connect.sandbox import TOKEN, Box

Invoke = Callable[..., CliResult]


@pytest.fixture
def cli(box: Box, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    monkeypatch.chdir(box.cwd)
    for key in [k for k in os.environ if k.startswith("DOSE_MEM_")]:
        monkeypatch.delenv(key)
    env = box.env | {"DOSE_MEM_HOME": str(box.root / "dose-home")}
    app = make_app(("connect", "token"))

    def invoke(*args: str, **extra: str) -> CliResult:
        return CliRunner().invoke(app, list(args), env=env | extra)

    return invoke


def _records(box: Box) -> list[dict]:
    if not box.store.exists():
        return []
    return json.loads(box.store.read_text())["tokens"]


def test_issue_issues_once_and_a_second_run_keeps_that_token(box: Box, cli: Invoke) -> None:
    first = cli("connect", "codex", "--issue")
    assert first.exit_code == 0, first.output
    [record] = _records(box)
    assert (record["agent"], record["profile"], record["projects"]) == ("codex", "working", None)
    assert f"dose-mem token revoke {record['id']}" in first.output
    assert "trust" in first.output  # Codex's /hooks step

    again = cli("connect", "codex", "--issue")
    assert again.exit_code == 0, again.output
    assert "already connected with" in again.output and "nothing to change" in again.output
    assert len(_records(box)) == 1

    TokenStore(box.store).revoke(record["id"])
    third = cli("connect", "codex", "--issue")
    assert third.exit_code == 0 and len(_records(box)) == 2  # a revoked one is replaced


def test_hermes_and_openclaw_get_the_full_profile(box: Box, cli: Invoke) -> None:
    assert cli("connect", "hermes", "--issue").exit_code == 0
    assert cli("connect", "openclaw", "--issue").exit_code == 0
    assert [(r["agent"], r["profile"]) for r in _records(box)] == [
        ("hermes", "full"),
        ("openclaw", "full"),
    ]


def test_a_dry_run_issues_nothing_and_writes_nothing(box: Box, cli: Invoke) -> None:
    result = cli("connect", "claude-code", "--issue", "--dry-run")
    assert result.exit_code == 0, result.output
    assert box.files(backups=True) == {} and _records(box) == []
    assert "a new working-profile token would be issued" in result.output
    assert "+++ " in result.output and "dry run: nothing was written" in result.output


def test_the_token_comes_from_dose_mem_token_when_not_given(box: Box, cli: Invoke) -> None:
    result = cli("connect", "pi", DOSE_MEM_TOKEN=TOKEN, DOSE_MEM_URL="http://127.0.0.1:9200/")
    assert result.exit_code == 0, result.output
    entry = (box.root / "pi" / "extensions" / "dose-mem" / "index.ts").read_text()
    assert TOKEN in entry and '"http://127.0.0.1:9200"' in entry
    assert "from DOSE_MEM_TOKEN" in result.output


def test_no_token_at_all_fails_clearly(box: Box, cli: Invoke) -> None:
    result = cli("connect", "hermes")
    assert result.exit_code == 2
    assert "no token for hermes" in result.output and "--issue" in result.output
    assert box.files(backups=True) == {}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("connect", "pi", "--token", "hunter2"), "not a dose-mem token"),
        (("connect", "pi", "--token", TOKEN, "--issue"), "not both"),
        (("connect", "hermes", "--token", TOKEN, "--scope", "project"), "--scope project"),
        (("connect", "codex", "--token", TOKEN, "--url", "ftp://x"), "not an http(s) URL"),
    ],
)
def test_refusals(box: Box, cli: Invoke, args: tuple[str, ...], message: str) -> None:
    result = cli(*args)
    assert result.exit_code == 2 and message in result.output
    assert box.files(backups=True) == {}


def test_disconnect_says_the_token_stays_valid(box: Box, cli: Invoke) -> None:
    assert cli("connect", "openclaw", "--token", TOKEN).exit_code == 0
    result = cli("disconnect", "openclaw")
    assert result.exit_code == 0, result.output
    assert "dose-mem token revoke c0ffee01" in result.output
    assert box.files(backups=True) == {}


def test_the_installed_command(box: Box) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSE_MEM_")}
    env |= box.env | {"DOSE_MEM_HOME": str(box.root / "dose-home"), "DOSE_MEM_TOKEN": TOKEN}
    script = Path(sys.executable).with_name("dose-mem")
    done = subprocess.run(
        [str(script), "connect", "claude-code", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=box.cwd,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "would create" in done.stdout and TOKEN not in done.stdout
    assert box.files(backups=True) == {}


def test_a_dose_mem_home_of_its_own_reaches_the_mcp_server(box: Box, cli: Invoke) -> None:
    """`dose-mem mcp` opens the memory itself, so it must look where this CLI does."""
    assert cli("connect", "openclaw", "--token", TOKEN).exit_code == 0
    config = json.loads((box.root / "openclaw" / "openclaw.json").read_text())
    env = config["mcp"]["servers"]["dose-mem"]["env"]
    assert env["DOSE_MEM_HOME"] == str((box.root / "dose-home").resolve())
