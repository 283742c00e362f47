"""What ``tune-profiles`` proposes, stored under state for ``dose-mem profiles apply`` and
the inspector: ``<state>/tune/latest.json`` (one ``TuneRun``, replaced by each run).

Here, in the profiles layer, so the recall service (the inspector page) can read it
without importing the evaluation that writes it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from memory_repo.errors import DoseMemError
from memory_repo.files import write_atomic

LATEST = "latest.json"


class Measure(BaseModel):
    """One profile replayed over an agent's logged recalls (``before`` or ``after``)."""

    misses_served: int = 0
    used_kept: int = 0
    unused_items: int = 0
    routine_injection_rate: float = 0.0
    injected_bytes: int = 0
    value: float = 0.0
    eval_composite: float | None = None


class Proposal(BaseModel):
    """A change to one agent's override file, with the evidence for it.

    ``override`` is the whole new file's mapping and ``text`` its bytes; ``diff`` the
    unified diff of the file (``path``, relative to the memory repository) from what it
    held when the proposal was made.
    ``status``: ``proposed``, ``applied`` (``commit`` set) or ``stale`` (the file
    changed since the proposal was made).
    """

    agent: str
    profile: str
    change: str
    path: str
    override: dict[str, Any]
    text: str
    diff: str
    base_sha256: str = Field(description="sha256 of the file the diff is from ('' if none).")
    before: Measure
    after: Measure
    misses: int
    routine: int
    routine_limit: float
    eval_agents: list[str] = Field(default_factory=list)
    eval_probes: int = 0
    status: Literal["proposed", "applied", "stale"] = "proposed"
    commit: str | None = None


class AgentSummary(BaseModel):
    """What the log said about one agent, whether or not a change is proposed."""

    agent: str
    profile: str
    recalls: int
    misses: int
    used: int
    unused_items: int
    routine: int
    note: str = ""


class TuneRun(BaseModel):
    run_id: str
    at: dt.datetime
    since: dt.datetime
    agents: list[AgentSummary] = Field(default_factory=list)
    proposals: list[Proposal] = Field(default_factory=list)


class ProposalError(DoseMemError):
    """No proposal to apply, or a stored proposal that can not be read."""


def tune_dir(state: Path) -> Path:
    return state / "tune"


def save_run(state: Path, run: TuneRun) -> Path:
    path = tune_dir(state) / LATEST
    write_atomic(path, run.model_dump_json(indent=1).encode("utf-8"))
    return path


def load_run(state: Path) -> TuneRun | None:
    """The latest run, or None when there is none; a corrupt file is a ``ProposalError``."""
    path = tune_dir(state) / LATEST
    if not path.exists():
        return None
    try:
        return TuneRun.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise ProposalError(f"{path}: not a tune-profiles run: {exc}") from exc
