"""The ``dose-mem`` script: a fast path for per-prompt hooks, else the full CLI.

Loading the full CLI imports typer, rich and every command module (each imports its
heavy libraries, the index, LanceDB, Prefect, only when it runs: tests/test_cli_imports.py);
a hook runs on every prompt under a 2 s budget, so ``dose-mem hook claude-code``
(``hook codex``, and Codex's ``dose-mem notify codex``) is dispatched here with only the
standard library imported, and ``dose-mem serve`` with only the serve command.
"""

from __future__ import annotations

import sys


def _hook_timeout(args: list[str]) -> float | None:
    """``--timeout N`` / ``--timeout=N`` after ``hook claude-code``; None when absent."""
    for i, arg in enumerate(args):
        if arg == "--timeout" and i + 1 < len(args):
            return float(args[i + 1])
        if arg.startswith("--timeout="):
            return float(arg.split("=", 1)[1])
    return None


def main() -> None:
    args = sys.argv[1:]
    if args[:2] in (["hook", "claude-code"], ["hook", "codex"]) and "--help" not in args:
        from recall_api.hooks import claude_code_hook

        try:
            timeout = _hook_timeout(args[2:])
        except ValueError:
            timeout = None
        claude_code_hook(timeout, agent=args[1])
        sys.exit(0)
    if args[:2] == ["notify", "codex"] and "--help" not in args:
        from recall_api.hooks import codex_notify

        codex_notify(args[2:])
        sys.exit(0)
    if _command(args) == "serve":
        # The service imports only what it serves with: no other command module stays
        # resident for the life of the service.
        from dose_mem.cli.build import make_app

        make_app(("serve",))()
        return
    from dose_mem.cli.main import app

    app()


def _command(args: list[str]) -> str | None:
    """The sub-command named in ``args`` (after the global ``--home``), if any."""
    rest = iter(args)
    for arg in rest:
        if arg == "--home":
            next(rest, None)
        elif not arg.startswith("-"):
            return arg
    return None


if __name__ == "__main__":
    main()
