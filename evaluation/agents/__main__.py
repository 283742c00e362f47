"""``python -m evaluation.agents`` (``make agents``, before ``make test``): install every
real agent the integration tests run, at once, each into its own directory under
``.tools/agents/``. Each installer is idempotent (a marker per version), so this costs a
stat per agent once they are there. Installed side by side on threads, because they are
mostly downloads; a failure names the agent and exits 1.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from evaluation.agents.claude_code import claude_command
from evaluation.agents.codex import codex_command
from evaluation.agents.inspector import inspector_cli
from evaluation.agents.install import hermes_python
from evaluation.agents.pi import pi_package

AGENTS: dict[str, Callable[[], object]] = {
    "hermes": hermes_python,
    "pi": pi_package,
    "codex": codex_command,
    "claude-code": claude_command,
    "mcp-inspector": inspector_cli,
}


def _timed(install: Callable[[], object]) -> float:
    start = time.monotonic()
    install()
    return time.monotonic() - start


def main() -> int:
    failed = []
    with ThreadPoolExecutor(len(AGENTS)) as pool:
        jobs = {name: pool.submit(_timed, install) for name, install in AGENTS.items()}
        for name, job in jobs.items():
            try:
                print(f"agent {name}: ready ({job.result():.1f} s)")
            except Exception as exc:  # each installer raises with the command and its output
                failed.append(name)
                print(f"agent {name}: install failed: {exc}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
