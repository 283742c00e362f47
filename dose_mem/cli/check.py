"""``dose-mem check``: list every malformed file of the memory with its path and reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from dose_mem.cli.context import settings


def register(app: typer.Typer) -> None:
    app.command("check")(check)


def check(
    memory: Annotated[
        Path | None, typer.Argument(help="Memory repository (default: the configured one).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print problems as a JSON list.")] = False,
) -> None:
    """Exit 1 when any file is malformed, 0 when the whole memory parses."""
    from memory_repo.check import check_memory

    root = memory or settings().memory_path
    if not root.is_dir():
        typer.echo(f"no memory repository at {root} (run `dose-mem init`)", err=True)
        raise typer.Exit(2)
    report = check_memory(root)
    if as_json:
        typer.echo(json.dumps([p.model_dump() for p in report.problems], ensure_ascii=False))
    else:
        for problem in report.problems:
            typer.echo(str(problem))
        typer.echo(report.summary(), err=not report.ok)
    raise typer.Exit(0 if report.ok else 1)
