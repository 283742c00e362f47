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
import fcntl
import gzip
import json
import os
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
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
# Events after which the agent may no longer hold what was injected earlier in the
# session: a compaction about to run (PreCompact), or a session started over a compacted,
# cleared or resumed context (SessionStart's source; a resumed transcript may lack hook
# context, anthropics/claude-code#11906, so it is reset too: at worst one repeat). The
# next recall of that session says so (``context_reset``) and is given what passes again.
RESET_EVENT = "PreCompact"
RESET_SOURCES = frozenset({"compact", "clear", "resume"})
OUTPUT_TAIL = 4000
# The service takes raw session pushes up to 64 MiB (recall_api/models.MAX_SESSION_BYTES);
# a larger transcript is not sent and counted as dropped.
MAX_TRANSCRIPT_BYTES = 64 << 20
# SessionEnd blocks no prompt: its push may take this long before it is left for later.
PUSH_TIMEOUT_S = 30.0
# The outbox (docs/operations.md, "Nothing lost"): every report and push is kept on disk
# before it is sent and removed once the service took it; bounded in count, bytes, age.
OUTBOX_MAX_ITEMS = 500
OUTBOX_MAX_BYTES = 256 << 20
OUTBOX_MAX_AGE_S = 14 * 86400
RETRIED = frozenset({408, 425, 429, 500, 502, 503, 504})


def _state_dir(env: Mapping[str, str]) -> Path:
    """``<DOSE_MEM_HOME or ~/.dose-mem>/state``: where a client keeps what it must."""
    return Path(env.get("DOSE_MEM_HOME") or Path.home() / ".dose-mem").expanduser() / "state"


def _default_state_file(env: Mapping[str, str], agent: str = "claude-code") -> Path:
    if env.get("DOSE_MEM_HOOK_STATE"):
        return Path(env["DOSE_MEM_HOOK_STATE"]).expanduser()
    return _state_dir(env) / "hooks" / f"{agent}-turns.json"


def outbox_dir(env: Mapping[str, str], agent: str) -> Path:
    """``<home>/state/outbox/<agent>/``, or ``$DOSE_MEM_OUTBOX/<agent>`` when set."""
    if env.get("DOSE_MEM_OUTBOX"):
        return Path(env["DOSE_MEM_OUTBOX"]).expanduser() / agent
    return _state_dir(env) / "outbox" / agent


def keep(folder: Path, path: str, data: bytes, content_type: str, encoding: str = "") -> Path:
    """Put one request in the outbox (a JSON header line, then the body), atomically;
    then prune it to its bounds. The file's name orders the outbox by time. The header's
    ``key`` goes with every attempt as the Idempotency-Key, so a retry after an answer
    that never arrived is not applied twice."""
    folder.mkdir(parents=True, exist_ok=True)
    head = {
        "path": path,
        "type": content_type,
        "encoding": encoding,
        "at": time.time(),
        "key": uuid.uuid4().hex,
    }
    name = f"{time.time_ns():020d}-{os.getpid()}-{threading.get_ident() % 10_000:04d}.req"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".req-")
    with os.fdopen(fd, "wb") as fh:
        fh.write(json.dumps(head).encode("utf-8") + b"\n" + data)
    target = folder / name
    os.replace(tmp, target)
    prune(folder)
    return target


def prune(folder: Path, now: float | None = None) -> int:
    """Drop the oldest requests beyond the outbox's age, count and byte bounds; each drop
    is added to ``dropped.json`` (count and bytes), which ``dose-mem sessions outbox``
    shows. A request another process sent (and removed) meanwhile is simply not there."""
    now = time.time() if now is None else now
    stats = {}
    for p in sorted(folder.glob("*.req")):
        with contextlib.suppress(FileNotFoundError):
            stats[p] = p.stat()
    drop = [p for p, st in stats.items() if now - st.st_mtime > OUTBOX_MAX_AGE_S]
    kept = [p for p in stats if p not in drop]
    total = sum(stats[p].st_size for p in kept)
    while kept and (len(kept) > OUTBOX_MAX_ITEMS or total > OUTBOX_MAX_BYTES):
        drop.append(oldest := kept.pop(0))
        total -= stats[oldest].st_size
    for p in drop:
        p.unlink(missing_ok=True)
    if drop:
        _count_dropped(folder, len(drop), sum(stats[p].st_size for p in drop))
    return len(drop)


def dropped(folder: Path) -> tuple[int, int]:
    """What the outbox in ``folder`` has dropped so far, (requests, bytes), from its
    ``dropped.json``; (0, 0) when it dropped nothing or the file is unreadable."""
    seen = _read_map(folder / "dropped.json")
    try:
        return int(seen.get("count", 0)), int(seen.get("bytes", 0))
    except (TypeError, ValueError):
        return 0, 0


def _count_dropped(folder: Path, count: int, size: int) -> None:
    before, before_bytes = dropped(folder)
    seen = {"count": before + count, "bytes": before_bytes + size, "last": time.time()}
    (folder / "dropped.json").write_text(json.dumps(seen), encoding="utf-8")


def _outbox_headers(folder: Path, key: str) -> dict[str, str]:
    """The headers of a request sent from the outbox: its Idempotency-Key, and this
    machine's name with the outbox's dropped count, which the service shows in the
    inspector (``recall_api/client_outboxes.py``)."""
    host = socket.gethostname() or "unknown"
    headers = {"Dose-Mem-Client": host, "Dose-Mem-Dropped": str(dropped(folder)[0])}
    if key:
        headers["Idempotency-Key"] = key
    return headers


def send_kept(item: Path, url: str, token: str, timeout_s: float) -> bool:
    """Send one outbox request; True when it is done with (taken, or refused for good:
    a 4xx other than a retryable one, counted as dropped), False to try again later."""
    raw = item.read_bytes()
    head_line, _, data = raw.partition(b"\n")
    head = json.loads(head_line)
    try:
        post(
            url,
            token,
            head["path"],
            data,
            head["type"],
            head.get("encoding", ""),
            timeout_s,
            extra=_outbox_headers(item.parent, head.get("key", "")),
        )
    except urllib.error.HTTPError as exc:
        if exc.code in RETRIED:
            return False
        _count_dropped(item.parent, 1, len(raw))
    except OSError:
        return False
    item.unlink(missing_ok=True)
    return True


def drain(folder: Path, url: str, token: str, timeout_s: float) -> int:
    """Send what the outbox holds, oldest first, until one fails or none is left; the
    number sent. One process or thread drains at a time (a lock beside the requests):
    another that finds it taken leaves its request to the one draining, which looks
    again before it stops, so nothing is sent twice or left behind."""
    if not folder.is_dir():
        return 0
    with (folder / ".lock").open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0
        sent, done = 0, set()
        while batch := [p for p in sorted(folder.glob("*.req")) if p not in done]:
            for item in batch:  # what others kept meanwhile is in the next batch
                if not send_kept(item, url, token, timeout_s):
                    return sent
                done.add(item)
                sent += 1
        return sent


def _read_map(path: Path) -> dict[str, Any]:
    """A small JSON object of per-session values; {} when missing or unreadable."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _write_map(path: Path, values: dict[str, Any]) -> None:
    """Keep the most recent ``MAX_TRACKED_SESSIONS`` entries (dict order is recency) and
    write them atomically (temp file + rename); raises OSError."""
    while len(values) > MAX_TRACKED_SESSIONS:
        values.pop(next(iter(values)))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".turns-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(values, fh)
    os.replace(tmp, path)


def next_turn(state_file: Path, session_id: str) -> int:
    """Count this session's prompts in a tiny JSON file; 1 whenever the count is unknowable.

    Only the most recent sessions are kept, so the file stays small forever. The write is
    atomic (temp file + rename); two prompts racing in one session is not a real case.
    """
    counts = _read_map(state_file)
    turn = int(counts.pop(session_id, 0)) + 1
    counts[session_id] = turn  # re-inserted last: dict order doubles as recency
    with contextlib.suppress(OSError):
        _write_map(state_file, counts)
    return turn


def resets_context(event: Mapping[str, Any]) -> bool:
    """A hook event after which the agent may no longer hold earlier injections:
    PreCompact, or SessionStart after a compaction, a clear or a resume."""
    name = event.get("hook_event_name")
    return name == RESET_EVENT or (name == "SessionStart" and event.get("source") in RESET_SOURCES)


def reset_file(state_file: Path) -> Path:
    """Beside the turn counts: the sessions whose context was reset since their last
    recall (``<agent>-turns-resets.json``)."""
    return state_file.with_name(f"{state_file.stem}-resets.json")


def mark_reset(path: Path, session_id: str) -> None:
    """Note that the session's context was compacted or cleared; its next recall carries
    ``context_reset`` (piggybacked, so it can not arrive after that recall)."""
    marks = _read_map(path)
    marks.pop(session_id, None)
    marks[session_id] = time.time()
    with contextlib.suppress(OSError):
        _write_map(path, marks)


def take_reset(path: Path, session_id: str) -> None:
    """The service took the session's reset (its recall answered): forget the mark."""
    marks = _read_map(path)
    if marks.pop(session_id, None) is not None:
        with contextlib.suppress(OSError):
            _write_map(path, marks)


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
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    return post(url, token, path, data, "application/json", "", timeout_s)


def post(
    url: str,
    token: str,
    path: str,
    data: bytes,
    content_type: str,
    encoding: str,
    timeout_s: float,
    extra: Mapping[str, str] | None = None,
) -> Any:
    """POST raw bytes (``encoding``: a Content-Encoding such as gzip, or ''; ``extra``:
    more headers); the parsed JSON answer (None when empty). Raises on any transport or
    HTTP error."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": content_type, **(extra or {})}
    if encoding:
        headers["Content-Encoding"] = encoding
    request = urllib.request.Request(url.rstrip("/") + path, data=data, headers=headers)
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
    agent: str,
    event: dict[str, Any],
    name: str,
    url: str,
    token: str,
    timeout_s: float,
    folder: Path,
) -> None:
    """Report a hook event to task state; on ``SessionEnd`` also push the ended
    transcript, gzipped (so sessions on other machines reach the write path). Both go
    through the outbox: kept on disk first, sent with whatever the outbox already held
    (oldest first), removed once the service took them. A service that is down, slow or
    restarting costs nothing but a later delivery."""
    report = json.dumps(task_report(agent, event, name), ensure_ascii=False).encode("utf-8")
    keep(folder, "/v1/tasks/events", report, "application/json")
    path = event.get("transcript_path")
    pushing = name == "SessionEnd" and isinstance(path, str) and bool(path)
    if pushing:
        _keep_transcript(folder, Path(str(path)).expanduser(), agent.replace("-", "_"))
    budget = max(timeout_s, PUSH_TIMEOUT_S) if pushing else timeout_s
    _within(budget, lambda: drain(folder, url, token, budget))


def _keep_transcript(folder: Path, path: Path, fmt: str) -> None:
    """The transcript, gzipped, into the outbox; one too large for the service is counted
    as dropped instead."""
    try:
        size = path.stat().st_size
        if size > MAX_TRANSCRIPT_BYTES:
            _count_dropped(folder, 1, size)
            return
        data = path.read_bytes()
    except OSError:
        return
    if data.strip():
        packed = gzip.compress(data, compresslevel=6)
        keep(folder, f"/v1/sessions?format={fmt}", packed, "application/x-ndjson", "gzip")


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
    folder = outbox_dir(env, "codex")
    keep(folder, "/v1/tasks/events", json.dumps(body).encode("utf-8"), "application/json")
    _within(timeout_s, lambda: drain(folder, url, token, timeout_s))
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
    state and print nothing; ``PreCompact``, and ``SessionStart`` with source ``compact``,
    ``clear`` or ``resume``, note that the session's context was reset (no network: the
    session's next recall carries it) and print nothing. Codex's hooks send the same shapes
    (``agent="codex"``).

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
        folder = outbox_dir(env, agent)
        _report_event(agent, event, name, url, token, timeout_s, folder)
        return 0
    state = _default_state_file(env, agent)
    if resets_context(event):
        session = event.get("session_id")
        if isinstance(session, str) and session:
            mark_reset(reset_file(state), session)
        return 0
    body = recall_request(event, turn=1)
    if body is None:
        return 0
    body["turn"] = next_turn(state, body["session_id"])
    marks = reset_file(state)
    if body["session_id"] in _read_map(marks):
        body["context_reset"] = True

    def ask() -> str:
        text = fetch_recall(url, token, body, timeout_s)
        if body.get("context_reset"):
            take_reset(marks, body["session_id"])
        return text

    text = _within(timeout_s, ask)
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
