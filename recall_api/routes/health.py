"""GET /healthz: liveness plus what the index was built with (no token needed)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from recall_api.deps import ServicesDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(svc: ServicesDep) -> dict[str, Any]:
    return {"status": "ok", "embedder": svc.engine.index.embedder.name}
