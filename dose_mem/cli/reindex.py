"""``dose-mem reindex``: refresh the index from the memory repository (or rebuild it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError

if TYPE_CHECKING:  # the index (LanceDB, the embedder) loads only when the command runs
    from memory_repo.index.build import BuildReport


def register(app: typer.Typer) -> None:
    app.command("reindex")(reindex)


def reindex(
    full: Annotated[bool, typer.Option("--full", help="Rebuild everything from scratch.")] = False,
) -> None:
    """Index changed files only; a different embedder or no index yet means a full rebuild."""
    from memory_repo.index.build import rebuild, refresh
    from memory_repo.index.embedders import make_embedder

    conf = settings()
    if not conf.memory_path.is_dir():
        typer.echo(f"no memory repository at {conf.memory_path} (run `dose-mem init`)", err=True)
        raise typer.Exit(2)
    console = Console(stderr=True)
    try:
        embedder = make_embedder(conf)
        with Progress(
            TextColumn("embedding chunks"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as bar:
            task = bar.add_task("embed", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            build = rebuild if full else refresh
            report = build(conf.memory_path, conf.index_path, embedder, progress)
    except DoseMemError as exc:
        typer.echo(f"reindex failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    _print(report, console)


def _print(report: BuildReport, console: Console) -> None:
    why = f" ({report.reason})" if report.reason else ""
    console.print(
        f"{report.mode} reindex{why}: {report.files_changed} files, "
        f"{report.items_changed} items, {report.chunks_changed} chunks embedded, "
        f"{report.chunks_total} chunks in the index, {report.seconds:.1f} s"
    )
    for problem in report.problems:
        console.print(f"[yellow]skipped[/yellow] {problem.path}: {problem.reason}", markup=True)
