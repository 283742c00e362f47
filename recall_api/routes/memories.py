"""GET /v1/memories/{id}: one item in full (all layers), access checked."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Path

from memory_repo.errors import MalformedCard, UnknownItem
from recall_api.deps import IdentityDep, ServicesDep
from recall_api.engine import item_view
from recall_api.models import ITEM_ID_PATTERN, MAX_ITEM_ID_CHARS

router = APIRouter(tags=["memories"])


@router.get("/v1/memories/{item_id}")
def read_memory(
    who: IdentityDep,
    svc: ServicesDep,
    item_id: str = Path(max_length=MAX_ITEM_ID_CHARS, pattern=ITEM_ID_PATTERN),
) -> dict[str, Any]:
    """Readable even when superseded, expired or archived: explicit reads are never filtered
    by lifecycle, only by the token's projects."""
    try:
        return item_view(svc.engine.read(who, item_id))
    except UnknownItem as exc:
        raise HTTPException(404, str(exc)) from exc
    except MalformedCard as exc:
        raise HTTPException(409, f"memory file is malformed: {exc}") from exc
