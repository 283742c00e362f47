"""``dose-mem profiles show|apply``: the latest tune-profiles proposals, and committing them."""

from __future__ import annotations

from typing import Annotated

import typer

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError

profiles_app = typer.Typer(
    help="Show and apply the profile changes tune-profiles proposed.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    app.add_typer(profiles_app, name="profiles")


@profiles_app.command("show")
def show() -> None:
    """Print the latest tune-profiles run (the same Markdown as its Prefect artifact)."""
    from evaluation.tuning.tune_profiles import render
    from profiles.proposals import load_run

    try:
        run = load_run(settings().state_path)
    except DoseMemError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from exc
    if run is None:
        typer.echo("no tune-profiles run yet", err=True)
        raise typer.Exit(1)
    typer.echo(render(run))


@profiles_app.command("apply")
def apply(
    agents: Annotated[
        list[str] | None, typer.Argument(help="Only these agents' proposals (default: all).")
    ] = None,
) -> None:
    """Commit the proposed override files to the memory repository, as one commit that
    `dose-mem rollback RUN_ID` undoes."""
    from evaluation.tuning.profile_apply import apply_proposals
    from profiles.proposals import load_run

    cfg = settings()
    try:
        sha, applied = apply_proposals(cfg, agents or None)
        run = load_run(cfg.state_path)
    except DoseMemError as exc:
        typer.echo(f"nothing applied: {exc}", err=True)
        raise typer.Exit(1) from exc
    run_id = run.run_id if run else "?"
    typer.echo(
        f"applied {', '.join(applied)} in commit {sha[:12]}; undo with `dose-mem rollback {run_id}`"
    )
