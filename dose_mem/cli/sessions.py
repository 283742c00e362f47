"""``dose-mem sessions add FILE --agent NAME``: push an ended transcript for the next ingest."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError

sessions_app = typer.Typer(help="Transcripts pushed by agents.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(sessions_app, name="sessions")


@sessions_app.command("add")
def add(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)],
    agent: Annotated[str, typer.Option("--agent", help="Agent name (claude_code, codex, ...).")],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format", help="claude_code|codex|hermes|pi|transcript (default: from agent)."
        ),
    ] = None,
) -> None:
    """Store FILE in the inbox; the next `dose-mem ingest` reads it."""
    from memory_repo.inbox import add_session

    try:
        stored = add_session(settings(), file, agent, fmt)
    except DoseMemError as exc:
        typer.echo(f"cannot add session: {exc}", err=True)
        raise typer.Exit(2) from exc
    state = "stored" if stored.new else "already stored"
    typer.echo(f"{state}: {stored.path} ({stored.format}, {stored.bytes} bytes)")
