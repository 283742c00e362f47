"""Task state over HTTP: agents report events, and read the tasks they may see.

``POST /v1/tasks/events`` answers 202 only after the events are on disk (an accepted
event survives a SIGKILL of the service); a report that amounts to no event is still
202, with ``accepted: 0``. A report sent again under the same ``Idempotency-Key`` (a
client retrying after an answer it never got) is applied once. ``GET /v1/tasks`` lists
what the token's profile would be shown (docs/tasks.md).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Request
from pydantic import BaseModel

from memory_repo.tasks.extract import Report, UnknownTask
from memory_repo.tasks.model import Task, TaskStatus
from recall_api import client_outboxes
from recall_api.deps import IdentityDep, ServicesDep
from recall_api.task_board import TaskBoard

router = APIRouter(tags=["tasks"])
MAX_KEY_CHARS = 128


class Accepted(BaseModel):
    accepted: int
    tasks: list[str]
    statuses: list[TaskStatus | None]


def _board(svc: ServicesDep) -> TaskBoard:
    if svc.engine.tasks is None:
        raise HTTPException(404, "task state is not enabled in this service")
    return svc.engine.tasks


@router.post("/v1/tasks/events", response_model=Accepted, status_code=202)
def report(
    body: Report,
    request: Request,
    who: IdentityDep,
    svc: ServicesDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            min_length=1,
            max_length=MAX_KEY_CHARS,
            pattern=r"^[A-Za-z0-9._:-]+$",
            description="Sent again under the same key, the report is applied once and "
            "answered as the first time.",
        ),
    ] = None,
) -> Accepted:
    """Send a hook payload as it came (``source``, ``event``, ``payload``) or explicit
    fields (``task`` to update one, else ``title`` to start one; ``status``, ``result``
    ...). The agent is the token's, never the body's."""
    board = _board(svc)
    client_outboxes.note(svc.settings.state_path, who.agent, request.headers)
    try:
        events = board.accept(body, who, svc.engine.registry, idempotency_key)
    except UnknownTask as exc:
        raise HTTPException(404, str(exc)) from exc
    except PermissionError as exc:
        raise HTTPException(403, str(exc)) from exc
    return Accepted(
        accepted=len(events), tasks=[e.task for e in events], statuses=[e.status for e in events]
    )


@router.get("/v1/tasks", response_model=list[Task])
def tasks(who: IdentityDep, svc: ServicesDep, project: str | None = None) -> list[Task]:
    board = _board(svc)
    profile = svc.engine.profile(who)
    return board.visible(who, profile, svc.engine.registry, project)
