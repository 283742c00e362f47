"""The MCP face of the read path: ``memory_search``, ``memory_read``, ``memory_recall``,
and ``task_update`` for task state (docs/tasks.md).

The tools call ``RecallEngine`` in-process (never the HTTP service), so they obey exactly
the same token and profile rules. Who is asking depends on the transport:

* stdio: one client per process, so the token is verified once at start-up and every
  call runs as that identity. A refused (or missing) token does not stop the server:
  the client connects and lists the tools, and every tool call is an error result
  ``dose-mem token rejected: <why>`` that the agent can show (a server that exits shows
  only "connection closed"). The server's working directory is where the agent runs
  it, its checkout: it stands in for the ``cwd`` a call leaves out, so a search with no
  project is scoped the way recall scopes a prompt from there.
* streamable HTTP: every request carries ``Authorization: Bearer <token>``;
  ``BearerGate`` refuses a missing or bad one with 401 before any tool runs, and each
  tool call runs as its own request's identity (a revoked token stops working on the
  next request, without a restart). Tokens are static (``dose-mem token issue``) and
  there is no authorization server, so no OAuth discovery document is served and the
  401 names none: a client shows the error instead of starting an OAuth login that
  cannot succeed. A client's working directory is its own business here: it passes
  ``cwd``.

Every tool's input schema says ``additionalProperties: false``, and a call with an
argument the tool does not take is refused, naming it (never silently dropped).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Tool as MCPTool
from pydantic import Field
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from memory_repo.errors import DoseMemError, MalformedCard, UnknownItem
from memory_repo.tasks.extract import Report, UnknownTask
from memory_repo.tasks.model import TaskStatus
from profiles.model import Profile, load_profiles
from recall_api.models import (
    CwdPath,
    Identity,
    ItemId,
    ProjectId,
    PromptText,
    QueryText,
    RecallRequest,
    SessionId,
    TopK,
    TurnNumber,
)
from recall_api.tokens import TokenError, TokenStore

if TYPE_CHECKING:  # the service's modules load with the memory, on the first tool call
    from recall_api.services import Services

INSTRUCTIONS = (
    "dose-mem is the user's shared memory across agents. Relevant memory is often injected "
    "for you already; call memory_search when you need something that was not, and "
    "memory_read with an id (from a search hit or an injected link) for the full text. "
    "When you start or finish long-running work (a training run, a PR, a job), call "
    "task_update so the user's other agents can say whether it is done."
)


MCP_PATH = "/mcp"  # the streamable HTTP endpoint
CWD_HELP = (
    "Your working directory: its project scopes the call, as recall does. Over stdio the "
    "server's own directory (where the agent started it) is used when omitted."
)
TASK_CWD_HELP = (
    "Your working directory: a new task is filed in its project. Over stdio the server's "
    "own directory is used when a new task omits it."
)


class UnusableProfile(DoseMemError):
    """A valid token whose profile this server does not have (e.g. a deleted YAML)."""


@dataclass(frozen=True)
class Refused:
    """A stdio token that did not verify: the server still serves, and every tool call is
    an error result saying ``dose-mem token rejected: <reason>``."""

    reason: str

    def error(self) -> ToolError:
        """The error every tool call raises (an error result the client shows)."""
        return ToolError(f"dose-mem token rejected: {self.reason}")


def identity_for(tokens: TokenStore, profiles: Mapping[str, Profile], token: str) -> Identity:
    """Token -> identity, with the same checks as the HTTP service; raises DoseMemError."""
    record = tokens.verify(token)
    if record.admin:
        raise UnusableProfile("an admin token opens the inspector (/ui), not the agent API")
    if record.profile not in profiles:
        raise UnusableProfile(f"token's profile {record.profile!r} is not configured")
    return Identity(
        agent=record.agent, profile=record.profile, projects=record.projects, token_id=record.id
    )


def stdio_identity(
    token: str | None, tokens: TokenStore, profiles_path: Path
) -> Identity | Refused:
    """The identity a stdio server runs as, or why its token is refused (missing, unknown,
    revoked, an admin token, an unconfigured profile, unreadable profiles). Never raises a
    DoseMemError: the server starts either way."""
    if not token:
        return Refused("no token: pass --token or set DOSE_MEM_TOKEN in the server's env")
    try:
        return identity_for(tokens, load_profiles(profiles_path), token)
    except DoseMemError as exc:
        return Refused(str(exc))


def process_cwd() -> str | None:
    """This process's working directory as whoever started it spells it: ``$PWD`` when it
    names the same directory (a checkout reached through a symlink matches a registry root
    written that way), else the resolved path; ``None`` when the directory is gone."""
    try:
        here = os.getcwd()
    except OSError:
        return None
    logical = os.environ.get("PWD", "")
    try:
        if os.path.isabs(logical) and os.path.samefile(logical, here):
            return logical
    except OSError:
        pass
    return here


# The identity of the HTTP request being served, set by BearerGate for the request's
# lifetime (the SDK carries a request's context variables to the tool call it makes).
_request_identity: ContextVar[Identity | None] = ContextVar("dose_mem_mcp_identity", default=None)


class BearerGate:
    """ASGI middleware in front of the streamable HTTP endpoint (``MCP_PATH``): a request
    without a usable dose-mem token is answered 401 (403 for a valid token that may not
    use the agent API, as ``POST /v1/recall`` does) with a plain ``WWW-Authenticate:
    Bearer`` and a JSON body ``{"error", "error_description"}`` saying what is wrong;
    otherwise the request runs as the token's identity. Other paths pass through (there
    is nothing else to serve, so they are 404s, OAuth discovery documents included)."""

    def __init__(self, app: ASGIApp, services: Callable[[], Services]) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != MCP_PATH:
            await self.app(scope, receive, send)
            return
        who = self._identify(_bearer_token(scope))
        if not isinstance(who, Identity):
            await who(scope, receive, send)
            return
        reset = _request_identity.set(who)
        try:
            await self.app(scope, receive, send)
        finally:
            _request_identity.reset(reset)

    def _identify(self, token: str | None) -> Identity | JSONResponse:
        """The token's identity, or the response refusing it."""
        if token is None:
            return _refusal(401, "missing bearer token: send Authorization: Bearer <token>")
        svc = self.services()
        try:
            return identity_for(svc.tokens, svc.engine.profiles, token)
        except TokenError as exc:
            return _refusal(401, f"invalid bearer token: {exc}")
        except DoseMemError as exc:
            return _refusal(403, str(exc))


def _bearer_token(scope: Scope) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, if there is one."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


def _refusal(status: int, description: str) -> JSONResponse:
    error = "invalid_token" if status == 401 else "insufficient_scope"
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    body = {"error": error, "error_description": description}
    return JSONResponse(body, status_code=status, headers=headers)


class DoseMemServer(MCPServer):
    """``MCPServer`` with dose-mem's additions: a refused stdio token fails every tool call
    (before anything else is checked), tools refuse arguments they do not declare, and the
    streamable HTTP app checks bearer tokens with ``BearerGate``."""

    def __init__(
        self, gate: Callable[[], Services] | None, refused: Refused | None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._gate = gate
        self._refused = refused

    async def list_tools(self) -> list[MCPTool]:
        """The tools, each input schema closed: ``additionalProperties: false``."""
        tools = await super().list_tools()
        return [
            t.model_copy(update={"input_schema": {**t.input_schema, "additionalProperties": False}})
            for t in tools
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Refuse (``ToolError``, an error result) any call when the stdio token was refused,
        and a call with an argument ``name`` does not declare, naming it and the ones it
        takes; else call the tool."""
        if self._refused is not None:
            raise self._refused.error()
        declared = {t.name: t.input_schema.get("properties", {}) for t in await self.list_tools()}
        if name in declared and (unknown := sorted(set(arguments) - set(declared[name]))):
            raise ToolError(
                f"unknown argument(s) for {name}: {', '.join(map(repr, unknown))} "
                f"(it takes {', '.join(declared[name])})"
            )
        return await super().call_tool(name, arguments, context)

    def streamable_http_app(self, **kwargs: Any) -> Starlette:
        """The SDK's app at ``MCP_PATH`` behind ``BearerGate``; refused for a server built
        for one identity (stdio), which would serve anyone as that identity."""
        if self._gate is None:
            raise ValueError("this server runs as one identity (stdio); build one for HTTP")
        if kwargs.setdefault("streamable_http_path", MCP_PATH) != MCP_PATH:
            raise ValueError(f"the streamable HTTP endpoint is {MCP_PATH}")
        app = super().streamable_http_app(**kwargs)
        app.add_middleware(BearerGate, services=self._gate)
        return app


class Opener:
    """Services opened once, off the handshake's path: an MCP client (Codex waits 10 s by
    default) finishes its handshake and lists tools without waiting for the model and
    index. ``start()`` begins opening in a background thread at once (stdio: the memory
    opens while the client is still starting); the first tool call waits for it, and an
    opening that failed fails every call with its reason."""

    def __init__(self, services: Services | Callable[[], Services]) -> None:
        # Services (a dataclass) is not callable; an opener is
        self._open = services if callable(services) else None
        self._ready = None if callable(services) else services
        self._failed: str | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._opened, daemon=True, name="dose-mem-open").start()

    def _opened(self) -> None:
        with self._lock:
            if self._ready is None and self._failed is None and self._open is not None:
                try:
                    self._ready = self._open()
                except DoseMemError as exc:
                    self._failed = str(exc)

    def __call__(self) -> Services:
        if self._ready is None and self._failed is None:  # once opened, no lock per call
            self._opened()
        if self._failed is not None:
            raise ToolError(f"cannot open the memory: {self._failed}")
        assert self._ready is not None
        return self._ready


def _caller(fixed: Identity | Refused | None) -> Identity:
    """The identity of this call: the start-up one on stdio, the request's bearer on HTTP."""
    if isinstance(fixed, Refused):
        raise fixed.error()
    if fixed is not None:
        return fixed
    who = _request_identity.get()  # set per request by BearerGate
    if who is None:
        raise ToolError("no bearer token on this request")
    return who


def build_server(
    services: Services | Callable[[], Services],
    identity: Identity | Refused | None = None,
    *,
    cwd: str | None = None,
) -> MCPServer:
    """An MCP server over ``services`` (or a function opening them on the first tool call).

    stdio: give the ``identity`` every call runs as (or ``Refused``: every call is an
    error result), and ``cwd``, the server's working directory (``process_cwd()``), which
    stands in for the ``cwd`` that memory_search, memory_recall or a task start leaves out.
    Streamable HTTP: give neither; serve ``streamable_http_app()``, whose ``BearerGate``
    runs each request as its own bearer token's identity.
    """
    if identity is None and cwd is not None:
        raise ValueError("a server's cwd means nothing over HTTP: the client passes cwd")
    opened = Opener(services)
    if identity is not None:  # stdio: one client, which will call soon
        opened.start()
    server: MCPServer = DoseMemServer(
        gate=opened if identity is None else None,
        refused=identity if isinstance(identity, Refused) else None,
        name="dose-mem",
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    default_cwd = cwd  # the tools' own ``cwd`` argument shadows the name

    @server.tool()
    def memory_search(
        query: Annotated[QueryText, Field(description="What to look for.")],
        project: Annotated[ProjectId | None, Field(description="Limit to this project id.")] = None,
        cwd: Annotated[CwdPath | None, Field(description=CWD_HELP)] = None,
        k: Annotated[TopK, Field(description="How many items at most.")] = 5,
    ) -> dict[str, Any]:
        """Search the shared memory (hybrid dense + keyword) within your token's projects
        and profile. Returns items with their one-line conclusion (l0), overview (l1) and
        id; use memory_read(id) for the full text."""
        who = _caller(identity)
        engine = opened().engine
        engine.refresh_soon()
        hits = engine.search(who, query, project=project, cwd=cwd or default_cwd, k=k)
        return {
            "hits": [
                {
                    "id": h.item_id,
                    "project": h.project,
                    "type": h.type.value,
                    "l0": h.l0,
                    "l1": h.l1,
                    "score": round(h.rrf, 6),
                }
                for h in hits
            ]
        }

    @server.tool()
    def memory_read(
        id: ItemId,
    ) -> dict[str, Any]:
        """Read one memory item in full (all sections), even if superseded or archived."""
        who = _caller(identity)
        engine = opened().engine
        engine.refresh_soon()
        try:
            from recall_api.engine import item_view

            return item_view(engine.read(who, id))
        except UnknownItem as exc:
            raise ToolError(str(exc)) from exc
        except MalformedCard as exc:
            raise ToolError(f"memory file is malformed: {exc}") from exc

    @server.tool()
    def memory_recall(
        prompt: PromptText,
        session_id: SessionId,
        turn: Annotated[TurnNumber, Field(description="1 for a session's first prompt.")],
        cwd: Annotated[CwdPath | None, Field(description=CWD_HELP)] = None,
        project: ProjectId | None = None,
    ) -> dict[str, Any]:
        """The memory your profile would inject before this prompt, if any: 'text' is what
        to prepend; when nothing is injected, 'reason' says why."""
        who = _caller(identity)
        engine = opened().engine
        engine.refresh_soon()
        request = RecallRequest(
            prompt=prompt,
            session_id=session_id,
            turn=turn,
            cwd=cwd or default_cwd,
            project=project,
        )
        return engine.recall(who, request).model_dump(mode="json")

    @server.tool()
    def task_update(
        title: Annotated[
            str | None, Field(max_length=300, description="Starts a task (omit with task).")
        ] = None,
        task: Annotated[
            str | None, Field(max_length=128, description="Id of the task to update.")
        ] = None,
        status: Annotated[
            TaskStatus | None, Field(description="New status, if it changed.")
        ] = None,
        result: Annotated[
            str | None, Field(max_length=2000, description="Last known result, verbatim.")
        ] = None,
        next_step: Annotated[str | None, Field(max_length=2000)] = None,
        cwd: Annotated[CwdPath | None, Field(description=TASK_CWD_HELP)] = None,
        command: Annotated[str | None, Field(max_length=2000)] = None,
        log_path: Annotated[str | None, Field(max_length=1024)] = None,
        links: Annotated[list[str] | None, Field(max_length=20)] = None,
    ) -> dict[str, Any]:
        """Report work in flight so every agent can answer "is it done?": start a task
        (title, and cwd for its project) or update one by id (status: running, waiting,
        blocked, done, failed, abandoned; result quoted as it is). Returns the task id."""
        who = _caller(identity)
        engine = opened().engine
        if engine.tasks is None:
            raise ToolError("task state is not enabled in this service")
        if not (title or task):
            raise ToolError("give a title to start a task, or a task id to update one")
        report = Report(
            source="mcp",
            event="task_update",
            title=title,
            task=task,
            status=status,
            result=result,
            next_step=next_step,
            cwd=cwd or (default_cwd if task is None else None),  # an update never moves a task
            command=command,
            log_path=log_path,
            links=links or [],
        )
        try:
            events = engine.tasks.accept(report, who, engine.registry)
        except (UnknownTask, PermissionError) as exc:
            raise ToolError(str(exc)) from exc
        return {"tasks": [e.task for e in events], "status": [e.status for e in events]}

    return server
