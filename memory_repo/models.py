"""The domain model of the memory repository: cards, projects, and the items they yield.

Every file a person edits maps to one of these models; unknown front-matter keys are
kept (``extra="allow"``) so that a hand-added field survives a round trip.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

GLOBAL = "global"


class CardType(StrEnum):
    preference = "preference"
    pitfall = "pitfall"
    convention = "convention"
    decision = "decision"
    result = "result"
    fact = "fact"
    habit = "habit"
    task = "task"


class CardStatus(StrEnum):
    active = "active"
    archived = "archived"


class Source(StrEnum):
    auto = "auto"
    human = "human"


class ProjectKind(StrEnum):
    """What a project is. Only ``personal`` changes a rule (the personal profile sees
    personal projects and habits); ``research`` and ``coding`` (a software repository) are
    scoped alike and say what the project is for a person reading the registry."""

    research = "research"
    coding = "coding"
    personal = "personal"


class ProjectStatus(StrEnum):
    active = "active"
    archived = "archived"


class Evidence(BaseModel):
    """Where a card came from: the agent, its session, and the user's own words."""

    model_config = ConfigDict(extra="allow")

    agent: str
    session: str
    at: dt.datetime | None = None
    quote: str


class Card(BaseModel):
    """One atomic fact; the Markdown body holds its detail (L1/L2)."""

    model_config = ConfigDict(extra="allow", use_enum_values=False)

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    type: CardType
    project: str = GLOBAL
    conclusion: str | None = None
    created: dt.date
    expires: dt.date | None = None
    supersedes: list[str] = Field(default_factory=list)
    status: CardStatus = CardStatus.active
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: Source = Source.human
    evidence: list[Evidence] = Field(default_factory=list)
    body: str = Field(default="", exclude=True)

    @field_validator("created", "expires", mode="before")
    @classmethod
    def _date_from_datetime(cls, value: Any) -> Any:
        return value.date() if isinstance(value, dt.datetime) else value

    @field_validator("supersedes", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, str) else value


class Project(BaseModel):
    """A registry entry: how a project is named, where it lives on disk, whether it is live."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    name: str
    aliases: list[str] = Field(default_factory=list)
    nicknames: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    kind: ProjectKind = ProjectKind.research
    status: ProjectStatus = ProjectStatus.active

    @property
    def names(self) -> list[str]:
        return [self.name, self.id, *self.aliases, *self.nicknames]


class Registry(BaseModel):
    projects: list[Project] = Field(default_factory=list)

    def get(self, project_id: str) -> Project | None:
        return next((p for p in self.projects if p.id == project_id), None)

    @property
    def ids(self) -> set[str]:
        return {p.id for p in self.projects}


class Item(BaseModel):
    """What the index and the read path see: a card, a brief section, or a decision entry.

    Brief sections and decision-log entries are items too, so that a project's brief is
    recallable exactly like a card; their ids are ``<project>.brief.<slug>`` and
    ``<project>.decision.<slug>``.
    """

    id: str
    type: CardType
    project: str
    created: dt.date
    expires: dt.date | None = None
    supersedes: list[str] = Field(default_factory=list)
    status: CardStatus = CardStatus.active
    confidence: float = 1.0
    source: Source = Source.human
    path: str
    title: str
    conclusion: str | None = None
    body: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    content_hash: str = ""


class Chunk(BaseModel):
    """One L2 piece of an item (a heading's section), the unit of the index."""

    item_id: str
    chunk_no: int
    heading: str
    text: str


class Problem(BaseModel):
    """A malformed file, reported with where and why; it never stops anything else."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"
