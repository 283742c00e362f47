"""The Markdown view of task state in the memory repository: ``projects/<p>/tasks.md``.

Written from the journal in one commit, and only for pages whose text changed, so the
git history gets at most one commit per call however many events arrived (the ingest
flow and ``dose-mem tasks --write`` call it). The pages are not cards: the card store
never reads them, and the journal stays the truth (docs/tasks.md).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from memory_repo.files import write_atomic
from memory_repo.history import commit
from memory_repo.tasks.model import Task
from memory_repo.tasks.view import markdown

PAGE = "tasks.md"


def page_path(project: str) -> str:
    return f"projects/{project}/{PAGE}"


def write_pages(
    root: Path, tasks: Iterable[Task], now: dt.datetime, stale_hours: float
) -> str | None:
    """Rewrite changed pages and commit them; the commit's sha, or None if none changed.
    Tasks without a project have no page."""
    by_project: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        if task.project:
            by_project[task.project].append(task)
    changed: list[str] = []
    for project, group in sorted(by_project.items()):
        rel = page_path(project)
        text = markdown(project, group, now, stale_hours)
        path = root / rel
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        write_atomic(path, text.encode("utf-8"))
        changed.append(rel)
    if not changed:
        return None
    return commit(root, changed, f"tasks: {len(changed)} page(s) from the task journal")
