"""``dose-mem tasks [--project P] [--all] [--write]``: task state as a person reads it."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import typer

from dose_mem.cli.context import settings


def register(app: typer.Typer) -> None:
    app.command("tasks")(tasks)


def tasks(
    project: Annotated[str | None, typer.Option(help="Only this project's tasks.")] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="Also tasks finished longer ago than task_keep_days.")
    ] = False,
    write: Annotated[
        bool,
        typer.Option(help="Write each project's tasks.md into the memory repository and commit."),
    ] = False,
) -> None:
    """One line per task from the event journal, most recently updated first."""
    from memory_repo.tasks import journal
    from memory_repo.tasks.fold import fold, live
    from memory_repo.tasks.pages import write_pages
    from memory_repo.tasks.view import line

    cfg = settings()
    events, problems = journal.read(cfg.tasks_path)
    for problem in problems:
        typer.echo(f"skipped {problem}", err=True)
    now = dt.datetime.now(dt.UTC)
    folded = list(fold(events).values())
    shown = folded if show_all else live(folded, now, cfg.task_keep_days)
    shown = sorted(shown, key=lambda t: t.updated, reverse=True)
    if project:
        shown = [t for t in shown if t.project == project]
    if write:
        commit = write_pages(cfg.memory_path, folded, now, cfg.task_stale_hours)
        typer.echo(f"task pages: {commit or 'unchanged'}")
        return
    if not shown:
        typer.echo("no tasks")
    for task in shown:
        where = task.project or "-"
        typer.echo(f"{task.id}  [{where}]  {line(task, now, cfg.task_stale_hours)}")
