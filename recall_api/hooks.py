"""Agent hooks that ask the recall service before each prompt, and never block the agent.

A hook runs as a fresh process on every prompt, so this module imports only the standard
library: no index, no FastAPI, and not even httpx (whose import pulls in rich and cost
0.7-1 s here against 0.1-0.2 s for urllib), since start-up is paid on every prompt.
Every failure -- service down, timeout, 401, malformed input or output -- ends the same
way: nothing on stdout, exit status 0, and the agent carries on without memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import threading
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

DEFAULT_URL = "http://127.0.0.1:8765"
DEFAULT_TIMEOUT_S = 2.0
MAX_TRACKED_SESSIONS = 500
CLAUDE_CODE_EVENT = "UserPromptSubmit"


def _default_state_file(env: Mapping[str, str]) -> Path:
    if env.get("DOSE_MEM_HOOK_STATE"):
        return Path(env["DOSE_MEM_HOOK_STATE"]).expanduser()
    home = Path(env.get("DOSE_MEM_HOME") or Path.home() / ".dose-mem").expanduser()
    return home / "state" / "hooks" / "claude-code-turns.json"


def next_turn(state_file: Path, session_id: str) -> int:
    """Count this session's prompts in a tiny JSON file; 1 whenever the count is unknowable.

    Only the most recent sessions are kept, so the file stays small forever. The write is
    atomic (temp file + rename); two prompts racing in one session is not a real case.
    """
    try:
        counts: dict[str, int] = json.loads(state_file.read_text(encoding="utf-8"))
        if not isinstance(counts, dict):
            counts = {}
    except (OSError, ValueError):
        counts = {}
    turn = int(counts.pop(session_id, 0)) + 1
    counts[session_id] = turn  # re-inserted last: dict order doubles as recency
    while len(counts) > MAX_TRACKED_SESSIONS:
        counts.pop(next(iter(counts)))
    try:
        state_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=state_file.parent, prefix=".turns-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(counts, fh)
        os.replace(tmp, state_file)
    except OSError:
        return turn
    return turn


def recall_request(event: Mapping[str, Any], turn: int) -> dict[str, Any] | None:
    """The /v1/recall body for a Claude Code UserPromptSubmit event, or None if unusable."""
    prompt, session = event.get("prompt"), event.get("session_id")
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    if not isinstance(session, str) or not session:
        return None
    body: dict[str, Any] = {"prompt": prompt, "session_id": session, "turn": turn}
    if isinstance(event.get("cwd"), str) and event["cwd"]:
        body["cwd"] = event["cwd"]
    return body


def fetch_recall(url: str, token: str, body: dict[str, Any], timeout_s: float) -> str:
    """The text to inject ('' when nothing is); raises on any transport or HTTP error."""
    request = urllib.request.Request(
        url.rstrip("/") + "/v1/recall",
        data=json.dumps(body).encode("utf-8"),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as response:  # 4xx/5xx raise
        result = json.loads(response.read())
    text = result.get("text") if result.get("injected") else ""
    return text if isinstance(text, str) else ""


def claude_code_output(text: str) -> str:
    output = {"hookEventName": CLAUDE_CODE_EVENT, "additionalContext": text}
    return json.dumps({"hookSpecificOutput": output}, ensure_ascii=False)


def run_claude_code(
    stdin: IO[str],
    stdout: IO[str],
    env: Mapping[str, str] | None = None,
    *,
    timeout_s: float | None = None,
) -> int:
    """Read the hook event, ask the service, print hookSpecificOutput if memory came back.

    The whole exchange runs under one deadline in a daemon thread: a socket timeout bounds
    each blocking call separately, while the agent needs a bound on the sum.
    """
    env = os.environ if env is None else env
    token = env.get("DOSE_MEM_TOKEN", "")
    if timeout_s is None:
        try:
            timeout_s = float(env.get("DOSE_MEM_HOOK_TIMEOUT", DEFAULT_TIMEOUT_S))
        except ValueError:
            timeout_s = DEFAULT_TIMEOUT_S
    try:
        event = json.loads(stdin.read())
    except (ValueError, OSError):
        return 0
    if not token or not isinstance(event, dict):
        return 0
    body = recall_request(event, turn=1)
    if body is None:
        return 0
    body["turn"] = next_turn(_default_state_file(env), body["session_id"])
    url = env.get("DOSE_MEM_URL") or DEFAULT_URL
    found: list[str] = []

    def ask() -> None:
        try:
            found.append(fetch_recall(url, token, body, timeout_s))
        except (OSError, ValueError, AttributeError):  # URLError and timeouts are OSErrors
            return

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    worker.join(timeout_s)
    if found and found[0]:
        stdout.write(claude_code_output(found[0]) + "\n")
        stdout.flush()
    return 0


def claude_code_hook(timeout_s: float | None = None) -> None:
    """The command's body: stdin/stdout of this process, and not even a bug may escape."""
    with contextlib.suppress(Exception):
        run_claude_code(sys.stdin, sys.stdout, timeout_s=timeout_s)
