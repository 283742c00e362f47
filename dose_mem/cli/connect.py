"""``dose-mem connect AGENT`` / ``dose-mem disconnect AGENT``: a thin shell over
``dose_mem.connect.run`` (what each writes: docs/integrations.md, "Connecting agents")."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class Agent(StrEnum):
    claude_code = "claude-code"
    codex = "codex"
    hermes = "hermes"
    pi = "pi"
    openclaw = "openclaw"


class Scope(StrEnum):
    user = "user"
    project = "project"


_SCOPE_HELP = "user: the agent's own home; project: this directory (claude-code only)."


def connect(
    agent: Annotated[Agent, typer.Argument(help="The agent to connect.")],
    url: Annotated[
        str | None,
        typer.Option(
            help="The recall service's URL (default $DOSE_MEM_URL or http://127.0.0.1:8765)."
        ),
    ] = None,
    token: Annotated[str | None, typer.Option(help="Connect with this token.")] = None,
    issue: Annotated[
        bool,
        typer.Option(
            "--issue",
            help="Issue a token with the agent's default profile (or keep the one it has).",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the diff of every file; change nothing.")
    ] = False,
    scope: Annotated[Scope, typer.Option(help=_SCOPE_HELP)] = Scope.user,
) -> None:
    """Write the agent's set-up for dose-mem, merged with what is there; again changes nothing.

    Without --token or --issue: $DOSE_MEM_TOKEN, else the token the agent already has.
    """
    from dose_mem.cli.context import settings
    from dose_mem.connect import run
    from dose_mem.connect.model import ConnectError
    from recall_api.tokens import tokens_path

    config = settings()
    try:
        result = run.connect(
            agent.value,
            env=os.environ,
            cwd=Path.cwd(),
            home=Path.home(),
            store_path=tokens_path(config),
            profiles_dir=config.profiles_path,
            scope=scope.value,
            url=url,
            token=token,
            issue_new=issue,
            dry_run=dry_run,
            dose_home=config.home,
        )
    except ConnectError as exc:
        typer.echo(f"dose-mem connect {agent.value}: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo("\n".join(run.report(result)))


def disconnect(
    agent: Annotated[Agent, typer.Argument(help="The agent to disconnect.")],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the diff of every file; change nothing.")
    ] = False,
    scope: Annotated[Scope, typer.Option(help=_SCOPE_HELP)] = Scope.user,
) -> None:
    """Remove exactly what connect added (the user's own settings stay); the token stays valid."""
    from dose_mem.connect import run
    from dose_mem.connect.model import ConnectError

    try:
        result = run.disconnect(
            agent.value,
            env=os.environ,
            cwd=Path.cwd(),
            home=Path.home(),
            scope=scope.value,
            dry_run=dry_run,
        )
    except ConnectError as exc:
        typer.echo(f"dose-mem disconnect {agent.value}: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo("\n".join(run.report(result)))


def register(app: typer.Typer) -> None:
    app.command("connect")(connect)
    app.command("disconnect")(disconnect)
