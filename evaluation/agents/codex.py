"""Codex (``@openai/codex`` on npm), installed on demand for the tests that run it.

``codex_command()`` is ``[node, .../@openai/codex/bin/codex.js]``: the package's own
launcher, which runs the native binary of the platform package npm installed beside it
(``@openai/codex-linux-x64``). The tests drive ``codex app-server`` (JSON-RPC over
stdio), which lists MCP servers' status and calls their tools without a model.
"""

from __future__ import annotations

from evaluation.agents.npm import node, npm_package

CODEX_NPM_PACKAGE = "@openai/codex"
CODEX_VERSION = "0.171.0"


def codex_command() -> list[str]:
    """The command that runs Codex ``CODEX_VERSION``, installed if missing."""
    package = npm_package(CODEX_NPM_PACKAGE, CODEX_VERSION, "codex")
    return [node(), str(package / "bin" / "codex.js")]
