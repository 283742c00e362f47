"""``dose-mem serve``: the recall service, on loopback unless told otherwise."""

from __future__ import annotations

import ipaddress
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from dose_mem.cli.context import settings

if TYPE_CHECKING:
    from memory_repo.settings import Settings

# The event loop (HTTP parsing, responses) and the request threads (recall) share one
# GIL; at Python's default 5 ms a parsed request can wait a whole interval for its turn.
# Shorter is better until switching itself costs (the sweep: docs/index.md).
SWITCH_INTERVAL_S = 0.0005


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def rollback_run(cfg: Settings, run_id: str) -> str:
    """``dose-mem rollback``'s code for the inspector's button, imported only when pressed:
    the write path (Prefect among it) stays out of the service's memory until then."""
    from flows.rollback import rollback

    return rollback(cfg, run_id)


def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8765).")] = None,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Permit a non-loopback address.")
    ] = False,
) -> None:
    """Serve POST /v1/recall, /v1/search, GET /v1/memories/{id}, /v1/projects, /healthz."""
    import uvicorn

    from memory_repo.index.allocators import lean_allocators
    from recall_api.app import create_app

    cfg = settings()
    bind = host or cfg.host
    if not is_loopback(bind) and not (allow_remote or cfg.allow_remote):
        typer.echo(
            f"refusing to listen on {bind}: not a loopback address; pass --allow-remote "
            "(or DOSE_MEM_ALLOW_REMOTE=1) if you really mean it",
            err=True,
        )
        raise typer.Exit(2)
    lean_allocators()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app = _app_building_a_missing_index(cfg, create_app)
    # Loopback by default and never behind a proxy we know of: no proxy-header rewriting,
    # no access log; both were per-request cost on the recall hot path.
    uvicorn.run(
        app,
        host=bind,
        port=port or cfg.port,
        log_level="warning",
        access_log=False,
        proxy_headers=False,
    )


def _app_building_a_missing_index(cfg: Settings, create_app: Any) -> Any:
    """The service's app; on a memory with no index yet (right after ``dose-mem init``)
    the index is built first, with a line saying so, instead of a traceback."""
    from memory_repo.bootstrap import has_memory
    from memory_repo.errors import DoseMemError
    from memory_repo.index.build import refresh
    from memory_repo.index.embedders import make_embedder
    from memory_repo.index.query import IndexMissing

    if not has_memory(cfg.memory_path):
        typer.echo(f"no memory repository at {cfg.memory_path} (run `dose-mem init`)", err=True)
        raise typer.Exit(2)
    try:
        return create_app(cfg, rollback=rollback_run)
    except IndexMissing:
        typer.echo(f"no index at {cfg.index_path} yet: building it", err=True)
    try:
        report = refresh(cfg.memory_path, cfg.index_path, make_embedder(cfg))
    except DoseMemError as exc:
        typer.echo(f"cannot build the index: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"index built: {report.chunks_total} chunks, {report.seconds:.1f} s", err=True)
    return create_app(cfg, rollback=rollback_run)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
