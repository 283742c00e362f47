"""Requests and results of the read path, shared by the library, HTTP, MCP and evaluation."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

MAX_PROMPT_CHARS = 32_000


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

    prompt: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    session_id: str = Field(min_length=1, max_length=200)
    turn: int = Field(ge=1, le=1_000_000)
    cwd: str | None = Field(default=None, max_length=4096)
    project: str | None = Field(default=None, max_length=200)
    previous_turn: str | None = Field(default=None, max_length=MAX_PROMPT_CHARS)


class Reason(StrEnum):
    injected = "injected"
    not_triggered = "not_triggered"
    out_of_scope = "out_of_scope"
    below_threshold = "below_threshold"


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


class RecallResult(BaseModel):
    """What was injected and why; ``text`` is exactly what the agent should prepend."""

    injected: bool
    reason: Reason
    trigger: str | None = None
    project: str | None = None
    profile: str
    items: list[InjectedItem] = Field(default_factory=list)
    text: str = ""
    bytes: int = 0
    considered: int = 0
