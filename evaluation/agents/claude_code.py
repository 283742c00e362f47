"""Claude Code (``@anthropic-ai/claude-code`` on npm), installed on demand for the tests
that run it.

The package is a small wrapper whose postinstall copies the native binary of the platform
package npm installed beside it (``@anthropic-ai/claude-code-linux-x64``, a single
executable) over ``bin/claude.exe``. ``npm_package`` installs with ``--ignore-scripts``,
so ``claude_command()`` is ``[node, .../cli-wrapper.cjs]``: the package's own fallback
launcher for that case, which finds the platform package and runs its binary with the
arguments, environment and exit status passed through. Nothing is downloaded at install
or at run time beyond the two npm packages.
"""

from __future__ import annotations

from evaluation.agents.npm import node, npm_package

CLAUDE_CODE_NPM_PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_CODE_VERSION = "2.1.337"


def claude_command() -> list[str]:
    """The command that runs Claude Code ``CLAUDE_CODE_VERSION``, installed if missing."""
    package = npm_package(CLAUDE_CODE_NPM_PACKAGE, CLAUDE_CODE_VERSION, "claude-code")
    return [node(), str(package / "cli-wrapper.cjs")]
