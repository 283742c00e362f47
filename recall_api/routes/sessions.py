"""POST /v1/sessions: an agent pushes an ended transcript for the next ingest run.

The read path never writes cards: the transcript only lands in the ingest inbox under
state, and the Prefect ``ingest`` flow distils it like any captured session.

Two ways to push (docs/operations.md, "Sessions of any size"):

* **JSON** (``Content-Type: application/json``): ``{"transcript": "...", "format": ...}``,
  under the service's 1 MiB body limit. Kept for small pushes and old clients.
* **Raw**: any other content type, the transcript file's bytes as the body, the format
  in ``?format=``, optionally ``Content-Encoding: gzip``. The body is streamed to a file
  in the inbox (never held whole in memory) under ``MAX_SESSION_BYTES``, compressed and
  uncompressed; beyond it the rest is drained and the answer is a 413 naming the limit.
"""

from __future__ import annotations

import uuid
import zlib
from pathlib import Path

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import Headers

from memory_repo.inbox import BadTranscript, StoredSession, add_session
from memory_repo.settings import Settings
from recall_api.bodies import drain, too_large
from recall_api.deps import IdentityDep, ServicesDep
from recall_api.models import (
    MAX_FORMAT_CHARS,
    MAX_SESSION_BYTES,
    MAX_TRANSCRIPT_CHARS,
)

router = APIRouter(tags=["sessions"])
PATH = "/v1/sessions"


class SessionPush(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"format": "claude_code", "transcript": '{"type": "user", ...}\n'}]
        },
    )

    transcript: str = Field(min_length=1, max_length=MAX_TRANSCRIPT_CHARS)
    format: str | None = Field(
        default=None,
        max_length=MAX_FORMAT_CHARS,
        description="claude_code | codex | hermes | pi | transcript; default: the agent's own",
    )


class TooLarge(Exception):
    """The pushed body passed ``MAX_SESSION_BYTES``."""


def streams(path: str, headers: Headers) -> bool:
    """A raw session push: streamed under its own limit, not the service's body limit."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    return path == PATH and kind != "application/json"


@router.post(PATH, response_model=StoredSession, status_code=202)
async def push_session(
    request: Request,
    who: IdentityDep,
    svc: ServicesDep,
    fmt: str | None = Query(
        default=None,
        alias="format",
        max_length=MAX_FORMAT_CHARS,
        description="raw pushes: claude_code | codex | hermes | pi | transcript",
    ),
) -> StoredSession | JSONResponse:
    """Stored under the token's agent name; pushing the same transcript twice stores it once."""
    if not streams(request.url.path, request.headers):
        try:
            body = SessionPush.model_validate_json(await request.body())
        except ValidationError as exc:
            raise RequestValidationError(exc.errors()) from None
        data: bytes | Path = body.transcript.encode("utf-8")
        return await _store(svc.settings, data, who.agent, body.format)
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip"):
        raise HTTPException(415, f"Content-Encoding {encoding!r}: send gzip or none")
    part = svc.settings.inbox_path / ".incoming" / f"{uuid.uuid4().hex}.part"
    try:
        try:
            await _receive(request, part, gzipped=encoding == "gzip")
        except TooLarge:
            return too_large(MAX_SESSION_BYTES, "session")
        except zlib.error as exc:
            raise HTTPException(400, f"body is not valid gzip: {exc}") from None
        return await _store(svc.settings, part, who.agent, fmt)
    finally:
        part.unlink(missing_ok=True)


async def _receive(request: Request, part: Path, *, gzipped: bool) -> int:
    """Stream the body into ``part`` (gunzipped when ``gzipped``); the bytes written.
    Raises ``TooLarge`` past ``MAX_SESSION_BYTES`` either side of the decompression,
    after reading and dropping the rest of the body (at most ``DRAIN_BYTES``)."""
    part.parent.mkdir(parents=True, exist_ok=True)
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzipped else None
    received = written = 0
    more = True
    with part.open("wb") as out:
        while more:
            message = await request.receive()
            if message["type"] != "http.request":
                raise zlib.error("the client went away")
            chunk, more = message.get("body", b""), bool(message.get("more_body", False))
            received += len(chunk)
            data = inflate.decompress(chunk, MAX_SESSION_BYTES + 1 - written) if inflate else chunk
            written += len(data)
            cut = inflate is not None and bool(inflate.unconsumed_tail)
            if received > MAX_SESSION_BYTES or written > MAX_SESSION_BYTES or cut:
                if more:
                    await drain(request.receive)
                raise TooLarge
            out.write(data)
        if inflate is not None:
            if not inflate.eof:
                raise zlib.error("truncated gzip stream")
            out.write(inflate.flush())
    return written


async def _store(
    settings: Settings, data: bytes | Path, agent: str, fmt: str | None
) -> StoredSession:
    try:
        return await run_in_threadpool(add_session, settings, data, agent, fmt)
    except BadTranscript as exc:
        raise HTTPException(422, str(exc)) from exc
