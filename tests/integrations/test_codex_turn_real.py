"""dose-mem's hooks and notify in a real model turn of the real Codex (0.171.0, installed
from npm into .tools/agents/), set up by ``dose-mem connect codex``, against a real recall
service and a fake OpenAI Responses API on 127.0.0.1 (tests/integrations/fake_responses.py).

What the person does, in order: ``dose-mem connect codex``; trusts the dose-mem hooks, as
``/hooks`` in Codex does (see ``_trust``); adds a model provider to config.toml, as a user
with a local model server does; then one ``codex exec`` in a TableKit checkout (connect
pre-approved dose-mem's MCP tools: ``codex exec`` runs with approval policy ``never``,
under which Codex refuses an MCP call that needs approval). In that one turn:

* the ``UserPromptSubmit`` hook asks the service (``POST /v1/recall``), and the card it
  injects is in the model's first request, after the prompt;
* the ``Stop`` hook reports the turn to task state: its answer ("... benchmark finished:
  ...") finishes the running task another agent started; and after the turn Codex runs
  the ``notify`` program connect wrote, whose ``agent-turn-complete`` report reaches the
  service (202) and, the task being done already, adds nothing to the journal.

The service is wrapped to record the requests it answers (``Recorder``); the recall log
and the task journal are read from the service's home. About 15 s after install.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import tomlkit

from evaluation.agents.codex import codex_command
from memory_repo.settings import Settings
from memory_repo.tasks import journal
from recall_api.app import create_app
from recall_api.services import build_services
from recall_api.tokens import TokenStore, tokens_path
from tests.integrations.checkout import ROTATED_CARD, Checkout, tablekit_checkout
from tests.integrations.codex_app_server import AppServer
from tests.integrations.fake_responses import message, responses_server
from tests.integrations.helpers import LiveServer, clean_env, codex_homes, connect

PROMPT = "How do I handle rotated pages in pdfplumber?"
TASK = "rotated pages benchmark"
ANSWER = f"The {TASK} finished: pin pdfplumber 0.10, as the memory says."
PROVIDER = "local-responses"
KEY_VAR = "LOCAL_RESPONSES_KEY"


@dataclass
class Seen:
    """A request the service answered: method, path, JSON body, status."""

    method: str
    path: str
    body: Any
    status: int


class Recorder:
    """The service's ASGI app, recording every HTTP request it answers."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app
        self.seen: list[Seen] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def receive_recorded() -> dict[str, Any]:
            event = await receive()
            chunks.append(event.get("body", b""))
            return event

        async def send_recorded(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start":
                raw = b"".join(chunks)
                body = json.loads(raw) if raw.strip() else None
                self.seen.append(Seen(scope["method"], scope["path"], body, event["status"]))
            await send(event)

        await self.app(scope, receive_recorded, send_recorded)

    def posts(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.method == "POST" and s.path == path]


@pytest.fixture
def checkout(demo_settings: Settings, tmp_path: Path) -> Checkout:
    return tablekit_checkout(demo_settings, tmp_path / "checkout")


@pytest.fixture
def service(checkout: Checkout) -> Iterator[tuple[LiveServer, Recorder]]:
    """The recall service over the checkout's home (its registry knows the checkout)."""
    recorder = Recorder(create_app(checkout.settings, build_services(checkout.settings)))
    with LiveServer(recorder) as live:
        yield live, recorder


def _trust(server: AppServer, cwd: Path) -> list[str]:
    """Trust dose-mem's hooks as ``/hooks`` does when the user reviews them: Codex keeps
    the trust in config.toml as ``[hooks.state."<key>"] trusted_hash = "<hash>"``, the
    key and the hash being what app-server ``hooks/list`` reports (``key``,
    ``currentHash``), written here through app-server ``config/value/write``. The events
    of the hooks trusted, as Codex then lists them."""
    listed = server.request("hooks/list", {"cwds": [str(cwd)]})["data"][0]["hooks"]
    ours = [h for h in listed if "dose-mem-env.sh" in h["command"]]
    assert ours and all(h["trustStatus"] == "untrusted" for h in ours)
    for hook in ours:
        key_path = f'hooks.state."{hook["key"]}".trusted_hash'
        write = {"keyPath": key_path, "value": hook["currentHash"], "mergeStrategy": "upsert"}
        server.request("config/value/write", write)
    listed = server.request("hooks/list", {"cwds": [str(cwd)]})["data"][0]["hooks"]
    return sorted(
        h["eventName"]
        for h in listed
        if "dose-mem-env.sh" in h["command"] and h["trustStatus"] == "trusted"
    )


def _add_provider(config: Path, base_url: str) -> None:
    """A model provider speaking the Responses API, made the default (Codex's
    ``model_providers.<id>``: ``base_url``, ``wire_api``, ``env_key``)."""
    doc = tomlkit.parse(config.read_text(encoding="utf-8"))
    doc["model"] = "local-model"
    doc["model_provider"] = PROVIDER
    provider = tomlkit.table()
    provider.update(
        {"name": "local", "base_url": base_url, "wire_api": "responses", "env_key": KEY_VAR}
    )
    providers = tomlkit.table(is_super_table=True)
    providers[PROVIDER] = provider
    doc["model_providers"] = providers
    config.write_text(tomlkit.dumps(doc), encoding="utf-8")


def _texts(item: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in item.get("content", []))


def _wait_for(found: Callable[[], list[Seen]], timeout_s: float = 30) -> list[Seen]:
    deadline = time.monotonic() + timeout_s
    while not (seen := found()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return seen


def test_a_codex_turn_gets_recall_calls_the_server_and_reports_through_notify(
    checkout: Checkout, service: tuple[LiveServer, Recorder], tmp_path: Path
) -> None:
    live, recorder = service
    codex_home = tmp_path / "home" / ".codex"
    codex_home.mkdir(parents=True)
    homes = codex_homes(codex_home, checkout.settings.home)
    connect("codex", checkout.token, live.url, **homes)

    app_server = AppServer(codex_command(), clean_env(**homes), checkout.path)
    try:
        app_server.start()
        trusted = _trust(app_server, checkout.path)
    finally:
        app_server.close()
    assert trusted == ["postToolUse", "preCompact", "sessionStart", "stop", "userPromptSubmit"]

    # a running task another agent started in TableKit, for the turn's answer to finish
    other = TokenStore(tokens_path(checkout.settings)).issue(
        "claude-code", "working", ["tablekit"]
    )[0]
    started = httpx.post(
        f"{live.url}/v1/tasks/events",
        json={"title": TASK, "status": "running", "cwd": str(checkout.path)},
        headers={"Authorization": f"Bearer {other}"},
    )
    assert started.status_code == 202, started.text

    def answer(request: dict[str, Any]) -> list[dict[str, Any]]:
        return [message(ANSWER)]

    outbox = tmp_path / "outbox"
    with responses_server([answer]) as model:
        _add_provider(codex_home / "config.toml", model.url)
        done = subprocess.run(
            [*codex_command(), "exec", "--json", "--skip-git-repo-check", PROMPT],
            cwd=checkout.path,
            env=clean_env(**homes, **{KEY_VAR: "none"}, DOSE_MEM_OUTBOX=str(outbox)),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    [thread] = [e["thread_id"] for e in events if e["type"] == "thread.started"]
    items = [e["item"] for e in events if e["type"] == "item.completed"]
    assert [i["text"] for i in items if i["type"] == "agent_message"] == [ANSWER]

    # recall: the UserPromptSubmit hook asked the service, and the card it injected is in
    # the model's first request, right after the prompt
    assert len(model.requests) == 1, model.others
    [first] = model.requests
    inputs = first["input"]
    [asked] = [n for n, i in enumerate(inputs) if i.get("role") == "user" and _texts(i) == PROMPT]
    injected = inputs[asked + 1]
    assert injected["role"] == "developer", injected
    assert _texts(injected).startswith("Memory from dose-mem")
    assert f'memory_read("{ROTATED_CARD}")' in _texts(injected)
    [recall] = recorder.posts("/v1/recall")
    assert recall.status == 200
    assert (recall.body["session_id"], recall.body["cwd"]) == (thread, str(checkout.path))
    log = checkout.settings.state_path / "recall_log" / "current.jsonl"
    entries = map(json.loads, log.read_text().splitlines())
    # a search the MCP server logged names no session (MCP tools do not know it)
    [logged] = [e for e in entries if e["kind"] == "recall" and e.get("session") == thread]
    assert (logged["agent"], logged["project"], logged["reason"]) == (
        "codex",
        "tablekit",
        "injected",
    )
    assert ROTATED_CARD in logged["injected"]

    # the Stop hook's report, then notify's, after the turn (Codex does not wait for it)
    def reports(event: str) -> Callable[[], list[Seen]]:
        def found() -> list[Seen]:
            posts = recorder.posts("/v1/tasks/events")
            return [
                p for p in posts if p.body.get("source") == "codex" and p.body["event"] == event
            ]

        return found

    [stop] = reports("Stop")()
    assert stop.status == 202 and stop.body["payload"]["session_id"] == thread
    [notified] = _wait_for(reports("agent-turn-complete"))
    assert notified.status == 202
    payload = notified.body["payload"]
    assert payload["thread-id"] == thread and payload["cwd"] == str(checkout.path)
    assert payload["input-messages"] == [PROMPT]
    assert payload["last-assistant-message"] == ANSWER
    assert not list((outbox / "codex").glob("*.req"))  # nothing left for a later delivery

    tasks = httpx.get(
        f"{live.url}/v1/tasks",
        params={"project": "tablekit"},
        headers={"Authorization": f"Bearer {other}"},
    )
    [task] = [t for t in tasks.json() if t["title"] == TASK]
    # the Stop hook's report finished it; notify's, with the same answer, added nothing
    events = journal.read(checkout.settings.tasks_path)[0]  # the home other tests share
    journaled = [(e.source, e.status) for e in events if e.task == task["id"]]
    assert journaled == [("api:-", "running"), ("codex:Stop", "done")]
    assert (task["status"], task["finished_by"], task["result"]) == ("done", "codex", ANSWER)
