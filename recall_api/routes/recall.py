"""POST /v1/recall: the memory an agent should see before this prompt, if any."""

from __future__ import annotations

from fastapi import APIRouter, Response

from recall_api.deps import IdentityDep, ServicesDep
from recall_api.models import RecallRequest, RecallResult

router = APIRouter(tags=["recall"])


@router.post("/v1/recall", response_model=RecallResult)
def recall(body: RecallRequest, who: IdentityDep, svc: ServicesDep) -> Response:
    """Run trigger, scope, hybrid retrieval, gate and assembly for the caller's profile.

    When nothing is injected, ``reason`` says why: ``not_triggered``, ``out_of_scope``,
    ``no_hits``, ``below_threshold``, ``no_task`` or ``held`` (the agent keeps what it
    was given earlier in the session; ``held`` lists it).
    """
    # Serialised here: the engine already built a validated RecallResult, and letting
    # FastAPI validate it again against response_model costs every recall.
    result = svc.engine.recall(who, body)
    return Response(result.model_dump_json(), media_type="application/json")
