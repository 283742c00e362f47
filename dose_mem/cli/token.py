"""``dose-mem token issue|list|revoke``: identity tokens for agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from dose_mem.cli.context import settings

if TYPE_CHECKING:
    from recall_api.tokens import TokenStore

token_app = typer.Typer(help="Issue, list and revoke agent identity tokens.", no_args_is_help=True)


def _store() -> TokenStore:
    from recall_api.tokens import TokenStore, tokens_path

    return TokenStore(tokens_path(settings()))


def parse_projects(value: str) -> list[str] | None:
    """``'*'`` means every project; else a comma-separated list of registry ids."""
    if value.strip() == "*":
        return None
    projects = [p.strip() for p in value.split(",") if p.strip()]
    if not projects:
        raise typer.BadParameter("give project ids separated by commas, or '*'")
    return projects


@token_app.command("issue")
def issue(
    agent: Annotated[str, typer.Option(help="Agent name, e.g. claude-code.")] = "",
    profile: Annotated[str, typer.Option(help="Recall profile: full, working, personal, ...")] = "",
    projects: Annotated[str, typer.Option(help="Comma-separated project ids, or '*'.")] = "*",
    admin: Annotated[
        bool,
        typer.Option(
            "--admin", help="A token for the inspector (/ui) only; no agent route accepts it."
        ),
    ] = False,
) -> None:
    """Print a new token once; only its hash is stored."""
    from profiles.model import load_profiles
    from recall_api.tokens import ADMIN_PROFILE

    if admin:
        token, _ = _store().issue(agent or "admin", ADMIN_PROFILE, None, admin=True)
        typer.echo(token)
        return
    if not agent or not profile:
        typer.echo("give --agent and --profile (or --admin for an inspector token)", err=True)
        raise typer.Exit(2)
    known = load_profiles(settings().profiles_path)
    if profile not in known:
        typer.echo(f"unknown profile {profile!r}; known: {', '.join(sorted(known))}", err=True)
        raise typer.Exit(2)
    token, _ = _store().issue(agent, profile, parse_projects(projects))
    typer.echo(token)


@token_app.command("list")
def list_tokens() -> None:
    table = Table("id", "agent", "profile", "projects", "created", "revoked")
    for r in _store().list():
        projects = "-" if r.admin else "*" if r.projects is None else ",".join(r.projects)
        profile = "(admin: /ui only)" if r.admin else r.profile
        table.add_row(r.id, r.agent, profile, projects, f"{r.created:%Y-%m-%d}", str(r.revoked))
    Console().print(table)


@token_app.command("revoke")
def revoke(token_id: Annotated[str, typer.Argument(help="The token's id (see list).")]) -> None:
    if not _store().revoke(token_id):
        typer.echo(f"no active token with id {token_id}", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked {token_id}")


def register(app: typer.Typer) -> None:
    app.add_typer(token_app, name="token")
