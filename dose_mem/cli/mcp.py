"""``dose-mem mcp``: the MCP server over stdio (default) or streamable HTTP (``--http``).

stdio serves one client as one identity, so the token is verified at start-up (a refused
one still serves: every tool call says why); over HTTP every request carries its own
bearer token, checked by ``recall_api.mcp_server.BearerGate``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from dose_mem.cli.context import settings
from dose_mem.cli.serve import is_loopback

if TYPE_CHECKING:
    from memory_repo.settings import Settings
    from recall_api.services import Services

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
    from recall_api.mcp_server import Refused, build_server, process_cwd, stdio_identity
    from recall_api.tokens import TokenStore, tokens_path

    def build_services(cfg: Settings) -> Services:  # the service's modules: first tool call
        from recall_api.services import build_services

        return build_services(cfg)

    if http and not is_loopback(host):
        typer.echo(f"refusing to serve MCP on {host}: loopback addresses only", err=True)
        raise typer.Exit(2)
    cfg = settings()
    if not http:  # checked before the index opens; the index opens on the first tool call
        identity = stdio_identity(token, TokenStore(tokens_path(cfg)), cfg.profiles_path)
        if isinstance(identity, Refused):  # served anyway: a client shows a tool's error
            typer.echo(f"token refused: {identity.reason} (every tool call says so)", err=True)
        build_server(lambda: build_services(cfg), identity, cwd=process_cwd()).run("stdio")
        return
    try:
        services = build_services(cfg)
    except DoseMemError as exc:
        typer.echo(f"cannot open the memory: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"dose-mem MCP on http://{host}:{port}/mcp (bearer token per request)", err=True)
    build_server(services).run("streamable-http", host=host, port=port)


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
