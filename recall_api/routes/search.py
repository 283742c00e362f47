"""POST /v1/search: the memory_search tool an agent calls itself (a signal in the recall log)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from memory_repo.index.hits import Hit
from recall_api.deps import IdentityDep, ServicesDep
from recall_api.models import CwdPath, ProjectId, QueryText, SessionId, TopK, TurnNumber

router = APIRouter(tags=["search"])


class SearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"query": "which licence for the dataset", "k": 5}]},
    )

    query: QueryText
    project: ProjectId | None = None
    cwd: CwdPath | None = None
    k: TopK = 10
    include_inactive: bool = Field(
        default=False, description="Also superseded, expired and archived items."
    )
    session_id: SessionId | None = Field(
        default=None, description="The agent's session, for the recall log (optional)."
    )
    turn: TurnNumber | None = None


class SearchResponse(BaseModel):
    hits: list[Hit]


@router.post("/v1/search", response_model=SearchResponse)
def search(body: SearchRequest, who: IdentityDep, svc: ServicesDep) -> SearchResponse:
    hits = svc.engine.search(
        who,
        body.query,
        project=body.project,
        cwd=body.cwd,
        k=body.k,
        include_inactive=body.include_inactive,
        session=body.session_id,
        turn=body.turn,
    )
    return SearchResponse(hits=hits)
