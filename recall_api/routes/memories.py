"""GET /v1/memories/{id}: one item in full (all layers), access checked."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Path, Query

from memory_repo.errors import MalformedCard, UnknownItem
from recall_api.deps import IdentityDep, ServicesDep
from recall_api.engine import item_view
from recall_api.models import ITEM_ID_PATTERN, MAX_ITEM_ID_CHARS, MAX_SESSION_ID_CHARS, MAX_TURN

router = APIRouter(tags=["memories"])


@router.get("/v1/memories/{item_id}")
def read_memory(
    who: IdentityDep,
    svc: ServicesDep,
    item_id: str = Path(max_length=MAX_ITEM_ID_CHARS, pattern=ITEM_ID_PATTERN),
    session_id: str | None = Query(None, min_length=1, max_length=MAX_SESSION_ID_CHARS),
    turn: int | None = Query(None, ge=1, le=MAX_TURN),
) -> dict[str, Any]:
    """Readable even when superseded, expired or archived: explicit reads are never filtered
    by lifecycle, only by the token's projects. ``session_id`` and ``turn`` (optional)
    tie the read to the agent's session in the recall log."""
    try:
        item = svc.engine.read(who, item_id, session=session_id, turn=turn)
        return item_view(item)
    except UnknownItem as exc:
        raise HTTPException(404, str(exc)) from exc
    except MalformedCard as exc:
        raise HTTPException(409, f"memory file is malformed: {exc}") from exc
