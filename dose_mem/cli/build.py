"""How the ``dose-mem`` command is put together: the global ``--home`` option and the
sub-commands asked for (``main.py`` asks for all of them, ``dose-mem serve`` for one)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dose_mem.cli.context import set_home


def make_app(commands_: tuple[str, ...] | None = None) -> typer.Typer:
    """The CLI with these sub-commands (all by default); each module has ``register(app)``."""
    from dose_mem.cli import commands

    cli = typer.Typer(
        name="dose-mem",
        help="One memory for many agents: Markdown cards in git, a hybrid index, a recall service.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
    )
    cli.callback()(_global)
    for module in commands.modules(commands_ or commands.NAMES):
        module.register(cli)
    return cli


def _global(
    home: Annotated[
        Path | None,
        typer.Option("--home", envvar="DOSE_MEM_HOME", help="Home directory (memory and state)."),
    ] = None,
) -> None:
    set_home(home)
