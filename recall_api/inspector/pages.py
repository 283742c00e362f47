"""The inspector's routes under /ui: server-rendered Jinja2 pages, plain forms, no script.

Pages: Dose (what every agent would receive for a prompt), Cards (and one card), Log
(recent recalls and searches), Write path (ingest runs, their decisions and sessions,
facts held for want of a project, rollback).
Access and the cookie scheme: ``inspector/auth.py`` and docs/inspector.md.
"""

from __future__ import annotations

from pathlib import Path as FsPath
from typing import Annotated
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, HTTPException, Path, Query, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from memory_repo import held
from memory_repo.errors import DoseMemError
from profiles.proposals import load_run
from recall_api import client_outboxes
from recall_api.deps import ServicesDep
from recall_api.inspector import views
from recall_api.inspector.auth import (
    COOKIE,
    COOKIE_MAX_AGE_S,
    COOKIE_PATH,
    AdminDep,
    LoginNeeded,
    NotAdmin,
    check_admin,
    same_origin,
)
from recall_api.models import (
    ITEM_ID_PATTERN,
    MAX_CWD_CHARS,
    MAX_ITEM_ID_CHARS,
    MAX_PROJECT_CHARS,
    MAX_PROMPT_CHARS,
    MAX_SESSION_ID_CHARS,
    Reason,
    RecallRequest,
)

templates = Jinja2Templates(directory=FsPath(__file__).parent / "templates")
router = APIRouter(prefix="/ui", include_in_schema=False)
# A run id as the ingest flow makes them (20261206T061500Z-1a2b3c4d), or any safe token.
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
MAX_FORM_BYTES = 16_384


def page(request: Request, name: str, status: int = 200, **context: object) -> HTMLResponse:
    return templates.TemplateResponse(request, name, {"active": name, **context}, status)


async def form(request: Request) -> dict[str, str]:
    """A small urlencoded form (no multipart parser needed for these few fields)."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise HTTPException(413, "form too large")
    fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {k: v[0] for k, v in fields.items()}


@router.get("")
@router.get("/")
async def home() -> RedirectResponse:
    return RedirectResponse("/ui/dose", 303)


@router.get("/login")
async def login_form(request: Request) -> HTMLResponse:
    return page(request, "login.html")


@router.post("/login")
async def login(request: Request, svc: ServicesDep) -> Response:
    same_origin(request)
    token = (await form(request)).get("token", "").strip()
    check_admin(svc, token)
    done = RedirectResponse("/ui/dose", 303)
    done.set_cookie(
        COOKIE,
        token,
        max_age=COOKIE_MAX_AGE_S,
        path=COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return done


@router.post("/logout")
async def logout(request: Request) -> Response:
    same_origin(request)
    done = RedirectResponse("/ui/login", 303)
    done.delete_cookie(COOKIE, path=COOKIE_PATH)
    return done


@router.get("/dose")
def dose_page(
    request: Request,
    svc: ServicesDep,
    _: AdminDep,
    prompt: Annotated[str, Query(max_length=MAX_PROMPT_CHARS)] = "",
    cwd: Annotated[str, Query(max_length=MAX_CWD_CHARS)] = "",
    project: Annotated[str, Query(max_length=MAX_PROJECT_CHARS)] = "",
    turn: Annotated[int, Query(ge=1, le=1000)] = 1,
    session: Annotated[str, Query(max_length=MAX_SESSION_ID_CHARS)] = "",
) -> HTMLResponse:
    results = []
    if prompt.strip():
        try:
            ask = RecallRequest(
                prompt=prompt,
                session_id="inspector",
                turn=turn,
                cwd=cwd or None,
                project=project or None,
            )
        except ValidationError as exc:
            raise HTTPException(422, str(exc.errors()[0]["msg"])) from exc
        results = views.dose(svc, ask, session.strip())
    return page(
        request,
        "dose.html",
        prompt=prompt,
        cwd=cwd,
        project=project,
        turn=turn,
        session=session,
        results=results,
        examples=views.DEMO_PROMPTS,
        projects=[p.id for p in svc.engine.registry.projects],
    )


@router.get("/cards")
def cards_page(
    request: Request,
    svc: ServicesDep,
    _: AdminDep,
    project: Annotated[str, Query(max_length=MAX_PROJECT_CHARS)] = "",
    type: Annotated[str, Query(max_length=40)] = "",
) -> HTMLResponse:
    rows, projects, types, problems = views.cards(
        svc.settings.memory_path, svc.engine.today(), project or None, type or None
    )
    return page(
        request,
        "cards.html",
        rows=rows,
        projects=projects,
        types=types,
        project=project,
        type=type,
        problems=problems,
    )


@router.get("/cards/{item_id}")
def card_page(
    request: Request,
    svc: ServicesDep,
    _: AdminDep,
    item_id: str = Path(max_length=MAX_ITEM_ID_CHARS, pattern=ITEM_ID_PATTERN),
) -> HTMLResponse:
    found = views.card(svc.settings.memory_path, svc.engine.today(), item_id)
    if found is None:
        raise HTTPException(404, f"no card {item_id!r}")
    return page(request, "card.html", card=found)


@router.get("/log")
def log_page(
    request: Request,
    svc: ServicesDep,
    _: AdminDep,
    agent: Annotated[str, Query(max_length=200)] = "",
    reason: Annotated[str, Query(max_length=40)] = "",
    q: Annotated[str, Query(max_length=400)] = "",
    missed: Annotated[bool, Query()] = False,
) -> HTMLResponse:
    folder = svc.settings.recall_log_path
    want = views.LogFilter(
        agent=agent or None, reason=reason or None, text=q or None, missed=missed
    )
    return page(
        request,
        "log.html",
        rows=views.recall_log(folder, want),
        agents=views.logged_agents(folder),
        reasons=[r.value for r in Reason],
        agent=agent,
        reason=reason,
        q=q,
        missed=missed,
        logging=svc.engine.recall_log is not None,
        prompts=svc.settings.recall_log_prompts,
    )


@router.get("/profiles")
def profiles_page(request: Request, svc: ServicesDep, _: AdminDep) -> HTMLResponse:
    """The latest tune-profiles proposals (applied only by ``dose-mem profiles apply``)."""
    try:
        run, error = load_run(svc.settings.state_path), None
    except DoseMemError as exc:
        run, error = None, str(exc)
    return page(request, "profiles.html", run=run, error=error)


@router.get("/runs")
def runs_page(request: Request, svc: ServicesDep, _: AdminDep) -> HTMLResponse:
    rows, problems = views.runs(svc)
    return page(
        request,
        "runs.html",
        rows=rows,
        problems=problems,
        held=held.read(svc.settings.state_path),
        outboxes=[c for c in client_outboxes.read(svc.settings.state_path) if c.dropped],
        can_roll_back=svc.rollback is not None,
    )


@router.get("/runs/{run_id}/rollback")
def rollback_confirm(
    request: Request,
    svc: ServicesDep,
    _: AdminDep,
    run_id: str = Path(pattern=RUN_ID_PATTERN),
) -> HTMLResponse:
    rows, _problems = views.runs(svc)
    row = next((r for r in rows if r.run_id == run_id), None)
    if row is None or row.landed is None:
        raise HTTPException(404, f"no landed ingest run {run_id!r}")
    return page(request, "rollback.html", row=row, can_roll_back=svc.rollback is not None)


@router.post("/runs/{run_id}/rollback")
async def rollback(
    request: Request,
    svc: ServicesDep,
    _: AdminDep,
    run_id: str = Path(pattern=RUN_ID_PATTERN),
) -> HTMLResponse:
    same_origin(request)
    if (await form(request)).get("confirm") != run_id:
        raise HTTPException(400, "confirm the rollback by submitting the confirmation form")
    if svc.rollback is None:
        raise HTTPException(503, f"rollback is not wired here; run: dose-mem rollback {run_id}")
    try:
        sha = await run_in_threadpool(svc.rollback, svc.settings, run_id)
    except DoseMemError as exc:
        raise HTTPException(409, f"rollback failed: {exc}") from exc
    return page(request, "rolled_back.html", run_id=run_id, sha=sha)


def add_inspector(app: FastAPI) -> None:
    """Mount /ui and answer its errors as pages (401 is the login form)."""
    app.include_router(router)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> Response:
        if not request.url.path.startswith("/ui"):
            return await http_exception_handler(request, exc)
        if isinstance(exc, LoginNeeded | NotAdmin):
            return page(request, "login.html", exc.status_code, error=exc.detail)
        return page(
            request, "error.html", exc.status_code, error=exc.detail, status_code=exc.status_code
        )
