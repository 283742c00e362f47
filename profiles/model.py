"""The recall profile: when an agent gets memory, from where, and how much.

A profile is data (``profiles/*.yaml``), so a user adds one by writing a file; cue
phrases live here too, never in code.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_repo.errors import DoseMemError
from memory_repo.models import CardType

SHIPPED_DIR = Path(__file__).parent


class Trigger(StrEnum):
    every_turn = "every_turn"
    first_turn = "first_turn"
    project_switch = "project_switch"
    cue = "cue"
    # A turn no other trigger opened still searches, and injects only items whose
    # relevance reaches the higher ``gate.new_subject`` bar: a later turn of a coding
    # session that names a new subject without a memory cue.
    new_subject = "new_subject"


class ScopeKind(StrEnum):
    full = "full"
    working = "working"
    personal = "personal"


class Level(StrEnum):
    l0 = "l0"
    l0_l1 = "l0_l1"


class GateMode(StrEnum):
    """What the gate judges by (docs/read-path.md, "Gate").

    ``score``: the evidence score (``recall_api.evidence.score``) against the threshold,
    items in retrieval order; the working profile may also ask its L0 line to share a word
    with the prompt (``min_l0_overlap``). ``relevance``: the calibrated probability of the
    relevance model (``recall_api.relevance``) against the threshold, items ordered by it.
    """

    score = "score"
    relevance = "relevance"


class Gate(BaseModel):
    """The evidence an item needs before it is injected (RRF rank alone never suffices)."""

    model_config = ConfigDict(extra="forbid")

    mode: GateMode = GateMode.score
    threshold: float = Field(
        ge=0.0,
        le=1.0,
        description="The score (mode score) or relevance (mode relevance, a probability) "
        "an item needs on a turn a trigger opened.",
    )
    min_l0_overlap: int = Field(
        default=0,
        ge=0,
        description="Mode score: prompt words the item's L0 line must share (or translate).",
    )
    new_subject: float = Field(
        default=0.9,
        ge=0.0,
        le=1.0,
        description="What an item needs on a turn only the new_subject trigger opened (a "
        "later turn without a cue): higher, so routine steps stay quiet.",
    )
    cue_relief: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Lowered threshold when the prompt carries a memory cue: the person "
        "asked for memory, so only relevance is left to check.",
    )
    other_project_margin: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Raised threshold for items of another project than the one the "
        "prompt is about: the project at hand is the likelier need.",
    )


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    triggers: list[Trigger] = Field(min_length=1)
    cues: list[str] = Field(default_factory=list)
    status_cues: list[str] = Field(
        default_factory=list,
        description="Phrases of a question about work in flight ('is it done', '跑完了吗'): "
        "the service answers from task state instead of cards (docs/tasks.md). None: "
        "this profile never sees tasks.",
    )
    scope: ScopeKind
    global_types: list[CardType] = Field(default_factory=list)
    level: Level
    budget_bytes: int = Field(gt=0, le=65536)
    max_items: int = Field(gt=0, le=50)
    routine_limit: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="The highest share of routine prompts this profile may inject on: "
        "the bound for the evaluation's threshold tuning and for tune-profiles.",
    )
    gate: Gate
    read_with: str = Field(
        default='memory_read("{id}")',
        pattern=r"\{id\}",
        description="How an injected item tells the agent to read it in full, with what "
        "the agent has; {id} is the item's id. The shipped set-ups all give their agents "
        "the memory_read tool (MCP, the Pi extension, the Hermes provider); an agent with "
        "plain HTTP only could use 'GET /v1/memories/{id}'.",
    )
    kept_by: list[str] = Field(
        default_factory=list,
        description="The agents (a token's agent name; '*' for any) that keep an injection "
        "in their history, so an item given earlier in a session is not given again "
        "while its version is unchanged and no compaction or clear was reported "
        "(docs/read-path.md, 'Session-aware dose'). Any other agent is given every item "
        "that passes, on every turn. Default: none.",
    )

    def keeps(self, agent: str) -> bool:
        """Whether ``agent`` keeps what was injected (``kept_by``)."""
        return agent in self.kept_by or "*" in self.kept_by


class ProfileError(DoseMemError):
    """A profile file that can not be used; raised at start-up, naming the file."""


def load_profile(path: Path) -> Profile:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read profile: {exc}") from exc
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: a profile must be a YAML mapping")
    data.setdefault("name", path.stem)
    if data["name"] != path.stem:
        raise ProfileError(f"{path}: name {data['name']!r} must equal the file name")
    try:
        return Profile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise ProfileError(f"{path}: {where}: {err['msg']}") from exc


def load_profiles(user_dir: Path | None = None) -> dict[str, Profile]:
    """Shipped profiles, then the user's: a user file of the same name replaces the shipped one."""
    profiles: dict[str, Profile] = {}
    dirs = [SHIPPED_DIR] + ([user_dir] if user_dir and user_dir.is_dir() else [])
    for folder in dirs:
        for path in sorted(folder.glob("*.yaml")):
            profiles[path.stem] = load_profile(path)
    return profiles
