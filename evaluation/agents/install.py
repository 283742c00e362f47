"""Real agents, installed on demand, so tests and evaluations read what the agents write.

Each agent lives in its own directory under ``<repo>/.tools/agents/`` (never in the
project's ``.venv``), pinned to one version, and is installed the first time it is asked
for. A marker file written after a successful install makes every later call a stat: an
interrupted install leaves no marker and is redone from scratch.

* ``hermes_python()``: Hermes Agent (NousResearch/hermes-agent, PyPI ``hermes-agent``) in
  a Python 3.11 venv made with uv; its interpreter runs
  ``evaluation/agents/hermes_writer.py``.
* Node agents (Pi, Codex, the MCP Inspector): ``evaluation/agents/npm.py`` (``npm_package``),
  with the same marker and lock.
"""

from __future__ import annotations

import fcntl
import shlex
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENTS_DIR = ROOT / ".tools" / "agents"
MARKER = ".dose-mem-installed"

HERMES_VERSION = "0.19.0"  # the newest hermes-agent on PyPI when the reader was written
HERMES_PYTHON = "3.11"
INSTALL_TIMEOUT_S = 900


def hermes_python() -> Path:
    """The interpreter of a venv holding ``hermes-agent==HERMES_VERSION``, installed if missing.

    The venv is ``<repo>/.tools/agents/hermes-<version>``, created with
    ``uv venv -p 3.11`` and filled with ``uv pip install`` (uv from ``.tools/uv/bin/uv``,
    else ``uv`` on PATH). Idempotent: once the marker file exists this returns at once;
    concurrent callers (pytest workers) wait on a lock instead of installing twice.
    Raises ``RuntimeError`` naming the command when uv is missing or a step fails.
    """
    venv = AGENTS_DIR / f"hermes-{HERMES_VERSION}"
    python = venv / "bin" / "python"
    if _installed(venv, python):
        return python
    with install_lock(AGENTS_DIR / f"hermes-{HERMES_VERSION}.lock"):
        if _installed(venv, python):
            return python
        shutil.rmtree(venv, ignore_errors=True)  # a partial venv from an interrupted install
        uv = _uv()
        run_step([uv, "venv", "-q", "-p", HERMES_PYTHON, str(venv)])
        package = f"hermes-agent=={HERMES_VERSION}"
        run_step([uv, "pip", "install", "-q", "--python", str(python), package])
        (venv / MARKER).write_text(f"{package}\n", encoding="utf-8")
    return python


def _installed(venv: Path, python: Path) -> bool:
    return (venv / MARKER).is_file() and python.exists()


def _uv() -> str:
    """The project's uv (``make env`` puts it in ``.tools/uv``), else the one on PATH."""
    local = ROOT / ".tools" / "uv" / "bin" / "uv"
    if local.exists():
        return str(local)
    found = shutil.which("uv")
    if found is None:
        raise RuntimeError(f"uv not found (neither {local} nor on PATH): run `make env` first")
    return found


def run_step(cmd: Sequence[str]) -> None:
    """Run one install step; a failure raises ``RuntimeError`` with the command and its output."""
    try:
        done = subprocess.run(
            list(cmd), capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"`{shlex.join(cmd)}` failed: {exc}") from exc
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip()[-2000:]
        raise RuntimeError(f"`{shlex.join(cmd)}` exited {done.returncode}: {output}")


@contextmanager
def install_lock(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` for the duration of an install."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
