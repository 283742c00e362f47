"""POST /v1/recall: the memory an agent should see before this prompt, if any."""

from __future__ import annotations

from fastapi import APIRouter

from recall_api.deps import IdentityDep, ServicesDep
from recall_api.models import RecallRequest, RecallResult

router = APIRouter(tags=["recall"])


@router.post("/v1/recall", response_model=RecallResult)
def recall(body: RecallRequest, who: IdentityDep, svc: ServicesDep) -> RecallResult:
    """Run trigger, scope, hybrid retrieval, gate and assembly for the caller's profile.

    When nothing is injected, ``reason`` says why: ``not_triggered``, ``out_of_scope`` or
    ``below_threshold``.
    """
    return svc.engine.recall(who, body)
