"""Agent hooks that ask the recall service before each prompt, and never block the agent.

A hook runs as a fresh process on every prompt, so this module imports only the standard
library: no index, no FastAPI, and not even httpx (whose import pulls in rich; its
start-up against urllib's is in docs/integrations.md), since start-up is paid on every
prompt.
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
# Claude Code events that report task state (docs/tasks.md); SessionEnd also pushes
# the ended transcript to the write path.
TASK_EVENTS = frozenset({"PostToolUse", "Stop", "SubagentStop", "SessionEnd"})
OUTPUT_TAIL = 4000
MAX_TRANSCRIPT_BYTES = 8 << 20


def _default_state_file(env: Mapping[str, str], agent: str = "claude-code") -> Path:
    if env.get("DOSE_MEM_HOOK_STATE"):
        return Path(env["DOSE_MEM_HOOK_STATE"]).expanduser()
    home = Path(env.get("DOSE_MEM_HOME") or Path.home() / ".dose-mem").expanduser()
    return home / "state" / "hooks" / f"{agent}-turns.json"


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
    result = post_json(url, token, "/v1/recall", body, timeout_s)
    text = result.get("text") if result.get("injected") else ""
    return text if isinstance(text, str) else ""


def post_json(url: str, token: str, path: str, body: dict[str, Any], timeout_s: float) -> Any:
    """POST ``body``, return the parsed answer (None when empty); raises on any transport
    or HTTP error (urllib raises on 4xx/5xx)."""
    request = urllib.request.Request(
        url.rstrip("/") + path,
        data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        raw = response.read()
    return json.loads(raw) if raw.strip() else None


def task_report(source: str, event: Mapping[str, Any], name: str | None) -> dict[str, Any]:
    """The /v1/tasks/events body for an agent's event: the payload as sent, with a tool's
    output cut to its last ``OUTPUT_TAIL`` characters (the final line is what counts)."""
    payload = dict(event)
    for key in ("tool_response", "result", "output"):
        value = payload.get(key)
        if isinstance(value, dict):
            payload[key] = {
                k: (v[-OUTPUT_TAIL:] if isinstance(v, str) else v)
                for k, v in value.items()
                if isinstance(v, str | int | float | bool) or v is None
            }
        elif isinstance(value, str):
            payload[key] = value[-OUTPUT_TAIL:]
    payload.pop("transcript", None)
    return {"source": source, "event": name, "payload": payload}


def _within(timeout_s: float, work: Any) -> Any:
    """Run ``work()`` in a daemon thread for at most ``timeout_s``; its value or None."""
    found: list[Any] = []

    def run() -> None:
        try:
            found.append(work())
        except (OSError, ValueError, AttributeError, TypeError):  # URLError is an OSError
            return

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout_s)
    return found[0] if found else None


def _report_event(
    agent: str, event: dict[str, Any], name: str, url: str, token: str, timeout_s: float
) -> None:
    """Report a hook event to task state; on ``SessionEnd`` also push the ended
    transcript (so sessions on other machines reach the write path)."""

    def send() -> bool:
        post_json(url, token, "/v1/tasks/events", task_report(agent, event, name), timeout_s)
        path = event.get("transcript_path")
        if name == "SessionEnd" and isinstance(path, str) and path:
            data = Path(path).expanduser().read_bytes()[:MAX_TRANSCRIPT_BYTES]
            if data.strip():
                fmt = agent.replace("-", "_")
                body = {"transcript": data.decode("utf-8", "replace"), "format": fmt}
                post_json(url, token, "/v1/sessions", body, timeout_s)
        return True

    _within(timeout_s, send)


def run_codex_notify(argv: list[str], env: Mapping[str, str] | None = None) -> int:
    """Codex's ``notify`` program: the event JSON is the last argument. Reports it to
    task state; prints nothing, exits 0 whatever happens."""
    env = os.environ if env is None else env
    token = env.get("DOSE_MEM_TOKEN", "")
    try:
        event = json.loads(argv[-1]) if argv else None
    except ValueError:
        return 0
    if not token or not isinstance(event, dict):
        return 0
    url = env.get("DOSE_MEM_URL") or DEFAULT_URL
    timeout_s = _timeout(env, None)
    body = task_report("codex", event, str(event.get("type") or "notify"))
    _within(timeout_s, lambda: post_json(url, token, "/v1/tasks/events", body, timeout_s))
    return 0


def codex_notify(argv: list[str]) -> None:
    with contextlib.suppress(Exception):
        run_codex_notify(argv)


def _timeout(env: Mapping[str, str], given: float | None) -> float:
    if given is not None:
        return given
    try:
        return float(env.get("DOSE_MEM_HOOK_TIMEOUT", DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S


def claude_code_output(text: str) -> str:
    output = {"hookEventName": CLAUDE_CODE_EVENT, "additionalContext": text}
    return json.dumps({"hookSpecificOutput": output}, ensure_ascii=False)


def run_claude_code(
    stdin: IO[str],
    stdout: IO[str],
    env: Mapping[str, str] | None = None,
    *,
    timeout_s: float | None = None,
    agent: str = "claude-code",
) -> int:
    """One command for every hook event, told apart by ``hook_event_name``:
    ``UserPromptSubmit`` asks the service and prints hookSpecificOutput if memory came
    back; ``PostToolUse``, ``Stop``, ``SubagentStop`` and ``SessionEnd`` report to task
    state and print nothing. Codex's hooks send the same shapes (``agent="codex"``).

    The whole exchange runs under one deadline in a daemon thread: a socket timeout bounds
    each blocking call separately, while the agent needs a bound on the sum.
    """
    env = os.environ if env is None else env
    token = env.get("DOSE_MEM_TOKEN", "")
    timeout_s = _timeout(env, timeout_s)
    try:
        event = json.loads(stdin.read())
    except (ValueError, OSError):
        return 0
    if not token or not isinstance(event, dict):
        return 0
    url = env.get("DOSE_MEM_URL") or DEFAULT_URL
    name = event.get("hook_event_name")
    if name in TASK_EVENTS:
        _report_event(agent, event, name, url, token, timeout_s)
        return 0
    body = recall_request(event, turn=1)
    if body is None:
        return 0
    body["turn"] = next_turn(_default_state_file(env, agent), body["session_id"])
    text = _within(timeout_s, lambda: fetch_recall(url, token, body, timeout_s))
    if text:
        stdout.write(claude_code_output(text) + "\n")
        stdout.flush()
    return 0


def claude_code_hook(timeout_s: float | None = None, agent: str = "claude-code") -> None:
    """The command's body: stdin/stdout of this process, and not even a bug may escape."""
    with contextlib.suppress(Exception):
        run_claude_code(sys.stdin, sys.stdout, timeout_s=timeout_s, agent=agent)


USAGE = """usage: python3 dose_mem_hook.py claude-code | codex | notify-codex EVENT_JSON
Reads DOSE_MEM_URL and DOSE_MEM_TOKEN; prints only what the agent should inject."""


def main(argv: list[str]) -> int:
    """The file run on its own (``GET /v1/client/dose_mem_hook.py``, for machines without
    dose-mem): the same commands as ``dose-mem hook claude-code|codex`` and
    ``dose-mem notify codex``. Exits 0 whatever happens, except for a usage error."""
    if argv[:1] in (["claude-code"], ["codex"]):
        claude_code_hook(agent=argv[0])
        return 0
    if argv[:1] == ["notify-codex"]:
        codex_notify(argv[1:])
        return 0
    sys.stderr.write(USAGE + "\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
