"""``dose-mem --help`` and the light commands start without the heavy libraries (issue #29).

Each command runs in a fresh interpreter through the installed script's entry point
(``dose_mem.cli.entry:main``), and the modules it loaded are compared with the list
below: the index (LanceDB, Arrow, Tantivy), the evaluation, Prefect, the LLM clients,
plotting and the web framework are for the commands that use them, not for every
start-up. Speed is measured (docs/operations.md, "CLI start-up"), not asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HEAVY = (
    "memory_repo.index",
    "lancedb",
    "pyarrow",
    "tantivy",
    "evaluation",
    "prefect",
    "instructor",
    "openai",
    "matplotlib",
    "fastapi",
)

# Runs the command as the ``dose-mem`` script does, then prints every loaded module's
# name as the last line of stdout.
PROBE = """
import contextlib, io, json, sys
sys.argv = ["dose-mem", *sys.argv[1:]]
from dose_mem.cli.entry import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded(args: list[str], home: Path) -> tuple[object, list[str]]:
    """The exit code and the modules loaded by ``dose-mem ARGS`` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "DOSE_MEM_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["code"], report["modules"]


def heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY)]


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["token", "--help"],
        ["tasks", "--help"],
        ["hook", "--help"],
        ["mcp", "--help"],
        ["token", "list"],
        ["tasks"],
    ],
    ids=" ".join,
)
def test_light_commands_import_no_heavy_library(args: list[str], tmp_path: Path) -> None:
    code, modules = loaded(args, tmp_path)
    assert code in (0, None)
    assert heavy(modules) == []
    assert "dose_mem.cli.token" in modules  # the full CLI was built, not a fast path


def test_the_probe_sees_a_heavy_import(tmp_path: Path) -> None:
    """The check above can fail: a command that opens the index is caught by it."""
    _, modules = loaded(["search", "anything"], tmp_path)
    assert "memory_repo.index.query" in heavy(modules)
