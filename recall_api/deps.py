"""What every route needs: the engine, the token store, and the caller's identity."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from recall_api.models import Identity
from recall_api.services import Services
from recall_api.tokens import TokenError

_bearer = HTTPBearer(auto_error=False)


async def services(request: Request) -> Services:
    """Async, like ``identity``: a sync dependency costs a thread hop per request. A new
    index version is loaded on a thread of its own; no request waits for it."""
    svc: Services = request.app.state.services
    svc.engine.refresh_soon()
    return svc


async def identity(
    svc: Annotated[Services, Depends(services)],
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Identity:
    unauthorized = {"WWW-Authenticate": "Bearer"}
    if creds is None or creds.scheme.lower() != "bearer":
        raise HTTPException(401, "missing bearer token", headers=unauthorized)
    try:
        record = svc.tokens.verify(creds.credentials)
    except TokenError as exc:
        raise HTTPException(401, str(exc), headers=unauthorized) from exc
    if record.admin:
        raise HTTPException(403, "an admin token opens the inspector (/ui), not the agent API")
    if record.profile not in svc.engine.profiles:
        raise HTTPException(403, f"token's profile {record.profile!r} is not configured")
    return Identity(
        agent=record.agent, profile=record.profile, projects=record.projects, token_id=record.id
    )


ServicesDep = Annotated[Services, Depends(services)]
IdentityDep = Annotated[Identity, Depends(identity)]
