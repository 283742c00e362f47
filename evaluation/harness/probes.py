"""Probes: sentences a person really said to an agent, with what only the judge may see.

A ``Probe`` carries the follow-up turns and the gold labels; a system is handed a
``SystemInput`` built from it, a model that has no field for either, so a follow-up can not
leak into an answer by accident (``extra="forbid"`` also rejects it if someone tries).
"""

from __future__ import annotations

import datetime as dt
import json
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from memory_repo.errors import DoseMemError


class Split(StrEnum):
    dev = "dev"
    test = "test"


class Gold(BaseModel):
    """What the person needed on this turn, by card id; items not named are neutral.

    A status follow-up names tasks by their key in ``task_events.jsonl`` (task ids are
    drawn at run time): ``necessary_tasks`` must all be injected; ``[]`` means the right
    answer is silence (a run that never existed, another project's task); ``None`` (the
    default) means the probe is no task probe. ``harmful_tasks`` would mislead.
    """

    model_config = ConfigDict(extra="forbid")

    needs_memory: bool
    necessary: list[str] = Field(default_factory=list)
    helpful: list[str] = Field(default_factory=list)
    harmful: list[str] = Field(default_factory=list)
    necessary_tasks: list[str] | None = None
    harmful_tasks: list[str] | None = None

    @property
    def useful(self) -> set[str]:
        return {*self.necessary, *self.helpful, *self.task_names(self.necessary_tasks or [])}

    @property
    def is_task_probe(self) -> bool:
        return self.necessary_tasks is not None

    @staticmethod
    def task_names(keys: list[str]) -> list[str]:
        """Keys as the injected items are named (``evaluation.harness.task_feed.TaskFeed.name``)."""
        return [f"task:{k}" for k in keys]

    @model_validator(mode="after")
    def _task_need(self) -> Gold:
        if self.necessary_tasks and not self.needs_memory:
            raise ValueError("a probe with necessary_tasks needs memory")
        return self


class Probe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    session_id: str
    agent: str
    profile: str
    timestamp: dt.datetime
    prompt: str = Field(min_length=1)
    previous_turn: str | None = None
    cwd: str | None = None
    project: str | None = None
    turn: int = Field(ge=1)
    split: Split
    tags: list[str] = Field(default_factory=list)
    follow_ups: list[str] = Field(default_factory=list, max_length=6)
    gold: Gold | None = None


class SystemInput(BaseModel):
    """Everything a system may see of a probe: no follow-ups, no gold, no split, no tags,
    and no previous turn (the recall request has none; the LLM judge reads it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    probe_id: str
    session_id: str
    agent: str
    profile: str
    timestamp: dt.datetime
    prompt: str
    cwd: str | None = None
    project: str | None = None
    turn: int


def system_input(probe: Probe) -> SystemInput:
    return SystemInput(
        probe_id=probe.id,
        session_id=probe.session_id,
        agent=probe.agent,
        profile=probe.profile,
        timestamp=probe.timestamp,
        prompt=probe.prompt,
        cwd=probe.cwd,
        project=probe.project,
        turn=probe.turn,
    )


class ProbeFileError(DoseMemError):
    """A probe file that can not be read; names the file and line."""


def load_probes(path: Path) -> list[Probe]:
    probes: list[Probe] = []
    seen: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            probe = Probe.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise ProbeFileError(f"{path}:{n}: {str(exc).splitlines()[0]}") from exc
        if probe.id in seen:
            raise ProbeFileError(f"{path}:{n}: duplicate probe id {probe.id!r}")
        seen.add(probe.id)
        probes.append(probe)
    return probes


def dump_probes(probes: list[Probe], path: Path) -> None:
    lines = [
        json.dumps(p.model_dump(mode="json", exclude_none=True), ensure_ascii=False) for p in probes
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def week_start(moment: dt.datetime) -> dt.datetime:
    """Monday 00:00 of the moment's ISO week, in the moment's own time zone."""
    monday = moment.date() - dt.timedelta(days=moment.weekday())
    return dt.datetime.combine(monday, dt.time(0, 0), tzinfo=moment.tzinfo)
