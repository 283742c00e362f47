"""What flows between the write-path steps: distilled facts, verified candidates, decisions."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

from memory_repo.models import GLOBAL, CardType, Evidence


class Fact(BaseModel):
    """One atomic fact as the distiller states it (this is also the LLM's output schema)."""

    statement: str = Field(
        description="One self-contained sentence of the lasting fact, in the person's "
        "language, without cue words, filler, first person or session-bound words."
    )
    type: CardType = Field(
        description="preference|pitfall|convention|decision|result|fact|habit|task"
    )
    subject: str = Field(default="", description="What the fact is about, in two to five words.")
    project: str = Field(default=GLOBAL, description="Registry project id, or 'global'.")
    confidence: float = Field(ge=0.0, le=1.0, description="How sure the fact holds, 0..1.")
    quote: str = Field(description="A contiguous, verbatim span copied from ONE turn.")


class FactList(BaseModel):
    facts: list[Fact] = Field(default_factory=list)


class Candidate(BaseModel):
    """A fact whose quote was found in the session, with where it was found."""

    fact: Fact
    agent: str
    session: str
    at: dt.datetime | None = None
    by_user: bool = False
    correction: bool = False
    also: list[Evidence] = Field(default_factory=list)


Action = Literal["promote", "merge", "supersede", "reject"]


class Decision(BaseModel):
    action: Action
    target: str | None = Field(default=None, description="Existing card id for merge/supersede.")
    reason: str


class Neighbour(BaseModel):
    """An existing card near a candidate, as the judge sees it."""

    id: str
    l0: str
    type: CardType
    project: str
    created: dt.date | None = None
    confidence: float = 1.0
    cosine: float = 0.0
    text: str = ""
