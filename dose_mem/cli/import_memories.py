"""``dose-mem import AGENT [PATH ...] [--dry-run]``: bring in what an agent already keeps."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from dose_mem.cli.context import settings
from dose_mem.cli.prefect_api import advice, run_flow, use_prefect
from memory_repo.errors import DoseMemError

if TYPE_CHECKING:  # the flow (and Prefect) load only when the command runs
    from flows.import_memories import ImportSummary

AGENT_NAMES = ("claude-code", "codex", "hermes", "openclaw", "markdown", "all")


def register(app: typer.Typer) -> None:
    app.command("import")(import_)


def import_(
    agent: Annotated[str, typer.Argument(help=f"One of: {', '.join(AGENT_NAMES)}.")],
    paths: Annotated[
        list[str] | None,
        typer.Argument(help="Markdown files to read instead of the agent's default locations."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print what would happen; write nothing.")
    ] = False,
) -> None:
    """Import an agent's own memory files (CLAUDE.md, AGENTS.md, MEMORY.md, USER.md, daily
    logs) through the write path: one commit, equivalents merged, reruns write nothing."""
    if agent not in AGENT_NAMES:
        typer.echo(f"unknown agent {agent!r} (use {', '.join(AGENT_NAMES)})", err=True)
        raise typer.Exit(2)
    if agent == "markdown" and not paths:
        typer.echo("import markdown needs at least one PATH", err=True)
        raise typer.Exit(2)
    if agent == "all" and paths:
        typer.echo("give PATHs with one agent (or markdown), not with all", err=True)
        raise typer.Exit(2)
    missing = [p for p in paths or [] if not os.path.isfile(os.path.expanduser(p))]
    if missing:
        typer.echo(f"no such file: {', '.join(missing)}", err=True)
        raise typer.Exit(2)
    use_prefect()
    from flows.import_memories import import_memories

    conf = settings()
    try:
        summary = run_flow(
            lambda: import_memories(
                agents=None if agent == "all" else [agent],
                paths=paths or None,
                dry_run=dry_run,
                home=str(conf.home),
            )
        )
    except DoseMemError as exc:
        typer.echo(f"import failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    except RuntimeError as exc:
        typer.echo(f"import failed: {advice(exc)}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(render(summary))


def render(summary: ImportSummary) -> str:
    head = "dry run, nothing written" if summary.dry_run else f"run {summary.run_id}"
    lines = [
        f"{head}: {len(summary.files_read)} files read, "
        f"{len(summary.files_unchanged)} unchanged since the last import, "
        f"{summary.statements} statements"
    ]
    order = ("write", "merge", "supersede", "superseded", "reject")
    verb = {
        "write": "would write" if summary.dry_run else "wrote",
        "merge": "would merge into" if summary.dry_run else "merged into",
        "supersede": "would supersede" if summary.dry_run else "superseded",
        "superseded": "superseded by a newer statement",
        "reject": "rejected",
    }
    for action in order:
        for o in (o for o in summary.outcomes if o.action == action):
            target = f" {o.target}" if o.target else ""
            lines.append(f"- {verb[action]}{target}: {o.statement} [{o.project}]")
            lines.append(f"    from {', '.join(o.sources)}")
            lines.append(f"    because {o.reason}")
    for conflict in summary.conflicts:
        lines.append(f"! conflict: {conflict}")
    for problem in summary.problems:
        lines.append(f"! skipped {problem}")
    if not summary.dry_run:
        lines.append(
            f"{summary.cards_written} cards written, {summary.evidence_appended} evidence files "
            f"updated, commit {summary.commit or 'none (nothing new)'}"
        )
    return "\n".join(lines)
