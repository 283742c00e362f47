"""Requests and results of the read path, shared by the library, HTTP, MCP and evaluation.

The request limits are defined once, here, and used by every face of the read path: the
HTTP bodies (``RecallRequest``, ``routes/search.py``, ``routes/sessions.py``), the HTTP
path parameter (``routes/memories.py``) and the MCP tool arguments (``mcp_server.py``).
A value outside them is refused at the edge, naming the field (HTTP 422, MCP tool error).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

MAX_PROMPT_CHARS = 32_000
MAX_QUERY_CHARS = 4_000
MAX_SESSION_ID_CHARS = 200
MAX_PROJECT_CHARS = 200
MAX_CWD_CHARS = 4_096
MAX_TURN = 1_000_000
MAX_K = 50
MAX_ITEM_ID_CHARS = 300
ITEM_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
MAX_TRANSCRIPT_CHARS = 900_000
MAX_FORMAT_CHARS = 40
# Whole HTTP bodies, refused with 413 (``app.BodyLimit``) after the body is drained, so
# a client still writing reads the status instead of a broken pipe.
MAX_BODY_BYTES = 1 << 20
# A session pushed raw (``POST /v1/sessions`` with a transcript body, gzip or not):
# streamed to disk, refused beyond this many bytes (compressed and uncompressed alike).
MAX_SESSION_BYTES = 64 << 20
# How much of a refused body is read (and thrown away) before the 413 is sent; beyond
# it the connection is closed after the status.
DRAIN_BYTES = 128 << 20

PromptText = Annotated[str, Field(min_length=1, max_length=MAX_PROMPT_CHARS)]
QueryText = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
SessionId = Annotated[str, Field(min_length=1, max_length=MAX_SESSION_ID_CHARS)]
TurnNumber = Annotated[int, Field(ge=1, le=MAX_TURN)]
CwdPath = Annotated[str, Field(max_length=MAX_CWD_CHARS)]
ProjectId = Annotated[str, Field(max_length=MAX_PROJECT_CHARS)]
TopK = Annotated[int, Field(ge=1, le=MAX_K)]
ItemId = Annotated[str, Field(min_length=1, max_length=MAX_ITEM_ID_CHARS, pattern=ITEM_ID_PATTERN)]


class Identity(BaseModel):
    """Who is asking: resolved from a token, never from the request body."""

    agent: str
    profile: str
    projects: list[str] | None = Field(
        description="Projects this agent may see; None means every project ('*')."
    )
    token_id: str = ""


class RecallRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "prompt": "Set up the Python environment for this project",
                    "session_id": "2b9f",
                    "turn": 1,
                    "cwd": "/home/me/code/tablekit",
                }
            ]
        },
    )

    prompt: PromptText
    session_id: SessionId
    turn: TurnNumber
    cwd: CwdPath | None = None
    project: ProjectId | None = None
    context_reset: bool = Field(
        default=False,
        description="The agent compacted or cleared its context since its last recall in "
        "this session: what the session was given is forgotten before this recall, so "
        "an item the agent no longer holds is given again (docs/read-path.md, "
        "'Session-aware dose').",
    )


class Reason(StrEnum):
    injected = "injected"
    not_triggered = "not_triggered"
    out_of_scope = "out_of_scope"
    below_threshold = "below_threshold"
    # The scope is one the token may see, but the search found nothing in it (no
    # recallable item there yet: an empty project, or only retired cards).
    no_hits = "no_hits"
    # A status question that names no task this token may see (docs/tasks.md).
    no_task = "no_task"
    # Everything that passed the gate was given earlier in this session and the agent
    # keeps it (``RecallResult.held``; docs/read-path.md, "Session-aware dose").
    held = "held"


class InjectedItem(BaseModel):
    id: str
    project: str
    type: str
    text: str
    bytes: int
    link: str
    score: float
    cosine: float
    bm25: float
    rank: int


class HeldItem(BaseModel):
    """An item that passed the gate but was not given again: the agent holds it since
    ``turn`` of this session (the turn it was given on), in the version it would get."""

    id: str
    turn: int


class RecallResult(BaseModel):
    """What was injected and why; ``text`` is exactly what the agent should prepend.
    ``held`` lists what passed but was held back because the agent already has it."""

    injected: bool
    reason: Reason
    trigger: str | None = None
    project: str | None = None
    profile: str
    items: list[InjectedItem] = Field(default_factory=list)
    text: str = ""
    bytes: int = 0
    considered: int = 0
    held: list[HeldItem] = Field(default_factory=list)

    @classmethod
    def quiet(
        cls,
        reason: Reason,
        *,
        profile: str,
        trigger: str | None = None,
        project: str | None = None,
        considered: int = 0,
        held: list[HeldItem] | None = None,
    ) -> RecallResult:
        """A decision to inject nothing, and why (``reason`` is never ``injected``)."""
        if reason is Reason.injected:
            raise ValueError("a quiet result needs the reason it stayed quiet")
        return cls(
            injected=False,
            reason=reason,
            profile=profile,
            trigger=trigger,
            project=project,
            considered=considered,
            held=held or [],
        )

    @classmethod
    def dose(
        cls,
        items: list[InjectedItem],
        text: str,
        *,
        profile: str,
        trigger: str | None = None,
        project: str | None = None,
        considered: int = 0,
        held: list[HeldItem] | None = None,
    ) -> RecallResult:
        """A decision to inject ``items``; ``text`` is what the agent prepends and
        ``bytes`` is its UTF-8 length."""
        return cls(
            injected=True,
            reason=Reason.injected,
            items=items,
            text=text,
            bytes=len(text.encode("utf-8")),
            profile=profile,
            trigger=trigger,
            project=project,
            considered=considered,
            held=held or [],
        )
