"""``dose-mem sessions``: what capture finds in each agent's history and the project each
session is filed under (``list``, the default); ``held``: facts waiting for a project;
``add FILE --agent NAME``: push an ended transcript for the next ingest."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError

sessions_app = typer.Typer(
    help="Agents' sessions: what capture finds, facts held, transcripts pushed."
)


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


@sessions_app.callback(invoke_without_command=True)
def default(ctx: typer.Context) -> None:
    """With no sub-command: ``list``."""
    if ctx.invoked_subcommand is None:
        list_sessions(agent=None, all_sessions=False, as_json=False)


@sessions_app.command("list")
def list_sessions(
    agent: Annotated[str | None, typer.Option("--agent", help="Only this agent.")] = None,
    all_sessions: Annotated[
        bool, typer.Option("--all", help="Also the sessions ingested before.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """Per agent: sessions found, to read, skipped or waiting (with why), and the project
    each is filed under and why. Reads no session for facts and writes nothing."""
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    from flows.capture.listing import list_sessions as survey

    found = [r for r in survey(settings()) if agent in (None, r.agent)]
    if as_json:
        for r in found:
            typer.echo(r.model_dump_json())
        return
    counts = Counter((r.agent, r.status) for r in found)
    agents = sorted({r.agent for r in found})
    statuses = ["to read", "unchanged", "skipped", "waiting"]
    summary = Table("agent", "found", *statuses, title="sessions by agent")
    for name in agents:
        row = [str(counts[(name, s)]) for s in statuses]
        summary.add_row(name, str(sum(counts[(name, s)] for s in statuses)), *row)
    console = Console()
    console.print(summary)
    shown = [r for r in found if all_sessions or r.status != "unchanged"]
    table = Table("agent", "session", "status", "project", "why / reason")
    for r in shown:
        why = r.reason or r.why or ""
        joined = f" (+{len(r.parts)} joined)" if r.parts else ""
        table.add_row(r.agent, r.session[:36] + joined, r.status, r.project or "", why)
    if shown:
        console.print(table)


@sessions_app.command("held")
def held_facts(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """Facts held for want of a project: each with its session and why. Register the
    project's path (or name it in the session) and they can be filed."""
    from rich.console import Console
    from rich.table import Table

    from memory_repo import held

    facts = held.read(settings().state_path)
    if as_json:
        for f in facts:
            typer.echo(f.model_dump_json())
        return
    if not facts:
        typer.echo("no facts held")
        return
    table = Table("when", "agent", "session", "type", "statement", "why held")
    for f in facts:
        table.add_row(f"{f.at:%Y-%m-%d}", f.agent, f.session[:24], f.type, f.statement, f.reason)
    Console(width=200).print(table)


@sessions_app.command("outbox")
def outbox(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per agent.")] = False,
) -> None:
    """This machine's client outboxes (hooks, Hermes): per agent, the requests waiting to
    be sent and what was dropped (too old, too many, too large, or refused for good)."""
    import json
    import os

    from recall_api.hooks import dropped

    root = (
        Path(os.environ["DOSE_MEM_OUTBOX"]).expanduser()
        if os.environ.get("DOSE_MEM_OUTBOX")
        else settings().state_path / "outbox"
    )
    rows = []
    for folder in sorted(p for p in root.glob("*") if p.is_dir()):
        waiting = list(folder.glob("*.req"))
        count, size = dropped(folder)
        rows.append(
            {
                "agent": folder.name,
                "waiting": len(waiting),
                "waiting_bytes": sum(p.stat().st_size for p in waiting),
                "dropped": count,
                "dropped_bytes": size,
            }
        )
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row))
        return
    if not rows:
        typer.echo(f"no client outbox at {root}")
        return
    for r in rows:
        typer.echo(
            f"{r['agent']}: {r['waiting']} waiting ({r['waiting_bytes']} bytes), "
            f"{r['dropped']} dropped ({r['dropped_bytes']} bytes)"
        )
