"""The dose-mem MCP server in the real Codex (0.171.0, installed from npm into
.tools/agents/), set up by ``dose-mem connect codex``: ``codex app-server`` started in a
TableKit checkout lists the server's status and tools and its hooks, and calls
``memory_search`` as Codex's model would, with no model in the loop
(``mcpServerStatus/list``, ``hooks/list``, ``thread/start``, ``mcpServer/tool/call``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.agents.codex import codex_command
from memory_repo.settings import Settings
from tests.integrations.checkout import ROTATED_CARD, ROTATED_QUERY, Checkout, tablekit_checkout
from tests.integrations.codex_app_server import AppServer
from tests.integrations.helpers import clean_env, codex_homes, connect


@pytest.fixture(scope="module")
def checkout(demo_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Checkout:
    return tablekit_checkout(demo_settings, tmp_path_factory.mktemp("codex-checkout"))


def _codex(checkout: Checkout, token: str, codex_home: Path) -> AppServer:
    """``dose-mem connect codex`` into a fresh Codex home (the README's one command), then
    Codex's app-server started in the TableKit checkout with that home."""
    codex_home.mkdir(parents=True)
    homes = codex_homes(codex_home, checkout.settings.home)
    assert "/hooks" in connect("codex", token, **homes)  # the trust step is printed
    server = AppServer(codex_command(), clean_env(**homes), checkout.path)
    server.start()
    return server


def _search(server: AppServer, cwd: Path, query: str) -> dict:
    thread = server.request("thread/start", {"cwd": str(cwd)})["thread"]["id"]
    call = {"server": "dose-mem", "threadId": thread, "tool": "memory_search"}
    result = server.request("mcpServer/tool/call", call | {"arguments": {"query": query}}, 120)
    return result


def test_codex_lists_the_server_and_its_search_finds_the_checkouts_project(
    checkout: Checkout, tmp_path: Path
) -> None:
    server = _codex(checkout, checkout.token, tmp_path / "codex-home")
    try:
        status = server.request("mcpServerStatus/list", {}, 120)["data"]
        [dose] = [s for s in status if s["name"] == "dose-mem"]
        assert {"memory_search", "memory_read"} <= set(dose["tools"])
        result = _search(server, checkout.path, ROTATED_QUERY)
    finally:
        server.close()
    text = "".join(c.get("text", "") for c in result["content"])
    assert not result.get("isError"), text
    ids = [h["id"] for h in json.loads(text)["hits"]]
    assert ROTATED_CARD in ids[:3]  # scoped to TableKit by the thread's cwd, not global only


def test_codex_with_a_bad_token_shows_why_instead_of_a_closed_server(
    checkout: Checkout, tmp_path: Path
) -> None:
    server = _codex(checkout, "dm_not_a_token", tmp_path / "codex-home")
    try:
        result = _search(server, checkout.path, ROTATED_QUERY)
    finally:
        server.close()
    text = "".join(c.get("text", "") for c in result["content"])
    assert result.get("isError") and "dose-mem token rejected" in text
