"""GET /v1/projects: the projects this token may see."""

from __future__ import annotations

from fastapi import APIRouter

from memory_repo.models import Project
from recall_api.deps import IdentityDep, ServicesDep

router = APIRouter(tags=["projects"])


@router.get("/v1/projects", response_model=list[Project])
def projects(who: IdentityDep, svc: ServicesDep) -> list[Project]:
    return svc.engine.visible_projects(who)
