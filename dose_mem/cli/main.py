"""The ``dose-mem`` command: one sub-command per file in this package, each a thin shell
over library calls. Global ``--home`` selects the memory and state directories."""

from __future__ import annotations

from dose_mem.cli.build import make_app

app = make_app()
