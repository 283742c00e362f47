"""``dose-mem mcp``: the MCP server over stdio (default) or streamable HTTP (``--http``).

stdio serves one client as one identity, so the token is verified at start-up; over HTTP
every request carries its own bearer token, checked by the SDK's auth middleware.
"""

from __future__ import annotations

from typing import Annotated

import typer

from dose_mem.cli.context import settings
from dose_mem.cli.serve import is_loopback

DEFAULT_MCP_PORT = 8766


def mcp(
    token: Annotated[
        str | None,
        typer.Option(envvar="DOSE_MEM_TOKEN", help="Identity token (stdio); or DOSE_MEM_TOKEN."),
    ] = None,
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="HTTP: loopback address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP: port.")] = DEFAULT_MCP_PORT,
) -> None:
    """Expose memory_search, memory_read and memory_recall to MCP clients."""
    from memory_repo.errors import DoseMemError
    from profiles.model import load_profiles
    from recall_api.app import build_services, tokens_path
    from recall_api.mcp_server import build_server, identity_for
    from recall_api.tokens import TokenStore

    if http and not is_loopback(host):
        typer.echo(f"refusing to serve MCP on {host}: loopback addresses only", err=True)
        raise typer.Exit(2)
    if not http and not token:
        typer.echo("no token: pass --token or set DOSE_MEM_TOKEN", err=True)
        raise typer.Exit(2)
    cfg = settings()
    identity = None
    if not http:  # checked before the index opens, so a bad token fails fast and clearly
        try:
            identity = identity_for(
                TokenStore(tokens_path(cfg)), load_profiles(cfg.profiles_path), token or ""
            )
        except DoseMemError as exc:
            typer.echo(f"token refused: {exc}", err=True)
            raise typer.Exit(2) from exc
    if identity is not None:  # the index opens on the first tool call, not before the handshake
        build_server(lambda: build_services(cfg), identity).run("stdio")
        return
    try:
        services = build_services(cfg)
    except DoseMemError as exc:
        typer.echo(f"cannot open the memory: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"dose-mem MCP on http://{host}:{port}/mcp (bearer token per request)", err=True)
    build_server(services, http_url=f"http://{host}:{port}").run(
        "streamable-http", host=host, port=port
    )


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
