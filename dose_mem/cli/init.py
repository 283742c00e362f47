"""``dose-mem init [--demo]``: create the memory repository, empty or with the demo memory."""

from __future__ import annotations

import datetime as dt
import shutil
from typing import Annotated

import typer

from dose_mem.cli.context import settings


def register(app: typer.Typer) -> None:
    app.command("init")(init)


def init(
    demo: Annotated[
        bool, typer.Option("--demo", help="Write the demo memory (4 projects, 8 weeks).")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="With --demo: replace an existing memory.")
    ] = False,
    today: Annotated[
        dt.datetime | None,
        typer.Option(formats=["%Y-%m-%d"], help="Date the demo is built for (default: today)."),
    ] = None,
) -> None:
    """Create the memory git repository under the home directory."""
    from memory_repo.bootstrap import has_memory, init_memory
    from memory_repo.demo import DEMO_PROJECTS, build_demo

    root = settings().memory_path
    exists = has_memory(root)
    if not demo:
        if exists:
            typer.echo(f"memory already exists at {root}; left unchanged")
            return
        init_memory(root)
        typer.echo(f"created an empty memory at {root}")
        return
    if exists and not force:
        typer.echo(f"{root} already holds a memory; use --force to replace it", err=True)
        raise typer.Exit(1)
    if exists:
        shutil.rmtree(root)
    shas = build_demo(root, (today or dt.datetime.now()).date())
    typer.echo(
        f"created the demo memory at {root}: {len(shas)} commits, "
        f"projects {', '.join(DEMO_PROJECTS)}"
    )
