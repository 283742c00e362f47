"""What each ingest run decided, kept under state for the inspector's write-path page.

The ingest flow saves one record per run (``save``), the recall service's inspector
reads them (``recent``); neither imports the other. A record is derived state: deleting
``<state>/ingest-runs/`` loses only the page's detail, never memory. Statements and
reasons pass through ``secrets.redact`` first, as everything kept from a transcript does.
Only the newest ``KEEP`` records are kept.

Which runs landed, and which were rolled back, is read from the memory repository's git
log (``landed``), so runs from before records existed still show and can be rolled back.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from memory_repo.files import write_atomic
from memory_repo.history import open_repo
from memory_repo.secrets import redact

KEEP = 500
RUN_TRAILER = "Dose-Mem-Run"
ROLLBACK_TRAILER = "Dose-Mem-Rollback"
_TRAILER = re.compile(rf"^({RUN_TRAILER}|{ROLLBACK_TRAILER}): (\S+)\s*$", re.M)


class DecisionRecord(BaseModel):
    """``action``: promote, merge, supersede, reject, or hold (a project fact whose
    project is unknown, kept in ``memory_repo.held``); ``project``: where it was filed."""

    statement: str
    action: str
    target: str | None = None
    reason: str
    agent: str
    session: str
    project: str | None = None


class SessionRecord(BaseModel):
    """A session a run found. ``status``: read, failed, skipped (``reason`` says why: a
    sub-agent, too few turns, unreadable), waiting (still open) or unchanged; for a
    read session, the project it was filed under, ``how`` (cwd, symlink, worktree,
    repo_root, named, personal, none) and ``why`` in words."""

    agent: str
    session: str
    path: str = ""
    cwd: str | None = None
    status: str
    reason: str = ""
    project: str | None = None
    how: str | None = None
    why: str | None = None
    parts: list[str] = Field(default_factory=list)


class RunRecord(BaseModel):
    run_id: str
    flow_run_id: str | None = None
    finished: dt.datetime
    sessions_read: int = 0
    decisions: list[DecisionRecord] = Field(default_factory=list)
    sessions: list[SessionRecord] = Field(default_factory=list)
    unchanged: dict[str, int] = Field(default_factory=dict)
    commit: str | None = None


class LandedRun(BaseModel):
    run_id: str
    commit: str
    date: dt.datetime
    subject: str
    rolled_back_by: str | None = None


def records_dir(state: Path) -> Path:
    return state / "ingest-runs"


def save(state: Path, record: RunRecord) -> Path:
    """Write the record atomically (redacted), then drop the oldest beyond ``KEEP``."""
    clean = record.model_copy(
        update={
            "decisions": [
                d.model_copy(update={"statement": redact(d.statement), "reason": redact(d.reason)})
                for d in record.decisions
            ]
        }
    )
    folder = records_dir(state)
    path = folder / f"{record.run_id}.json"
    write_atomic(path, clean.model_dump_json(indent=1).encode("utf-8"))
    for old in sorted(folder.glob("*.json"))[:-KEEP]:
        old.unlink(missing_ok=True)
    return path


def recent(state: Path, limit: int = 50) -> tuple[list[RunRecord], list[str]]:
    """The newest records first, and a line per unreadable file (path and reason)."""
    records: list[RunRecord] = []
    problems: list[str] = []
    for path in sorted(records_dir(state).glob("*.json"), reverse=True)[:limit]:
        try:
            records.append(RunRecord.model_validate_json(path.read_bytes()))
        except (OSError, ValidationError) as exc:
            problems.append(f"{path}: {str(exc).splitlines()[0]}")
    return records, problems


def landed(root: Path, limit: int = 200) -> dict[str, LandedRun]:
    """Runs with a commit in the memory repository (by their trailer), newest first,
    each with the commit that rolled it back, if any."""
    repo = open_repo(root)
    if not repo.head.is_valid():
        return {}
    runs: dict[str, LandedRun] = {}
    rolled: dict[str, str] = {}
    for commit in repo.iter_commits("HEAD", max_count=limit * 4):
        message = str(commit.message)
        for kind, run_id in _TRAILER.findall(message):
            if kind == ROLLBACK_TRAILER:
                rolled.setdefault(run_id, commit.hexsha)
            elif run_id not in runs:
                runs[run_id] = LandedRun(
                    run_id=run_id,
                    commit=commit.hexsha,
                    date=commit.committed_datetime.astimezone(dt.UTC),
                    subject=message.splitlines()[0],
                )
        if len(runs) >= limit:
            break
    for run_id, sha in rolled.items():
        if run_id in runs:
            runs[run_id].rolled_back_by = sha
    return runs
