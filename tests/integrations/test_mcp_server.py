"""The MCP server answers real MCP client sessions, over stdio and streamable HTTP."""

from __future__ import annotations

import subprocess
import sys

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memory_repo.settings import Settings
from recall_api.deps import Services
from recall_api.mcp_server import build_server
from tests.conftest import IssueToken
from tests.integrations.helpers import (
    SETUP_PROMPT,
    TABLEKIT_CWD,
    UV_CARD,
    LiveServer,
    clean_env,
    free_port,
)

CLI = [sys.executable, "-m", "dose_mem.cli.entry"]


def test_stdio_session_lists_tools_searches_reads_and_recalls(
    demo_settings: Settings, issue_token: IssueToken
) -> None:
    token = issue_token("working", ["tablekit"], agent="codex")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "dose_mem.cli.entry", "--home", str(demo_settings.home), "mcp"],
        env=clean_env(DOSE_MEM_TOKEN=token),
    )

    async def session() -> None:
        async with Client(params) as client:
            tools = await client.list_tools()
            assert {t.name for t in tools.tools} == {
                "memory_search",
                "memory_read",
                "memory_recall",
            }
            found = await client.call_tool(
                "memory_search", {"query": "uv Python environment", "k": 5}
            )
            assert not found.is_error
            hits = found.structured_content["hits"]
            assert hits[0]["id"] == UV_CARD
            assert {h["project"] for h in hits} <= {"tablekit", "global"}

            read = await client.call_tool("memory_read", {"id": UV_CARD})
            assert read.structured_content["id"] == UV_CARD
            assert read.structured_content["sections"]

            recalled = await client.call_tool(
                "memory_recall",
                {"prompt": SETUP_PROMPT, "session_id": "mcp-1", "turn": 1, "cwd": TABLEKIT_CWD},
            )
            result = recalled.structured_content
            assert result["injected"] and result["profile"] == "working"
            assert UV_CARD in [i["id"] for i in result["items"]]

            outside = await client.call_tool(
                "memory_search", {"query": "TabSense annotation guidelines", "project": "tabsense"}
            )
            assert outside.structured_content["hits"] == []

    anyio.run(session)


def test_stdio_refuses_a_bad_token_at_start_up(demo_settings: Settings) -> None:
    done = subprocess.run(
        [*CLI, "--home", str(demo_settings.home), "mcp", "--token", "dm_nope_nope"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "token refused" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_streamable_http_checks_the_bearer_token_per_request(
    services: Services, issue_token: IssueToken
) -> None:
    port = free_port()
    app = build_server(services, http_url=f"http://127.0.0.1:{port}").streamable_http_app()
    server = LiveServer(app, port)
    personal = issue_token("personal", ["life"], agent="calendar")
    with server:
        endpoint = f"{server.url}/mcp"
        assert httpx.post(endpoint, json={}).status_code == 401
        bad = {"Authorization": "Bearer dm_nope_nope"}
        assert httpx.post(endpoint, json={}, headers=bad).status_code == 401

        async def session() -> list[dict[str, object]]:
            headers = {"Authorization": f"Bearer {personal}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(endpoint, http_client=http)) as client,
            ):
                found = await client.call_tool("memory_search", {"query": "Python environment"})
                return list(found.structured_content["hits"])

        hits = anyio.run(session)
    assert all(h["project"] in {"life", "global"} for h in hits)
    assert UV_CARD not in [h["id"] for h in hits]
