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
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.mcp_server import build_server
from recall_api.models import MAX_PROMPT_CHARS, Identity
from tests.conftest import IssueToken
from tests.integrations.demo import SETUP_PROMPT, TABLEKIT_CWD, TABSENSE_CWD, UV_CARD
from tests.integrations.helpers import LiveServer, clean_env, free_port

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
                "task_update",
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

            started = await client.call_tool(
                "task_update", {"title": "Benchmark gridfix on 500 PDFs", "cwd": TABLEKIT_CWD}
            )
            (task,) = started.structured_content["tasks"]
            finished = await client.call_tool(
                "task_update", {"task": task, "status": "done", "result": "gridfix: 0.94 F1"}
            )
            assert finished.structured_content["status"] == ["done"]
            asked = await client.call_tool(
                "memory_recall",
                {
                    "prompt": "is the gridfix benchmark done?",
                    "session_id": "mcp-1",
                    "turn": 2,
                    "cwd": TABLEKIT_CWD,
                },
            )
            answer = asked.structured_content
            assert [i["id"] for i in answer["items"]] == [task]
            assert '"gridfix: 0.94 F1"' in answer["text"]
            elsewhere = await client.call_tool(
                "task_update", {"title": "sneak", "cwd": TABSENSE_CWD}
            )
            assert elsewhere.is_error  # a project the token may not see

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


def _limits(schema: dict) -> dict:
    """A field's constraints only: what a caller may send, not how it is described."""
    if "anyOf" in schema:
        return {"anyOf": [_limits(s) for s in schema["anyOf"]]}
    keep = ("type", "minLength", "maxLength", "pattern", "minimum", "maximum")
    return {k: v for k, v in schema.items() if k in keep}


def test_tools_take_the_same_request_limits_as_http(demo_settings: Settings) -> None:
    """One set of limits (recall_api/models.py) for both faces of the read path."""
    who = Identity(agent="codex", profile="working", projects=None)
    tools = anyio.run(build_server(lambda: None, identity=who).list_tools)
    mcp = {t.name: t.input_schema["properties"] for t in tools}
    api = create_app(demo_settings, services=object()).openapi()  # type: ignore[arg-type]
    bodies = api["components"]["schemas"]
    read_params = {
        p["name"]: p["schema"] for p in api["paths"]["/v1/memories/{item_id}"]["get"]["parameters"]
    }
    pairs = [
        ("memory_recall", bodies["RecallRequest"]["properties"]),
        ("memory_search", bodies["SearchRequest"]["properties"]),
        # an empty path segment never reaches the route, so HTTP states no minLength
        ("memory_read", {**read_params, "id": {**read_params["item_id"], "minLength": 1}}),
    ]
    for tool, http in pairs:
        assert mcp[tool], tool
        for name, schema in mcp[tool].items():
            assert _limits(schema) == _limits(http[name]), (tool, name)


def test_a_tool_argument_over_the_limit_is_a_tool_error(services: Services) -> None:
    who = Identity(agent="codex", profile="working", projects=None)
    server = build_server(services, identity=who)

    async def call() -> bool:
        async with Client(server) as client:
            args = {"prompt": "x" * (MAX_PROMPT_CHARS + 1), "session_id": "s", "turn": 1}
            return (await client.call_tool("memory_recall", args)).is_error

    assert anyio.run(call)
