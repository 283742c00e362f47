"""The MCP face of the read path: ``memory_search``, ``memory_read``, ``memory_recall``,
and ``task_update`` for task state (docs/tasks.md).

The tools call ``RecallEngine`` in-process (never the HTTP service), so they obey exactly
the same token and profile rules. Who is asking depends on the transport:

* stdio: one client per process, so the token is verified once at start-up and every
  call runs as that identity;
* streamable HTTP: every request carries ``Authorization: Bearer <token>``; the SDK's
  bearer middleware refuses a missing or bad token with 401 before any tool runs, and
  each tool call resolves the identity from its own request's token (a revoked token
  stops working on the next request, without a restart).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from memory_repo.errors import DoseMemError, MalformedCard, UnknownItem
from memory_repo.tasks.extract import Report, UnknownTask
from memory_repo.tasks.model import TaskStatus
from profiles.model import Profile
from recall_api.deps import Services
from recall_api.engine import item_view
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
from recall_api.tokens import TokenStore

INSTRUCTIONS = (
    "dose-mem is the user's shared memory across agents. Relevant memory is often injected "
    "for you already; call memory_search when you need something that was not, and "
    "memory_read with an id (from a search hit or an injected link) for the full text. "
    "When you start or finish long-running work (a training run, a PR, a job), call "
    "task_update so the user's other agents can say whether it is done."
)


class UnusableProfile(DoseMemError):
    """A valid token whose profile this server does not have (e.g. a deleted YAML)."""


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


class StoreTokenVerifier:
    """The SDK's bearer-token hook, backed by the dose-mem token store."""

    def __init__(self, services: Services) -> None:
        self.services = services

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            who = identity_for(self.services.tokens, self.services.engine.profiles, token)
        except DoseMemError:
            return None
        return AccessToken(
            token=token, client_id=who.token_id, scopes=[], claims={"agent": who.agent}
        )


class Opener:
    """Services opened on first use, once: an MCP client (Codex waits 10 s by default)
    finishes its handshake and lists tools without waiting for the model and index."""

    def __init__(self, services: Services | Callable[[], Services]) -> None:
        self._ready = services if isinstance(services, Services) else None
        self._open = services if callable(services) else None
        self._lock = threading.Lock()

    def __call__(self) -> Services:
        if self._ready is None:
            with self._lock:
                if self._ready is None and self._open is not None:
                    try:
                        self._ready = self._open()
                    except DoseMemError as exc:
                        raise ToolError(f"cannot open the memory: {exc}") from exc
        assert self._ready is not None
        return self._ready


def _caller(services: Services, fixed: Identity | None) -> Identity:
    """The identity of this call: the start-up one on stdio, the request's bearer on HTTP."""
    if fixed is not None:
        return fixed
    access = get_access_token()  # set per request by the SDK's bearer middleware
    if access is None:
        raise ToolError("no bearer token on this request")
    try:
        return identity_for(services.tokens, services.engine.profiles, access.token)
    except DoseMemError as exc:
        raise ToolError(f"token refused: {exc}") from exc


def build_server(
    services: Services | Callable[[], Services],
    identity: Identity | None = None,
    *,
    http_url: str | None = None,
) -> MCPServer:
    """An MCP server over ``services`` (or a function opening them on the first tool call).

    Give ``identity`` for stdio, ``http_url`` for streamable HTTP.
    """
    if (identity is None) == (http_url is None):
        raise ValueError("give exactly one of identity (stdio) or http_url (streamable HTTP)")
    opened = Opener(services)
    auth_kwargs: dict[str, Any] = {}
    if http_url is not None:
        auth_kwargs = {
            "token_verifier": StoreTokenVerifier(opened()),
            "auth": AuthSettings(
                issuer_url=http_url, resource_server_url=http_url, validate_token_resource=False
            ),
        }
    server: MCPServer = MCPServer(
        "dose-mem", instructions=INSTRUCTIONS, log_level="WARNING", **auth_kwargs
    )

    @server.tool()
    def memory_search(
        query: Annotated[QueryText, Field(description="What to look for.")],
        project: Annotated[ProjectId | None, Field(description="Limit to this project id.")] = None,
        k: Annotated[TopK, Field(description="How many items at most.")] = 5,
    ) -> dict[str, Any]:
        """Search the shared memory (hybrid dense + keyword) within your token's projects
        and profile. Returns items with their one-line conclusion (l0), overview (l1) and
        id; use memory_read(id) for the full text."""
        svc = opened()
        who, engine = _caller(svc, identity), svc.engine
        engine.refresh_soon()
        hits = engine.search(who, query, project=project, k=k)
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
        svc = opened()
        who, engine = _caller(svc, identity), svc.engine
        engine.refresh_soon()
        try:
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
        cwd: CwdPath | None = None,
        project: ProjectId | None = None,
    ) -> dict[str, Any]:
        """The memory your profile would inject before this prompt, if any: 'text' is what
        to prepend; when nothing is injected, 'reason' says why."""
        svc = opened()
        who, engine = _caller(svc, identity), svc.engine
        engine.refresh_soon()
        request = RecallRequest(
            prompt=prompt, session_id=session_id, turn=turn, cwd=cwd, project=project
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
        cwd: CwdPath | None = None,
        command: Annotated[str | None, Field(max_length=2000)] = None,
        log_path: Annotated[str | None, Field(max_length=1024)] = None,
        links: Annotated[list[str] | None, Field(max_length=20)] = None,
    ) -> dict[str, Any]:
        """Report work in flight so every agent can answer "is it done?": start a task
        (title, and cwd for its project) or update one by id (status: running, waiting,
        blocked, done, failed, abandoned; result quoted as it is). Returns the task id."""
        svc = opened()
        who, engine = _caller(svc, identity), svc.engine
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
            cwd=cwd,
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
