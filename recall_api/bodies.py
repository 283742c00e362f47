"""Request bodies over a limit: read and dropped, then answered 413 with the limit.

Refusing before the body is read leaves a client that is still writing with a broken
pipe instead of a status; so the rest of the body is read and thrown away (at most
``DRAIN_BYTES``, beyond which the connection is closed after the status). Used by the
service's body limit (``app.BodyLimit``) and by the streamed session push
(``routes/sessions.py``).
"""

from __future__ import annotations

from fastapi.responses import JSONResponse
from starlette.types import Receive

from recall_api.models import DRAIN_BYTES


async def drain(receive: Receive, limit: int = DRAIN_BYTES) -> int:
    """Read and drop what is left of the request body, at most ``limit`` bytes; the bytes
    read. Stops at the body's end (never waits for a disconnect)."""
    seen = 0
    while seen <= limit:
        message = await receive()
        if message["type"] != "http.request":
            break
        seen += len(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return seen


def too_large(limit: int, what: str = "body") -> JSONResponse:
    """The 413 a client reads: what was too large, and the limit in bytes."""
    return JSONResponse({"detail": f"{what} larger than {limit} bytes", "limit": limit}, 413)
