"""Timestamped task events of an environment, replayed so each probe sees only its past.

``task_events.jsonl`` holds one line per report an agent sent to task state:

```
{"at": "2026-10-12T11:02:00+08:00", "agent": "claude-code", "key": "tk-r3",
 "report": {"source": "claude-code", "event": "PostToolUse", "payload": {...}}}
```

``report`` is the body ``POST /v1/tasks/events`` takes (``memory_repo.tasks.extract.Report``:
a hook payload as sent, or explicit fields). Task ids are drawn when an event is accepted,
so a file can not hold them; ``key`` names the task a line is about instead. The first
line with a key names the task its first event produced. A later line with the same key
is checked against it: an explicit report without ``task`` or ``title`` gets that task's
id filled in (a status update by id, as MCP ``task_update`` sends it); any other report is
left to extraction, and a line whose events are not about that task is listed in
``TaskFeed.problems`` (the report shows them), since then extraction did not do what the
environment's author expected.

Replay (``load_task_feed``): one ``TaskBoard`` on a temporary journal accepts every line in
time order (file order on a tie), its clock set to the line's time, under the agent's
identity and the registry of the last commit strictly before that moment (the live
memory then). An event's extraction depends only on the events before it, so the journal
prefix of events strictly before a probe's time is exactly what a service that had
accepted only those would hold: ``TaskBoards.at(moment)`` serves that prefix, its clock at
``moment``. Tasks are live; unlike cards, no weekly snapshot applies to them.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
import tempfile
from pathlib import Path

from pydantic import AwareDatetime, BaseModel, ConfigDict, PrivateAttr, ValidationError

from memory_repo.errors import DoseMemError
from memory_repo.history import open_repo
from memory_repo.models import Registry
from memory_repo.registry import REGISTRY_FILE, load_registry
from memory_repo.settings import Settings
from memory_repo.tasks.extract import Report, UnknownTask
from memory_repo.tasks.model import TaskEvent
from recall_api.models import Identity
from recall_api.task_board import TaskBoard

TASK_EVENTS_FILE = "task_events.jsonl"
TASK_PREFIX = "task:"


class TaskFeedError(DoseMemError):
    """A task event file that can not be replayed; names the file and line."""


class TaskLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    at: AwareDatetime
    agent: str
    key: str | None = None
    note: str | None = None  # for the reader of the file; never read
    report: Report


class TaskFeed(BaseModel):
    """Every accepted event in journal order, the task each key names, and the lines whose
    events were not about the task their key names."""

    events: list[TaskEvent]
    keys: dict[str, str]
    names: dict[str, str]
    problems: list[str]
    _times: list[dt.datetime] | None = PrivateAttr(default=None)

    def before(self, moment: dt.datetime) -> list[TaskEvent]:
        """The events strictly before ``moment``: all a probe at ``moment`` may see."""
        return self.events[: self._count(moment)]

    def _count(self, moment: dt.datetime) -> int:
        if self._times is None:
            self._times = [e.at for e in self.events]
        return bisect.bisect_left(self._times, moment)

    def name(self, task_id: str) -> str:
        """A task's name stable across runs: ``task:<key>``, or ``task:line-<n>`` for a
        task no key names (``n``: the line that started it)."""
        return self.names.get(task_id, TASK_PREFIX + task_id)


def read_task_lines(path: Path) -> list[tuple[int, TaskLine]]:
    lines: list[tuple[int, TaskLine]] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            lines.append((n, TaskLine.model_validate(json.loads(raw))))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise TaskFeedError(f"{path}:{n}: {str(exc).splitlines()[0]}") from exc
    return lines


class _Clock:
    def __init__(self) -> None:
        self.at = dt.datetime.min.replace(tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.at


def load_task_feed(
    path: Path,
    identities: dict[str, Identity],
    registry_at: RegistryAt,
) -> TaskFeed:
    """Accept every line in time order on a fresh board; see the module docstring."""
    lines = sorted(read_task_lines(path), key=lambda nl: nl[1].at)  # stable: file order on ties
    clock = _Clock()
    keys: dict[str, str] = {}
    names: dict[str, str] = {}
    problems: list[str] = []
    events: list[TaskEvent] = []
    with tempfile.TemporaryDirectory(prefix="dose-mem-task-feed-") as tmp:
        board = TaskBoard(Path(tmp) / "events.jsonl", stale_hours=6, keep_days=7, now=clock)
        for n, line in lines:
            where = f"{path}:{n}"
            if line.agent not in identities:
                raise TaskFeedError(f"{where}: agent {line.agent!r} is not in env.yaml")
            report = line.report
            known = keys.get(line.key) if line.key else None
            explicit = report.status is not None or report.result or report.next_step
            if known and explicit and not (report.task or report.title):
                report = report.model_copy(update={"task": known})
            clock.at = line.at
            try:
                made = board.accept(report, identities[line.agent], registry_at(line.at))
            except (UnknownTask, PermissionError) as exc:
                raise TaskFeedError(f"{where}: {exc}") from exc
            events.extend(made)
            for event in made:
                names.setdefault(event.task, f"{TASK_PREFIX}line-{n}")
            if line.key is None:
                continue
            if known is None:
                if not made:
                    problems.append(f"{where}: key {line.key!r}: the report made no event")
                    continue
                keys[line.key] = made[0].task
                names[made[0].task] = TASK_PREFIX + line.key
            elif all(e.task != known for e in made):
                got = ", ".join(sorted({names[e.task] for e in made})) or "no event"
                problems.append(f"{where}: key {line.key!r}: the report made {got}")
    return TaskFeed(events=events, keys=keys, names=names, problems=problems)


class RegistryAt:
    """The registry of the memory's last commit strictly before a moment (empty before
    the first commit), read from git once per commit."""

    def __init__(self, repo: Path, commits: list[tuple[str, dt.datetime]], workdir: Path) -> None:
        self.repo = repo
        self.commits = sorted(commits, key=lambda c: c[1])
        self.workdir = workdir
        self._made: dict[str, Registry] = {}

    def __call__(self, moment: dt.datetime) -> Registry:
        earlier = [sha for sha, at in self.commits if at < moment]
        if not earlier:
            return Registry()
        sha = earlier[-1]
        if sha not in self._made:
            folder = self.workdir / sha[:12]
            folder.mkdir(parents=True, exist_ok=True)
            tree = open_repo(self.repo).commit(sha).tree
            try:
                data = tree[REGISTRY_FILE].data_stream.read()
            except KeyError:
                data = b""
            (folder / REGISTRY_FILE).write_bytes(data)
            self._made[sha] = load_registry(folder)
        return self._made[sha]


class TaskBoards:
    """One ``TaskBoard`` per journal prefix, written once under ``workdir``: ``at(moment)``
    is the board holding exactly the events strictly before ``moment``, its clock there."""

    def __init__(
        self, feed: TaskFeed, workdir: Path, *, stale_hours: float = 6.0, keep_days: float = 7.0
    ) -> None:
        self.feed = feed
        self.workdir = workdir
        self.stale_hours = stale_hours
        self.keep_days = keep_days
        self._boards: dict[int, tuple[TaskBoard, _Clock]] = {}

    def at(self, moment: dt.datetime) -> TaskBoard:
        n = self.feed._count(moment)
        if n not in self._boards:
            path = self.workdir / f"upto-{n:05d}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            text = "".join(
                e.model_dump_json(exclude_none=True) + "\n" for e in self.feed.events[:n]
            )
            path.write_text(text, encoding="utf-8")
            clock = _Clock()
            board = TaskBoard(
                path, stale_hours=self.stale_hours, keep_days=self.keep_days, now=clock
            )
            self._boards[n] = (board, clock)
        board, clock = self._boards[n]
        clock.at = moment
        return board

    def name(self, task_id: str) -> str:
        return self.feed.name(task_id)

    def is_task(self, item_id: str) -> bool:
        """An injected item is a task of the feed (by id: the item type's name is the
        engine's business)."""
        return item_id in self.feed.names


def boards_for(feed: TaskFeed | None, workdir: Path, settings: Settings) -> TaskBoards | None:
    """An environment's task boards under ``workdir``, aged as the service ages tasks
    (``settings``' stale and keep windows); None for an environment with no task events."""
    if feed is None:
        return None
    return TaskBoards(
        feed, workdir, stale_hours=settings.task_stale_hours, keep_days=settings.task_keep_days
    )
