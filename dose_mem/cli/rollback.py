"""``dose-mem rollback RUN_ID``: revert a landed ingest run and reindex."""

from __future__ import annotations

from typing import Annotated

import typer

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError


def register(app: typer.Typer) -> None:
    app.command("rollback")(rollback)


def rollback(
    run_id: Annotated[str, typer.Argument(help="The run id from the commit message.")],
) -> None:
    """Undo every card and evidence line one ingest run wrote (as a new commit)."""
    from flows.rollback import rollback as do_rollback

    try:
        sha = do_rollback(settings(), run_id)
    except DoseMemError as exc:
        typer.echo(f"rollback failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"rolled back run {run_id} in commit {sha[:12]}; index refreshed")
