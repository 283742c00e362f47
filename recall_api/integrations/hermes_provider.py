"""A Hermes Agent memory provider backed by the dose-mem recall service (HTTP, httpx).

Written against ``agent/memory_provider.py`` of NousResearch/hermes-agent: an abstract
``MemoryProvider`` with ``name``, ``is_available()``, ``initialize(session_id, **kwargs)``,
``get_tool_schemas()`` (abstract), plus the optional ``prefetch(query, *, session_id)``,
``on_turn_start(turn_number, message, **kwargs)``, ``handle_tool_call``,
``sync_turn(user_content, assistant_content, *, session_id, messages)``,
``on_session_end(messages)``, ``on_delegation(task, result, *, child_session_id)`` and
``shutdown()``. ``sync_turn``, ``on_delegation`` and ``on_session_end`` report to task
state (docs/tasks.md): the turn's shell commands (Hermes' ``terminal`` tool) and the
assistant's last message, and a delegated task as finished with its result. Hermes
calls ``prefetch`` before every model call and injects the returned text; it is a
blocking call on the turn's path, so it has a short timeout and every failure returns ""
(no memory, never an error). Task reports and the session push go through the outbox
of ``recall_api/hooks.py`` (``<home>/state/outbox/hermes/``): kept on disk first, sent in
a background thread, kept for the next call while the service is down.

Self-contained: the standard library, httpx (which Hermes ships) and the hook client
file; installed as ``provider.py`` of the plugin directory (``integrations/hermes/``,
``client_files.PIECES["hermes"]``), it imports the hook client as its sibling
``dose_mem_hook.py``, so Hermes' Python needs no dose-mem.

When Hermes itself is importable the class subclasses its ``MemoryProvider``; otherwise it
stands alone with the same methods, so it can be tested and used without Hermes.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import threading
import urllib.parse
import uuid
from pathlib import Path
from typing import Any

import httpx  # Hermes ships it: the plugin needs nothing Hermes lacks

try:  # installed as a Hermes plugin: the hook client is the sibling dose_mem_hook.py
    from .dose_mem_hook import PUSH_TIMEOUT_S, drain, keep, outbox_dir  # type: ignore[import-not-found]
except ImportError:  # in the dose-mem repository (tests, `dose-mem connect` copies it)
    from recall_api.hooks import PUSH_TIMEOUT_S, drain, keep, outbox_dir

try:  # pragma: no cover - exercised only inside a Hermes installation
    from agent.memory_provider import MemoryProvider as _Base  # type: ignore[import-not-found]
except ImportError:  # standalone: same interface, no Hermes dependency
    _Base = object  # type: ignore[assignment,misc]

DEFAULT_URL = "http://127.0.0.1:8765"
SEARCH_TOOL = {
    "name": "memory_search",
    "description": (
        "Search the user's shared dose-mem memory (projects, preferences, decisions) when "
        "the memory injected for this turn does not cover what you need."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "project": {"type": "string", "description": "Optional project id."},
            "k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
        },
        "required": ["query"],
    },
}

READ_TOOL = {
    "name": "memory_read",
    "description": (
        "Read one dose-mem memory item in full (all layers, evidence), by the id an "
        "injected item or memory_search gave."
    ),
    "parameters": {
        "type": "object",
        "properties": {"id": {"type": "string", "description": "The item's id."}},
        "required": ["id"],
    },
}


def _hermes_dotenv() -> dict[str, str]:
    """``DOSE_MEM_*`` lines of ``$HERMES_HOME/.env`` (default ``~/.hermes``), where
    ``dose-mem connect hermes`` writes them: Hermes loads that file at start, but a
    provider may be built before (``hermes memory`` lists providers with their
    availability), and a listing should not call a configured provider unavailable."""
    home = os.environ.get("HERMES_HOME") or os.path.join(os.path.expanduser("~"), ".hermes")
    found: dict[str, str] = {}
    try:
        lines = Path(home, ".env").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return found
    for line in lines:
        key, sep, value = line.strip().removeprefix("export ").partition("=")
        if sep and key.strip().startswith("DOSE_MEM_"):
            found[key.strip()] = value.strip().strip("'\"")
    return found


def _setting(key: str, saved: dict[str, str]) -> str:
    """The process environment's value, else the one saved in Hermes' ``.env``."""
    return os.environ.get(key) or saved.get(key, "")


class DoseMemProvider(_Base):  # type: ignore[misc,valid-type]
    """Stateful: holds the HTTP client, the session id and the turn counter Hermes drives."""

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        timeout_s: float = 2.0,
    ) -> None:
        saved = _hermes_dotenv()
        self.url = (url or _setting("DOSE_MEM_URL", saved) or DEFAULT_URL).rstrip("/")
        self.token = token or _setting("DOSE_MEM_TOKEN", saved)
        self.timeout_s = timeout_s
        self._client: httpx.Client | None = None
        self.session_id = ""
        self.turn = 0
        self.cwd: str | None = None
        self.last_result: dict[str, Any] | None = None
        self._host_counts_turns = False
        # The context was compressed in place or rewound since the last prefetch: the next
        # one says so (context_reset), so what the service held back as already given is
        # given again (docs/read-path.md, "Session-aware dose").
        self._context_reset = False
        self._pending: list[threading.Thread] = []
        # Reports and pushes go through an outbox on disk (recall_api/hooks.py, shared
        # with the hook client): kept before they are sent, sent in the background.
        self.outbox = outbox_dir(os.environ, "hermes")

    # -- Hermes lifecycle ---------------------------------------------------------------
    @property
    def name(self) -> str:
        return "dose-mem"

    def is_available(self) -> bool:
        """Configured means a token is present; no network call, as Hermes requires."""
        return bool(self.token)

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self.session_id = session_id or uuid.uuid4().hex
        self.turn = 0
        self.cwd = kwargs.get("cwd") or os.getcwd()

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        self.turn, self._host_counts_turns = max(int(turn_number), 1), True

    def on_session_switch(self, new_session_id: str, **kwargs: Any) -> None:
        """Hermes 0.19.0 calls this on /new, /reset, /resume, /branch, a rewind and a
        compression (agent/memory_provider.py). Compressed in place or rewound, the
        session keeps its id but the model no longer sees what was injected before."""
        same = new_session_id == self.session_id
        if same and (kwargs.get("reason") == "compression" or kwargs.get("rewound")):
            self._context_reset = True
            return
        self.session_id, self.turn = new_session_id, 0

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        """Compression is about to summarise ``messages``: the injections in them go."""
        self._context_reset = True
        return ""

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The text dose-mem injects before this turn under the token's profile, or ""."""
        if not query.strip():
            return ""
        if session_id and session_id != self.session_id:
            self.on_session_switch(session_id)
        if not self._host_counts_turns:  # older Hermes: count prefetches ourselves
            self.turn += 1
        body: dict[str, Any] = {
            "prompt": query,
            "session_id": self.session_id or "hermes",
            "turn": max(self.turn, 1),
        }
        if self.cwd:
            body["cwd"] = self.cwd
        if self._context_reset:
            body["context_reset"] = True
        result = self._post("/v1/recall", body)
        if result is not None:
            self._context_reset = False
        self.last_result = result
        if not result or not result.get("injected"):
            return ""
        text = result.get("text", "")
        return text if isinstance(text, str) else ""

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [SEARCH_TOOL, READ_TOOL]

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        if tool_name == READ_TOOL["name"]:
            return self._read(str(args.get("id", "")))
        if tool_name != SEARCH_TOOL["name"]:
            return json.dumps({"error": f"unknown tool {tool_name}"})
        body = {k: v for k, v in args.items() if k in ("query", "project", "k") and v}
        result = self._post("/v1/search", body)
        if result is None:
            return json.dumps({"error": "dose-mem is unreachable"})
        hits = [
            {"id": h["item_id"], "project": h["project"], "l0": h["l0"], "l1": h["l1"]}
            for h in result.get("hits", [])
        ]
        return json.dumps({"hits": hits}, ensure_ascii=False)

    def _read(self, item_id: str) -> str:
        """GET /v1/memories/{id} (the injected items point here); errors as JSON."""
        if not item_id:
            return json.dumps({"error": "memory_read needs an id"})
        try:  # the id quoted whole: the service judges what an id may be
            response = self._http().get(f"/v1/memories/{urllib.parse.quote(item_id, safe='')}")
        except httpx.HTTPError:
            return json.dumps({"error": "dose-mem is unreachable"})
        if response.status_code == 404:
            return json.dumps({"error": f"no memory {item_id!r}"})
        if response.status_code == 422:
            return json.dumps({"error": f"not an item id: {item_id!r}"})
        if response.status_code != 200:
            return json.dumps({"error": f"dose-mem answered {response.status_code}"})
        return json.dumps(response.json(), ensure_ascii=False)

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """Push the ended transcript for the next ingest (best effort).

        The body is the Hermes JSONL shape that ``memory_repo.transcripts.hermes`` reads
        (one message dict per line, tagged with the session id); the service takes the agent
        name from the token and stores the transcript with ``memory_repo.inbox.add_session``.
        """
        if not messages or not self.token:
            return
        lines = (
            json.dumps({**m, "session_id": self.session_id}, ensure_ascii=False, default=str)
            for m in messages
        )
        data = ("\n".join(lines) + "\n").encode("utf-8")
        push = gzip.compress(data, compresslevel=6)
        keep(self.outbox, "/v1/sessions?format=hermes", push, "application/x-ndjson", "gzip")
        last = next(
            (m.get("content") for m in reversed(messages) if m.get("role") == "assistant"), None
        )
        reports = []
        if isinstance(last, str) and last.strip():
            report = self._report("on_session_end", {"last_assistant_message": last})
            report["payload"]["session_id"] = self.session_id
            reports.append(report)
        self._background(reports, budget_s=PUSH_TIMEOUT_S)

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        """Report the turn to task state, in the background (Hermes asks for no
        latency here): each shell command of the turn, then the assistant's answer."""
        session = session_id or self.session_id or "hermes"
        reports = [
            self._report("sync_turn", {"tool_input": {"command": command}, "tool_response": out})
            for command, out in _turn_commands(messages or [])
        ]
        if assistant_content.strip():
            reports.append(self._report("sync_turn", {"last_assistant_message": assistant_content}))
        for report in reports:
            report["payload"]["session_id"] = session
        self._background(reports)

    def on_delegation(
        self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any
    ) -> None:
        """A subagent came back: its task is a finished task, its answer the result."""
        if not task.strip():
            return
        report: dict[str, Any] = {
            "source": "hermes",
            "event": "on_delegation",
            "title": task.strip()[:300],
            "status": "done",
            "result": result.strip()[:300] or None,
            "session": child_session_id or None,
        }
        if self.cwd:
            report["cwd"] = self.cwd
        self._background([report])

    def wait(self, timeout_s: float | None = None) -> None:
        """Block until background reports are sent (tests, shutdown)."""
        for thread in self._pending:
            thread.join(timeout_s if timeout_s is not None else PUSH_TIMEOUT_S)
        self._pending = [t for t in self._pending if t.is_alive()]

    def shutdown(self) -> None:
        self.wait()
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- task reports ---------------------------------------------------------------------
    def _report(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        if self.cwd:
            payload = {"cwd": self.cwd, **payload}
        return {"source": "hermes", "event": event, "payload": payload}

    def _background(self, reports: list[dict[str, Any]], budget_s: float | None = None) -> None:
        """Keep the reports in the outbox, then send everything it holds (oldest first)
        in a background thread; what is not sent waits for the next call."""
        if not self.token:
            return
        for report in reports:
            body = json.dumps(report, ensure_ascii=False).encode("utf-8")
            keep(self.outbox, "/v1/tasks/events", body, "application/json")
        timeout = budget_s or self.timeout_s

        def send() -> None:
            with contextlib.suppress(OSError, ValueError):
                drain(self.outbox, self.url, self.token, timeout)

        thread = threading.Thread(target=send, name="dose-mem-report", daemon=True)
        thread.start()
        self._pending = [t for t in self._pending if t.is_alive()] + [thread]

    # -- transport ----------------------------------------------------------------------
    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                base_url=self.url,
                headers={"Authorization": f"Bearer {self.token}"},
                timeout=self.timeout_s,
            )
        return self._client

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        try:
            response = self._http().post(path, json=body)
            response.raise_for_status()
            data = response.json()
        except (httpx.HTTPError, ValueError):
            return None
        return data if isinstance(data, dict) else None


def _turn_commands(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(command, output) of each ``terminal`` tool call since the last user message, in
    Hermes' OpenAI-style message list."""
    start = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    outputs = {
        m.get("tool_call_id"): m.get("content")
        for m in messages[start + 1 :]
        if m.get("role") == "tool"
    }
    found: list[tuple[str, str]] = []
    for message in messages[start + 1 :]:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            if function.get("name") != "terminal":
                continue
            try:
                args = json.loads(function.get("arguments") or "{}")
            except ValueError:
                continue
            command = args.get("command") if isinstance(args, dict) else None
            if isinstance(command, str) and command.strip():
                out = outputs.get(call.get("id"))
                found.append((command, out[-4000:] if isinstance(out, str) else ""))
    return found
