"""POST /v1/search: the memory_search tool an agent calls itself (logged as a recall miss)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from memory_repo.index.hits import Hit
from recall_api.deps import IdentityDep, ServicesDep
from recall_api.models import CwdPath, ProjectId, QueryText, TopK

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
    )
    return SearchResponse(hits=hits)
