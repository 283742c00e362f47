"""The service's view of task state: accept reports into the journal, answer status
questions from the folded tasks (docs/tasks.md).

Visibility follows the same rules as cards (``scoping``): a token sees a task only in a
project it may see, and the profile narrows that: ``full`` every visible project (the
resolved one first), ``working`` only the current project, ``personal`` only personal
projects. A task with no project (a cwd outside the registry, a personal agent's own
errand) is seen by the agent that reported it (under ``full`` and ``personal``) and by a
token of every project under ``full``.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable
from pathlib import Path

from memory_repo.attribution import locate, projects_named_in
from memory_repo.index.tokenize import content_words, is_cjk
from memory_repo.models import Project, ProjectKind, Registry
from memory_repo.tasks import journal
from memory_repo.tasks.extract import Report, distinctive, extract
from memory_repo.tasks.fold import fold, live
from memory_repo.tasks.model import Task, TaskEvent
from profiles.model import Profile, ScopeKind
from recall_api.models import Identity
from recall_api.scoping import allowed

# A word of the prompt that looks like a name of a run (r3, v2, test_grid, eval-7): if
# it names no visible task, the question is about a task we never heard of.
_NAME = re.compile(r"\b(?=[A-Za-z0-9_.-]*\d)[A-Za-z][A-Za-z0-9_.-]*\b|\b[a-z]+_[a-z_]+\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z]\d+")
RECENT = 3


class TaskBoard:
    def __init__(
        self,
        path: Path,
        *,
        stale_hours: float,
        keep_days: float,
        now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    ) -> None:
        self.path = path
        self.stale_hours = stale_hours
        self.keep_days = keep_days
        self.now = now
        self._lock = threading.Lock()
        self._write = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._tasks: dict[str, Task] = {}
        self._requests: dict[tuple[str, str], list[TaskEvent]] = {}

    def tasks(self) -> dict[str, Task]:
        """All tasks, folded from the journal (again only when the file changed)."""
        with self._lock:
            try:
                st = self.path.stat()
                stamp = (st.st_size, st.st_mtime_ns)
            except FileNotFoundError:
                stamp = (0, 0)
            if stamp != self._stamp:
                events, _ = journal.read(self.path)
                self._tasks, self._stamp = fold(events), stamp
                self._requests = {}
                for e in events:
                    if e.request is not None:
                        self._requests.setdefault((e.agent, e.request), []).append(e)
            return self._tasks

    def accept(
        self, report: Report, identity: Identity, registry: Registry, key: str | None = None
    ) -> list[TaskEvent]:
        """Extract and append; returns only after every event is on disk. A report whose
        cwd lies in a project the token may not see is refused (``PermissionError``);
        one naming a task outside the token's projects likewise.

        ``key`` (the request's Idempotency-Key) is written into each event, so the
        journal itself remembers it: a report sent again under a key this agent already
        used (a retry after an answer that never arrived) returns the events it made
        the first time and appends nothing."""

        def project_of(cwd: str | None) -> str | None:
            return locate(registry, cwd).project if cwd else None

        where = project_of(report.working_dir())
        if where is not None and not allowed(identity, where):
            raise PermissionError(f"project {where!r} is not visible to this token")
        with self._write:  # one writer at a time, so two reports never race on one task
            tasks = self.tasks()
            if key is not None and (identity.agent, key) in self._requests:
                return self._requests[identity.agent, key]
            known = {
                k: t for k, t in tasks.items() if t.project is None or allowed(identity, t.project)
            }
            events = extract(
                report, agent=identity.agent, project_of=project_of, tasks=known, now=self.now()
            )
            if key is not None:
                events = [e.model_copy(update={"request": key}) for e in events]
            for event in events:
                journal.append(self.path, event)
        return events

    def visible(
        self, identity: Identity, profile: Profile, registry: Registry, project: str | None
    ) -> list[Task]:
        """Live tasks this token and profile may see, the resolved project's first."""
        now = self.now()
        tasks = live(self.tasks().values(), now, self.keep_days)
        if profile.scope == ScopeKind.working:
            return [
                t for t in tasks if project and t.project == project and allowed(identity, project)
            ]
        if profile.scope == ScopeKind.personal:
            personal = {p.id for p in registry.projects if p.kind == ProjectKind.personal}
            return [
                t
                for t in tasks
                if (t.project in personal and allowed(identity, t.project))
                or (t.project is None and t.agent == identity.agent)
            ]
        seen = [
            t
            for t in tasks
            if (t.project is None and (identity.projects is None or t.agent == identity.agent))
            or (t.project is not None and allowed(identity, t.project))
        ]
        return sorted(seen, key=lambda t: t.project != project)  # stable: recency kept

    def answer(
        self, prompt: str, tasks: list[Task], project: str | None, registry: Registry
    ) -> list[Task] | None:
        """The tasks a status question asks about, or ``None``: the honest answer is no
        answer.

        A prompt that names projects asks only about their tasks. Among those, the tasks
        its words name, in English or Chinese (most words first). When it names none:
        ``None`` if it names a run no visible task is ("did r7 finish?") or a task this
        token and profile may not see ("is the viznet eval done?" asked in another
        project); else the most recent tasks of the project at hand, or of every visible
        project with none at hand ("is it done?", "跑完了吗？").
        """
        named_projects = set(projects_named_in(registry, prompt))
        if named_projects:
            tasks = [t for t in tasks if t.project in named_projects]
        names = {w for p in registry.projects for w in _names(p)}
        said = _words(prompt) - names
        scored = [(len(_matched(_task_words(t), said)), t) for t in tasks]
        hits = [t for n, t in sorted(scored, key=lambda p: -p[0]) if n > 0]
        if hits:
            return hits
        shown = {t.id for t in tasks}
        hidden = [t for t in self.tasks().values() if t.id not in shown]
        if _NAME.search(" ".join(sorted(said))) or any(
            _matched(_task_words(t), said) for t in hidden
        ):
            return None
        pool = [t for t in tasks if named_projects or project is None or t.project == project]
        return pool[:RECENT] or None


def _words(text: str) -> set[str]:
    """English words as written (``r3``, ``eval_viznet.sh``) and Chinese content words."""
    ascii_words = {w.lower() for w in _WORD.findall(text)}
    return ascii_words | {w for w in content_words(text) if is_cjk(w)}


def _task_words(task: Task) -> set[str]:
    return distinctive(task) | {w for w in content_words(task.title) if is_cjk(w)}


def _matched(task_words: set[str], said: set[str]) -> set[str]:
    """The prompt's words that name the task: equal to one of its words, or, for plain
    words of 4+ letters, one a prefix of the other ("benchmark" names "make bench";
    "eval-7" does not name "eval_viznet.sh")."""
    return {w for w in said if w in task_words or any(_prefixes(w, t) for t in task_words)}


def _prefixes(a: str, b: str) -> bool:
    return (
        a.isalpha()
        and b.isalpha()
        and min(len(a), len(b)) >= 4
        and (a.startswith(b) or b.startswith(a))
    )


def _names(project: Project) -> set[str]:
    words = {w for name in project.names for w in content_words(name)}
    return words | {name.lower() for name in project.names}
