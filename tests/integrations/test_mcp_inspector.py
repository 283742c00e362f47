"""``dose-mem mcp`` checked by a real MCP client: the MCP Inspector's CLI mode
(``evaluation/agents/inspector.py``, installed on first use), over stdio and streamable
HTTP. Not skipped when the Inspector cannot be installed: the fixture fails, naming the
command that did."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evaluation.agents.inspector import inspector_cli
from memory_repo.settings import Settings
from recall_api.deps import Services
from recall_api.mcp_server import build_server
from tests.conftest import IssueToken
from tests.integrations.checkout import (
    ROTATED_CARD,
    ROTATED_QUERY,
    Checkout,
    tablekit_checkout,
)
from tests.integrations.demo import TABLEKIT_CWD
from tests.integrations.helpers import LiveServer, clean_env

DOSE_MEM = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "dose-mem"
TOOLS = {"memory_search", "memory_read", "memory_recall", "task_update"}
TIMEOUT_S = 120  # a stdio run starts Python and opens the index; a hang fails, never waits


@dataclass(frozen=True)
class Run:
    code: int
    out: dict[str, Any] | None  # the JSON on stdout (--format json), if any
    err: str


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    return inspector_cli()


@pytest.fixture(scope="module")
def checkout(demo_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Checkout:
    return tablekit_checkout(demo_settings, tmp_path_factory.mktemp("inspector-checkout"))


def inspect(inspector: list[str], args: Sequence[str], home: Path) -> Run:
    """One Inspector CLI run; ``home`` is its HOME, so it keeps nothing in the real one."""
    cmd = [*inspector, "--cli", "--format", "json", *args]
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        env=clean_env(HOME=str(home)),
        check=False,
    )
    try:
        out = json.loads(done.stdout) if done.stdout.strip() else None
    except json.JSONDecodeError:
        out = None
    return Run(done.returncode, out, done.stderr)


def stdio_target(checkout: Checkout, token: str) -> list[str]:
    """The stdio server as an agent in the TableKit checkout starts it."""
    return [
        "--cwd",
        str(checkout.path),
        "-e",
        f"DOSE_MEM_TOKEN={token}",
        "--",
        str(DOSE_MEM),
        "--home",
        str(checkout.settings.home),
        "mcp",
    ]


def search_args(query: str, *extra: str) -> list[str]:
    return [
        "--method",
        "tools/call",
        "--tool-name",
        "memory_search",
        "--tool-arg",
        f"query={query}",
        *extra,
    ]


def hit_ids(run: Run) -> list[str]:
    assert run.code == 0 and run.out is not None, run
    result = run.out["result"]
    assert result["isError"] is False, result
    return [h["id"] for h in result["structuredContent"]["hits"]]


def tool_error(run: Run) -> str:
    """The text of a tool call's error result (the call itself succeeded)."""
    assert run.out is not None, run
    result = run.out["result"]
    assert result["isError"] is True, result
    return " ".join(block.get("text", "") for block in result["content"])


def test_inspector_over_stdio_lists_tools_and_searches_the_checkouts_project(
    inspector: list[str], checkout: Checkout, tmp_path: Path
) -> None:
    listed = inspect(
        inspector, ["--method", "tools/list", *stdio_target(checkout, checkout.token)], tmp_path
    )
    assert listed.code == 0 and listed.out is not None, listed
    tools = {t["name"]: t for t in listed.out["result"]["tools"]}
    assert set(tools) == TOOLS
    assert all(t["inputSchema"]["additionalProperties"] is False for t in tools.values())
    assert "cwd" in tools["memory_search"]["inputSchema"]["properties"]

    found = inspect(
        inspector, [*search_args(ROTATED_QUERY), *stdio_target(checkout, checkout.token)], tmp_path
    )
    assert ROTATED_CARD in hit_ids(found)  # no project argument: the server's cwd scopes it


def test_inspector_over_stdio_shows_a_bad_token_as_a_tool_error(
    inspector: list[str], checkout: Checkout, tmp_path: Path
) -> None:
    run = inspect(
        inspector, [*search_args("uv"), *stdio_target(checkout, "dm_nope_nope")], tmp_path
    )
    assert tool_error(run).startswith("dose-mem token rejected:"), run


def test_inspector_over_http_with_a_good_and_a_bad_token(
    inspector: list[str], services: Services, issue_token: IssueToken, tmp_path: Path
) -> None:
    coder = issue_token("working", ["tablekit"], agent="codex")
    with LiveServer(build_server(services).streamable_http_app()) as server:

        def over_http(token: str, *args: str) -> Run:
            target = [
                "--transport",
                "http",
                "--server-url",
                f"{server.url}/mcp",
                "--header",
                f"Authorization: Bearer {token}",
                *args,
            ]
            return inspect(inspector, target, tmp_path)

        listed = over_http(coder, "--method", "tools/list")
        found = over_http(coder, *search_args(ROTATED_QUERY, f"cwd={TABLEKIT_CWD}"))
        unknown = over_http(coder, *search_args("uv", "projects=tablekit"))
        # The Inspector CLI takes any 401 for an OAuth challenge; --stored-auth-only (its
        # flag for non-interactive runs) keeps it from starting a login, so what it shows
        # is the server's own answer.
        bad = over_http("dm_nope_nope", "--stored-auth-only", "--method", "tools/list")

    assert listed.code == 0 and listed.out is not None, listed
    assert {t["name"] for t in listed.out["result"]["tools"]} == TOOLS
    assert ROTATED_CARD in hit_ids(found)
    assert "'projects'" in tool_error(unknown)

    assert bad.code != 0 and bad.out is None, bad
    assert "invalid bearer token: unknown or revoked token" in bad.err, bad
