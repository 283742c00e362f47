"""``dose-mem search``: the hybrid index from the command line, in automatic lifecycle mode."""

from __future__ import annotations

import json
from typing import Annotated, cast

import typer
from rich.console import Console
from rich.table import Table

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError


def register(app: typer.Typer) -> None:
    app.command("search")(search)


def search(
    query: Annotated[str, typer.Argument(help="What to look for (Chinese or English).")],
    project: Annotated[
        str | None, typer.Option("--project", help="Only this project plus global memory.")
    ] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="How many items.")] = 10,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, dense or bm25.")] = "hybrid",
    as_json: Annotated[bool, typer.Option("--json", help="Print hits as JSON.")] = False,
) -> None:
    """Search memory (hybrid index); superseded, expired and archived items are left out."""
    from memory_repo.index.embedders import make_embedder
    from memory_repo.index.query import Index, Mode
    from memory_repo.index.scope import Prefilter, ScopeClause
    from memory_repo.models import GLOBAL
    from memory_repo.registry import load_registry

    if mode not in ("hybrid", "dense", "bm25"):
        typer.echo(f"unknown mode {mode!r} (use hybrid, dense or bm25)", err=True)
        raise typer.Exit(2)
    conf = settings()
    try:
        registry = load_registry(conf.memory_path)
        if project is not None and project != GLOBAL and registry.get(project) is None:
            typer.echo(f"unknown project: {project}", err=True)
            raise typer.Exit(2)
        projects = [project, GLOBAL] if project else [*sorted(registry.ids), GLOBAL]
        index = Index.open(conf.index_path, make_embedder(conf))
        scope = Prefilter(clauses=[ScopeClause(projects=projects)])
        hits = index.search(query, scope, k, cast(Mode, mode))
    except DoseMemError as exc:
        typer.echo(f"search failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    if as_json:
        typer.echo(json.dumps([h.model_dump(mode="json") for h in hits], ensure_ascii=False))
        return
    table = Table("#", "id", "project", "type", "L0", "cos", "bm25")
    for hit in hits:
        table.add_row(
            str(hit.rank),
            hit.item_id,
            hit.project,
            hit.type.value,
            hit.l0,
            f"{hit.cosine:.2f}",
            f"{hit.bm25:.2f}",
        )
    Console().print(table if hits else "no matching memory")
