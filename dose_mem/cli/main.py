"""The ``dose-mem`` command: one sub-command per file in this package, each a thin shell
over library calls. Global ``--home`` selects the memory and state directories."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dose_mem.cli.context import set_home

app = typer.Typer(
    name="dose-mem",
    help="One memory for many agents: Markdown cards in git, a hybrid index, a recall service.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def _global(
    home: Annotated[
        Path | None,
        typer.Option("--home", envvar="DOSE_MEM_HOME", help="Home directory (memory and state)."),
    ] = None,
) -> None:
    set_home(home)


def _register() -> None:
    """Sub-commands register here; each module exposes ``register(app)``."""
    from dose_mem.cli import commands

    for module in commands.MODULES:
        module.register(app)


_register()
