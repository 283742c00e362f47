"""Who may open the inspector: the holder of an admin token, and only from the same site.

A browser cannot put a bearer header on a link, so ``POST /ui/login`` checks the token
against the hashed store (``TokenStore.verify``) and sets it as a cookie that is
``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page or link
sends it) and scoped to ``/ui``. Every page re-verifies the cookie, so revoking the token
logs the browser out. A bearer header works too (curl, tests). Agent tokens are refused
with 403, a missing or bad one with 401 (the login page).

State-changing requests (login aside, only the rollback) also need their ``Origin``, when
the browser sends one, to be this service's own origin (``same_origin``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from recall_api.deps import Services, services
from recall_api.tokens import TokenError, TokenRecord

COOKIE = "dose_mem_admin"
COOKIE_PATH = "/ui"
COOKIE_MAX_AGE_S = 12 * 3600


class LoginNeeded(HTTPException):
    """No admin credential (or a bad one): answered with the login page and 401."""

    def __init__(self, detail: str) -> None:
        super().__init__(401, detail)


class NotAdmin(HTTPException):
    """An agent token: answered with the login page and 403."""

    def __init__(self) -> None:
        super().__init__(403, "an agent token cannot open the inspector; use an admin token")


def presented_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE)


def check_admin(svc: Services, token: str | None) -> TokenRecord:
    """The admin token's record; ``LoginNeeded`` (401) or a 403 for an agent token."""
    if not token:
        raise LoginNeeded("log in with an admin token")
    try:
        record = svc.tokens.verify(token)
    except TokenError as exc:
        raise LoginNeeded(str(exc)) from exc
    if not record.admin:
        raise NotAdmin
    return record


async def admin(request: Request, svc: Annotated[Services, Depends(services)]) -> TokenRecord:
    return check_admin(svc, presented_token(request))


def same_origin(request: Request) -> None:
    """Refuse a state-changing request sent from another origin (403)."""
    origin = request.headers.get("origin")
    if origin is None:  # not a browser (browsers send Origin with every POST)
        return
    own = f"{request.url.scheme}://{request.url.netloc}"
    if origin != own:
        raise HTTPException(403, f"cross-origin request refused (from {origin})")


AdminDep = Annotated[TokenRecord, Depends(admin)]
