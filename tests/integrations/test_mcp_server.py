"""The MCP server answers real MCP client sessions, over stdio and streamable HTTP."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.mcp_server import Refused, build_server
from recall_api.models import MAX_PROMPT_CHARS, Identity
from recall_api.tokens import TokenStore, tokens_path
from tests.conftest import IssueToken
from tests.integrations.checkout import ROTATED_CARD, ROTATED_QUERY, tablekit_checkout
from tests.integrations.demo import SETUP_PROMPT, TABLEKIT_CWD, TABSENSE_CWD, UV_CARD
from tests.integrations.helpers import LiveServer, clean_env

TOOLS = {"memory_search", "memory_read", "memory_recall", "task_update"}


def stdio(home: Path, cwd: Path | None = None, **env: str) -> StdioServerParameters:
    """``dose-mem --home HOME mcp`` as an MCP client starts it: in ``cwd``, with ``env``."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "dose_mem.cli.entry", "--home", str(home), "mcp"],
        env=clean_env(**env),
        cwd=cwd,
    )


def error_text(result: CallToolResult) -> str:
    assert result.is_error, result
    return " ".join(getattr(block, "text", "") for block in result.content)


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


def test_stdio_search_is_scoped_by_the_servers_working_directory(
    demo_settings: Settings, tmp_path: Path
) -> None:
    """A coding agent starts the stdio server in its checkout: a search with no project
    finds that project's items, as recall would for a prompt from there."""
    checkout = tablekit_checkout(demo_settings, tmp_path)
    params = stdio(checkout.settings.home, checkout.path, DOSE_MEM_TOKEN=checkout.token)

    async def session() -> None:
        async with Client(params) as client:
            found = await client.call_tool("memory_search", {"query": ROTATED_QUERY})
            assert not found.is_error, found
            assert ROTATED_CARD in [h["id"] for h in found.structured_content["hits"]]
            recalled = await client.call_tool(
                "memory_recall", {"prompt": SETUP_PROMPT, "session_id": "cwd-1", "turn": 1}
            )
            assert recalled.structured_content["project"] == "tablekit"

    anyio.run(session)


def test_stdio_with_a_bad_or_missing_token_answers_every_call_with_an_error(
    demo_settings: Settings,
) -> None:
    """The client connects and lists the tools; each call says why the token is refused,
    so the agent can show it (a closed pipe shows only "connection closed")."""

    async def session(params: StdioServerParameters) -> str:
        async with Client(params) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            found = await client.call_tool("memory_search", {"query": "uv"})
            return error_text(found)

    bad = anyio.run(session, stdio(demo_settings.home, DOSE_MEM_TOKEN="dm_nope_nope"))
    assert bad.startswith("dose-mem token rejected:"), bad
    assert "unknown or revoked" in bad or "malformed" in bad
    missing = anyio.run(session, stdio(demo_settings.home))
    assert missing.startswith("dose-mem token rejected: no token"), missing


def test_streamable_http_checks_the_bearer_token_per_request(
    services: Services, issue_token: IssueToken
) -> None:
    server = LiveServer(build_server(services).streamable_http_app())
    personal = issue_token("personal", ["life"], agent="calendar")
    with server:
        endpoint = f"{server.url}/mcp"

        async def session(token: str) -> list[dict[str, object]]:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(endpoint, http_client=http)) as client,
            ):
                found = await client.call_tool("memory_search", {"query": "Python environment"})
                return list(found.structured_content["hits"])

        hits = anyio.run(session, personal)
        TokenStore(tokens_path(services.settings)).revoke(personal.split("_")[1])
        revoked = httpx.post(endpoint, json={}, headers={"Authorization": f"Bearer {personal}"})
    assert all(h["project"] in {"life", "global"} for h in hits)
    assert UV_CARD not in [h["id"] for h in hits]
    assert revoked.status_code == 401  # the next request after a revocation


def test_streamable_http_serves_no_oauth_metadata_and_says_why_a_token_is_refused(
    services: Services,
) -> None:
    """Tokens are static: there is no authorization server, so nothing may send a client
    looking for one (Codex would say "run codex mcp login", the Inspector start OAuth)."""
    with LiveServer(build_server(services).streamable_http_app()) as server:
        for doc in (
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ):
            assert httpx.get(server.url + doc).status_code == 404, doc
        endpoint = f"{server.url}/mcp"
        missing = httpx.post(endpoint, json={})
        bad = httpx.post(endpoint, json={}, headers={"Authorization": "Bearer dm_nope_nope"})
    for answer, says in ((missing, "missing"), (bad, "invalid")):
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"] == "Bearer"
        body = answer.json()
        assert body["error"] == "invalid_token"
        assert says in body["error_description"], body


def test_streamable_http_search_is_scoped_by_a_cwd_argument(
    services: Services, issue_token: IssueToken
) -> None:
    """Over HTTP the server's own directory means nothing; the client says where it is."""
    coder = issue_token("working", ["tablekit"], agent="codex")
    with LiveServer(build_server(services).streamable_http_app()) as server:

        async def search(args: dict[str, str]) -> list[str]:
            headers = {"Authorization": f"Bearer {coder}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client,
            ):
                found = await client.call_tool("memory_search", {"query": ROTATED_QUERY, **args})
                assert not found.is_error, found
                return [h["id"] for h in found.structured_content["hits"]]

        assert ROTATED_CARD in anyio.run(search, {"cwd": TABLEKIT_CWD})
        assert ROTATED_CARD not in anyio.run(search, {})  # global memory only


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
    assert all(t.input_schema["additionalProperties"] is False for t in tools)
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


def test_a_tool_call_with_an_argument_the_tool_does_not_take_is_refused(
    services: Services,
) -> None:
    """A misspelt argument is an error naming it, never silently dropped."""
    who = Identity(agent="codex", profile="working", projects=None)
    server = build_server(services, identity=who)

    async def call(args: dict[str, object]) -> CallToolResult:
        async with Client(server) as client:
            return await client.call_tool("memory_search", args)

    refused = error_text(anyio.run(call, {"query": "uv", "projects": "tablekit", "kk": 2}))
    assert "'projects'" in refused and "'kk'" in refused, refused
    assert not anyio.run(call, {"query": "uv", "project": "tablekit"}).is_error


def test_a_refused_stdio_identity_answers_every_tool_with_the_reason(services: Services) -> None:
    server = build_server(services, identity=Refused("unknown or revoked token"))

    async def call() -> CallToolResult:
        async with Client(server) as client:
            return await client.call_tool("memory_read", {"id": UV_CARD})

    assert error_text(anyio.run(call)) == "dose-mem token rejected: unknown or revoked token"
