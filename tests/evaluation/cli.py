"""``dose-mem eval run ENV --json --out DIR`` in-process, as the evaluation tests call it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from dose_mem.cli.main import app


def eval_json(env: Path, tmp_path: Path, *more: str) -> tuple[dict[str, Any], Path]:
    """The printed JSON and the report directory; asserts the command succeeded."""
    out = tmp_path / "report"
    result = CliRunner().invoke(
        app,
        [
            *("--home", str(tmp_path / "home"), "eval", "run", str(env)),
            *("--json", "--out", str(out), *more),
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), out
