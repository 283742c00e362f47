"""``dose-mem ingest``: run the ingest flow once, from the shell (same flow as the deployment)."""

from __future__ import annotations

import typer

from dose_mem.cli.context import settings
from dose_mem.cli.prefect_api import advice, run_flow, use_prefect
from memory_repo.errors import DoseMemError


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)


def ingest() -> None:
    """Read ended agent sessions, distil verified facts, commit new cards, refresh the index."""
    use_prefect()
    from flows.ingest import ingest as ingest_flow

    conf = settings()
    try:
        summary = run_flow(lambda: ingest_flow(home=str(conf.home)))
    except DoseMemError as exc:
        typer.echo(f"ingest failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    except RuntimeError as exc:
        typer.echo(f"ingest failed: {advice(exc)}", err=True)
        raise typer.Exit(1) from exc
    decisions = ", ".join(f"{k} {v}" for k, v in sorted(summary.decisions.items())) or "none"
    failed = len(summary.sessions_failed)
    typer.echo(
        f"run {summary.run_id}: {summary.sessions_read} sessions"
        f"{f' ({failed} failed, read again next run)' if failed else ''}, "
        f"{summary.facts_distilled} facts, {summary.quotes_rejected} quotes rejected, "
        f"decisions: {decisions}; {summary.cards_written} cards written, "
        f"commit {summary.commit or 'none'}"
    )
