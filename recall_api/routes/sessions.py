"""POST /v1/sessions: an agent pushes an ended transcript for the next ingest run.

The read path never writes cards: the transcript only lands in the ingest inbox under
state, and the Prefect ``ingest`` flow distils it like any captured session.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from memory_repo.inbox import BadTranscript, StoredSession, add_session
from recall_api.deps import IdentityDep, ServicesDep
from recall_api.models import MAX_FORMAT_CHARS, MAX_TRANSCRIPT_CHARS

router = APIRouter(tags=["sessions"])


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


@router.post("/v1/sessions", response_model=StoredSession, status_code=202)
def push_session(body: SessionPush, who: IdentityDep, svc: ServicesDep) -> StoredSession:
    """Stored under the token's agent name; pushing the same transcript twice stores it once."""
    try:
        return add_session(svc.settings, body.transcript.encode("utf-8"), who.agent, body.format)
    except BadTranscript as exc:
        raise HTTPException(422, str(exc)) from exc
