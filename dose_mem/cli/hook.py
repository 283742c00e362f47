"""``dose-mem hook claude-code|codex`` and ``dose-mem notify codex`` (logic in recall_api.hooks).

The installed ``dose-mem`` script routes this exact command to ``dose_mem.cli.entry``'s
fast path before the full CLI (and its index imports) loads; this registration keeps it
listed in ``--help`` and working through ``python -m dose_mem.cli.main`` too.
"""

from __future__ import annotations

from typing import Annotated

import typer

hook_app = typer.Typer(help="Hooks that agents run on every prompt.", no_args_is_help=True)


@hook_app.command("claude-code")
def claude_code(
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds to wait for the service (default 2, or DOSE_MEM_HOOK_TIMEOUT)."),
    ] = None,
) -> None:
    """Every Claude Code hook event on stdin: UserPromptSubmit prints additionalContext
    when memory applies; PostToolUse, Stop, SubagentStop and SessionEnd report to task
    state.

    Uses DOSE_MEM_URL (default http://127.0.0.1:8765) and DOSE_MEM_TOKEN. Any failure
    prints nothing and exits 0, so the agent is never blocked.
    """
    from recall_api.hooks import claude_code_hook

    claude_code_hook(timeout)
    raise typer.Exit(0)


@hook_app.command("codex")
def codex_hook(
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds to wait for the service (default 2, or DOSE_MEM_HOOK_TIMEOUT)."),
    ] = None,
) -> None:
    """Codex's hooks (UserPromptSubmit, PostToolUse, Stop), the same JSON shapes as
    Claude Code's. Any failure prints nothing and exits 0."""
    from recall_api.hooks import claude_code_hook

    claude_code_hook(timeout, agent="codex")
    raise typer.Exit(0)


notify_app = typer.Typer(help="Programs agents run after each turn.", no_args_is_help=True)


@notify_app.command("codex")
def codex(
    payload: Annotated[list[str], typer.Argument(help="Codex's event JSON (its last argument).")],
) -> None:
    """Codex's ``notify`` program: report the turn to task state. Prints nothing; exits 0."""
    from recall_api.hooks import codex_notify

    codex_notify(payload)
    raise typer.Exit(0)


def register(app: typer.Typer) -> None:
    app.add_typer(hook_app, name="hook")
    app.add_typer(notify_app, name="notify")
