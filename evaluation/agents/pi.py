"""Pi sessions written by Pi's own code (``@mariozechner/pi-coding-agent``), from a short spec.

``pi_package()`` installs Pi ``PI_VERSION`` with npm into ``<repo>/.tools/agents/pi-<version>``
the first time it is asked for (``evaluation/agents/npm.py``).
``write_pi_sessions(spec, sessions_dir)`` runs
``evaluation/agents/pi_writer.mjs``, which imports Pi's ``SessionManager`` from that
install and writes each session as Pi does: the directory ``--<cwd with / as ->--``
(Pi's ``getDefaultSessionDir``) under ``sessions_dir``, the file
``<header time>_<session uuid>.jsonl``, the session id Pi's own (a uuid v7).

The spec is a list of sessions (YAML or JSON), each written in order::

    - cwd: /home/mei/src/harbor
      started: "2026-11-03T09:15:00Z"     # the header's time; entry k at started + 60 s * k
      entries:
        - {user: "..."}                               # what the person typed
        - {assistant: "...", tools: [read]}           # assistant text, optional tool calls
        - {tool: read, result: "...", error: false}   # a tool result (answers the last call)
        - {bash: "git status", output: "...", exit: 0}  # the person's own `!` command
        - {bash: "ls", output: "...", exclude: true}    # `!!`: kept out of the model's context
        - {branch: 3}     # go back: continue from the entry 3 steps above the current leaf
        - {branch: 2, summary: "..."}   # the same through /tree's summary (branch_summary)
        - {compact: "summary", tokens_before: 50000}  # a compaction entry
        - {name: "Refactor auth"}                     # /name: a session_info entry

What each entry does, as Pi does it: a message is ``SessionManager.appendMessage`` with the
message Pi builds (a user message's content is ``[{type: "text", text}]`` as in
``AgentSession.prompt``; a ``bash`` entry is the ``bashExecution`` message of
``AgentSession.recordBashResult``); ``branch`` moves the leaf with ``branch`` (or
``resetLeaf`` above the first entry, ``branchWithSummary`` with a summary), so the
abandoned entries stay in the file off the active branch. Pi stamps entries with the
wall clock: the writer replaces node's ``Date`` with one reading its own clock (see
pi_writer.mjs). Pi writes nothing until a session has an assistant message, so a session
without one has no file and is not among the returned paths; a ``branch`` with nothing
appended after it is not in the file either (Pi's leaf is the last entry appended).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

from evaluation.agents.npm import node, npm_package

PI_NPM_PACKAGE = "@mariozechner/pi-coding-agent"
PI_VERSION = "0.73.1"
WRITER = Path(__file__).with_name("pi_writer.mjs")
WRITE_TIMEOUT_S = 120


def pi_package() -> Path:
    """The installed package directory (``.../node_modules/@mariozechner/pi-coding-agent``),
    installed if missing. Raises ``RuntimeError`` naming the command when a step fails."""
    return npm_package(PI_NPM_PACKAGE, PI_VERSION, "pi")


def write_pi_sessions(spec: list[dict[str, Any]], sessions_dir: Path) -> list[Path]:
    """Write the sessions of ``spec`` (see the module docstring) under ``sessions_dir``
    with Pi's own ``SessionManager``; the files written, in spec order."""
    package = pi_package()
    sessions_dir.mkdir(parents=True, exist_ok=True)
    cmd = [node(), str(WRITER), str(package), str(sessions_dir)]
    try:
        done = subprocess.run(
            cmd,
            input=json.dumps(spec, default=str),
            capture_output=True,
            text=True,
            timeout=WRITE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"`{shlex.join(cmd)}` failed: {exc}") from exc
    if done.returncode != 0:
        raise RuntimeError(f"`{shlex.join(cmd)}` exited {done.returncode}: {done.stderr[-2000:]}")
    return [Path(p) for p in json.loads(done.stdout) if p and Path(p).is_file()]
