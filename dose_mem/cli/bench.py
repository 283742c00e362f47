"""``dose-mem bench locomo FILE...``: retrieval recall@k on LoCoMo conversations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError

if TYPE_CHECKING:  # the evaluation and the index load only when the command runs
    from evaluation.sets.locomo import LocomoResult

bench_app = typer.Typer(help="Benchmarks of the shipped retrieval code.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")


@bench_app.command("locomo")
def locomo(
    files: Annotated[list[Path], typer.Argument(help="LoCoMo conversation files (conv-*.json).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Each question searches only its own conversation; recall = evidence turns found."""
    from evaluation.sets.locomo import evaluate
    from memory_repo.index.embedders import make_embedder

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        typer.echo(f"no such file: {', '.join(missing)}", err=True)
        raise typer.Exit(2)
    console = Console(stderr=True)
    try:
        result = evaluate(
            files,
            make_embedder(settings()),
            progress=None if as_json else lambda name: console.print(f"indexing {name}"),
        )
    except (DoseMemError, ValueError, KeyError) as exc:
        typer.echo(f"bench failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    if as_json:
        typer.echo(json.dumps(result.model_dump()))
    else:
        Console().print(_table(result))


def _table(result: LocomoResult) -> Table:
    from evaluation.sets.locomo import KS

    table = Table(
        "system",
        *(f"recall@{k}" for k in KS),
        title=f"LoCoMo evidence recall ({result.questions} questions)",
    )
    for system, scores in result.systems.items():
        table.add_row(system, *(f"{scores[f'recall@{k}']:.3f}" for k in KS))
    return table
