"""The FastAPI recall service: thin routes over RecallEngine, and clear 4xx for bad input."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from memory_repo.settings import Settings
from recall_api.bodies import drain, too_large
from recall_api.deps import Services
from recall_api.inspector.pages import add_inspector
from recall_api.models import MAX_BODY_BYTES
from recall_api.routes import (
    client,
    health,
    memories,
    projects,
    recall,
    search,
    sessions,
    tasks,
)
from recall_api.services import build_services


class BodyLimit:
    """Refuse oversized bodies without holding them, so a huge request can't exhaust memory.

    A body declared larger than ``MAX_BODY_BYTES`` is read and thrown away (up to
    ``DRAIN_BYTES``) and answered 413 with the limit, so a client still writing reads the
    status instead of a broken pipe. A raw session push (``POST /v1/sessions`` whose body
    is not JSON) streams under its own, larger limit (``routes/sessions.py``).

    Plain ASGI rather than Starlette's ``BaseHTTPMiddleware``, which wraps every request
    in extra tasks and streams on this hot path (docs/index.md, "Measurements behind
    the code").
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            length = headers.get("content-length")
            if not sessions.streams(scope["path"], headers) and (
                length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES)
            ):
                await drain(receive)
                await too_large(MAX_BODY_BYTES)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    settings: Settings,
    services: Services | None = None,
    *,
    rollback: Callable[[Settings, str], str] | None = None,
) -> FastAPI:
    """``rollback`` is the write path's (``flows.rollback.rollback``) for the inspector's
    rollback button; only used when ``services`` is built here."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = settings.request_threads
        yield

    app = FastAPI(
        lifespan=lifespan,
        title="dose-mem recall service",
        version="1",
        description="One memory for many agents; each token gets its profile's dose.",
    )
    app.state.services = services or build_services(settings, rollback)
    app.add_middleware(BodyLimit)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", "invalid"), "type": e.get("type")}
            for e in exc.errors()
        ]
        return JSONResponse({"detail": errors}, status_code=422)

    for module in (recall, search, memories, projects, sessions, tasks, client, health):
        app.include_router(module.router)
    add_inspector(app)
    return app
