"""Nothing lost between machines (docs/operations.md, "Nothing lost"): a session of any
realistic size reaches memory from the remote hook client; pushes and task events made
while the service is down arrive once it is back, each once; an oversized request gets
a status, never a broken connection. A real uvicorn, the real hook file, a real ingest."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from ingest_home import Home
from typer.testing import CliRunner

from dose_mem.cli.main import app
from flows.ingest import ingest
from memory_repo.settings import Settings
from memory_repo.store import load_memory
from recall_api import client_outboxes
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.hooks import drain, keep, run_claude_code, task_report
from recall_api.models import MAX_BODY_BYTES, MAX_SESSION_BYTES
from recall_api.task_board import TaskBoard
from recall_api.tokens import TokenStore, tokens_path
from tests.conftest import IssueToken
from tests.integrations.helpers import LiveServer, clean_env, free_port

FACT = "From now on every release of fieldkit is signed with the hardware key."


def _transcript(path: Path, megabytes: int) -> Path:
    """A Claude Code session of about ``megabytes`` MB: three prompts of the person's and
    large file reads between them, as real sessions with file reads are."""
    sid = "0f0f0f0f-1111-4222-8333-444455556666"
    blob = "x = 1  # generated line of a large file read by the agent\n" * 16_000  # ~1 MB
    rows = []
    words = ["Let's cut the release.", FACT, "Thanks, that's all."]
    for n in range(megabytes):
        rows.append(
            {
                "type": "user",
                "sessionId": sid,
                "cwd": "/tmp/fieldkit",
                "timestamp": f"2026-11-20T10:{n % 60:02d}:00.000Z",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": blob}],
                },
            }
        )
        if n < len(words):
            rows.append(
                {
                    "type": "user",
                    "sessionId": sid,
                    "cwd": "/tmp/fieldkit",
                    "timestamp": f"2026-11-20T10:{n:02d}:30.000Z",
                    "message": {"role": "user", "content": words[n]},
                }
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@dataclass
class Service:
    """The demo service with its inbox and task journal in the test's own ``state``; a
    token of a Claude Code agent (working profile)."""

    state: Path
    app: Any
    token: str


@pytest.fixture
def service(
    services: Services,
    demo_settings: Settings,
    issue_token: IssueToken,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Service:
    state = tmp_path / "home" / "state"
    monkeypatch.setattr(services, "settings", demo_settings.model_copy(update={"state_dir": state}))
    board = TaskBoard(state / "tasks" / "events.jsonl", stale_hours=6, keep_days=7)
    monkeypatch.setattr(services.engine, "tasks", board)
    token = issue_token("working", None, agent="claude-code")
    return Service(state, create_app(demo_settings, services), token)


def test_a_30_mb_transcript_from_the_remote_client_becomes_its_card(
    harness, home: Home, service: Service, tmp_path: Path
) -> None:
    transcript = _transcript(tmp_path / "big.jsonl", 32)
    assert transcript.stat().st_size > 30_000_000
    with LiveServer(service.app) as live:
        client = tmp_path / "dose_mem_hook.py"
        with urllib.request.urlopen(f"{live.url}/v1/client/dose_mem_hook.py") as answer:
            client.write_bytes(answer.read())
        event = {
            "hook_event_name": "SessionEnd",
            "session_id": "s-big",
            "transcript_path": str(transcript),
            "cwd": "/tmp/fieldkit",
        }
        done = subprocess.run(
            [sys.executable, str(client), "claude-code"],
            input=json.dumps(event),
            text=True,
            capture_output=True,
            timeout=120,
            env=clean_env(
                DOSE_MEM_URL=live.url,
                DOSE_MEM_TOKEN=service.token,
                DOSE_MEM_OUTBOX=str(tmp_path / "outbox"),
            ),
        )
    assert done.returncode == 0 and done.stdout == "", done.stderr
    stored = list((service.state / "inbox" / "claude_code").glob("claude-code__*.jsonl"))
    assert len(stored) == 1 and stored[0].read_bytes() == transcript.read_bytes()
    assert not list((tmp_path / "outbox").rglob("*.req"))
    summary = ingest(home=str(home.root))  # the home whose state the service wrote to
    assert summary.sessions_read == 1
    conclusions = {i.conclusion for i in load_memory(home.memory).items.values()}
    assert any("signed with the hardware key" in (c or "") for c in conclusions), conclusions


def _hook(event: dict, env: dict[str, str]) -> None:
    out = io.StringIO()
    run_claude_code(io.StringIO(json.dumps(event)), out, env, timeout_s=2.0)
    assert out.getvalue() == ""


def test_what_is_sent_while_the_service_is_down_arrives_once_when_it_is_back(
    service: Service, tmp_path: Path
) -> None:
    port = free_port()  # nothing listens there yet
    env = {
        "DOSE_MEM_URL": f"http://127.0.0.1:{port}",
        "DOSE_MEM_OUTBOX": str(tmp_path / "ob"),
        "DOSE_MEM_TOKEN": service.token,
    }
    for n in range(20):
        path = tmp_path / f"s{n}.jsonl"
        line = {
            "type": "user",
            "sessionId": f"s{n}",
            "cwd": "/tmp/x",
            "timestamp": "2026-11-20T10:00:00.000Z",
            "message": {"role": "user", "content": f"session {n}: keep the logs."},
        }
        path.write_text(json.dumps(line) + "\n")
        _hook(
            {"hook_event_name": "SessionEnd", "session_id": f"s{n}", "transcript_path": str(path)},
            env,
        )
    for n in range(50):
        _hook(
            {
                "hook_event_name": "PostToolUse",
                "session_id": "s-tools",
                "cwd": "/tmp/x",
                "tool_name": "Bash",
                "tool_input": {"command": f"nohup ./run {n} &"},
                "tool_response": {"stdout": f"started {n}"},
            },
            env,
        )
    kept = sorted((tmp_path / "ob" / "claude-code").glob("*.req"))
    assert len(kept) == 90  # 20 pushes and 20 + 50 task reports, all waiting
    shown = CliRunner().invoke(app, ["sessions", "outbox", "--json"], env=env)
    assert json.loads(shown.output)["waiting"] == 90, shown.output
    with LiveServer(service.app, port=port):
        for _ in range(5):  # later events drain the outbox, oldest first
            _hook({"hook_event_name": "Stop", "session_id": "s-later"}, env)
    assert not list((tmp_path / "ob" / "claude-code").glob("*.req"))
    sessions = list((service.state / "inbox" / "claude_code").glob("*.jsonl"))
    assert len(sessions) == 20
    journal = (service.state / "tasks" / "events.jsonl").read_text().splitlines()
    commands = [json.loads(e).get("command") for e in journal]
    started = [c for c in commands if c and c.startswith("nohup ./run")]
    assert sorted(started) == sorted(f"nohup ./run {n} &" for n in range(50))  # once each


def test_oversized_requests_get_a_status_not_a_broken_connection(service: Service) -> None:
    headers = {"Authorization": f"Bearer {service.token}"}
    too_big_json = json.dumps({"prompt": "x" * (MAX_BODY_BYTES + 100_000)}).encode()
    bomb = gzip.compress(b"{}\n" * ((MAX_SESSION_BYTES // 3) + 1000))  # inflates past the limit
    with LiveServer(service.app) as live:
        statuses = []
        for n in range(20):
            if n % 2:
                request = urllib.request.Request(
                    f"{live.url}/v1/recall",
                    data=too_big_json,
                    headers={**headers, "Content-Type": "application/json"},
                )
            else:
                request = urllib.request.Request(
                    f"{live.url}/v1/sessions?format=claude_code",
                    data=bomb,
                    headers={
                        **headers,
                        "Content-Type": "application/x-ndjson",
                        "Content-Encoding": "gzip",
                    },
                )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            statuses.append(refused.value.code)
            assert json.loads(refused.value.read())["limit"] in (MAX_BODY_BYTES, MAX_SESSION_BYTES)
    assert statuses == [413] * 20
    assert not list((service.state / "inbox").rglob("*.jsonl"))
    assert not list((service.state / "inbox").rglob("*.part"))


def test_the_outbox_is_bounded_and_counts_what_it_drops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall_api import hooks

    monkeypatch.setattr(hooks, "OUTBOX_MAX_ITEMS", 3)
    folder = tmp_path / "ob"
    kept = [hooks.keep(folder, "/v1/tasks/events", b"{}", "application/json") for _ in range(5)]
    assert sorted(folder.glob("*.req")) == kept[2:]  # the oldest two went
    old = kept[2]
    os.utime(old, (0, 0))  # older than the age bound
    assert hooks.prune(folder) == 1 and not old.exists()
    dropped = json.loads((folder / "dropped.json").read_text())
    assert dropped["count"] == 3 and dropped["bytes"] > 0


def test_a_report_retried_after_its_answer_was_lost_is_applied_once(
    service: Service, tmp_path: Path
) -> None:
    """The service takes each of the first three reports but its answer never reaches
    the client (a network cut or a proxy timing out): the client keeps them and sends
    them again, under the same Idempotency-Key, and each lands in the journal once."""
    lost = {"answers": 3}

    async def cut_answers(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/v1/tasks/events" and lost["answers"]:
            lost["answers"] -= 1

            async def nowhere(message: dict) -> None:
                return None

            await service.app(scope, receive, nowhere)  # accepted and written to disk
            await asyncio.sleep(1.5)  # the client has given up by now
            return
        await service.app(scope, receive, send)

    folder = tmp_path / "ob"
    for n in range(3):
        event = {"session_id": "s", "cwd": "/tmp/x", "tool_name": "Bash"}
        event |= {"tool_input": {"command": f"nohup ./train {n} &"}}
        body = json.dumps(task_report("claude-code", event, "PostToolUse")).encode()
        keep(folder, "/v1/tasks/events", body, "application/json")
    with LiveServer(cut_answers) as live:
        sent = [drain(folder, live.url, service.token, 0.5) for _ in range(6)]
    assert sum(sent) == 3 and not list(folder.glob("*.req")), sent
    journal = (service.state / "tasks" / "events.jsonl").read_text().splitlines()
    commands = [json.loads(e).get("command") for e in journal]
    assert sorted(c for c in commands if c) == [f"nohup ./train {n} &" for n in range(3)]


def test_the_same_idempotency_key_is_answered_alike_and_applied_once(service: Service) -> None:
    client = TestClient(service.app)
    body = {"title": "render the figures", "cwd": "/tmp/x", "status": "running"}

    def send(key: str, token: str = service.token) -> Any:
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
        return client.post("/v1/tasks/events", json=body, headers=headers)

    first, again = send("k-1"), send("k-1")
    assert first.status_code == again.status_code == 202
    assert first.json() == again.json() and first.json()["accepted"] == 1
    assert send("k-2").json()["tasks"] != first.json()["tasks"]  # a new key, a new report
    assert send("not a key!").status_code == 422
    journal = (service.state / "tasks" / "events.jsonl").read_text().splitlines()
    assert len(journal) == 2


def test_what_a_remote_outbox_dropped_shows_in_the_inspector(
    service: Service, demo_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client's outbox overflows while the service is away; its next delivery tells the
    service how many it dropped, and the inspector's Write path page shows the machine."""
    from recall_api import hooks

    monkeypatch.setattr(hooks, "OUTBOX_MAX_ITEMS", 4)
    folder = tmp_path / "ob"
    for n in range(7):
        body = {"title": f"sweep {n}", "cwd": "/tmp/x", "status": "running"}
        keep(folder, "/v1/tasks/events", json.dumps(body).encode(), "application/json")
    with LiveServer(service.app) as live:
        assert drain(folder, live.url, service.token, 5.0) == 4
        admin = TokenStore(tokens_path(demo_settings)).issue("person", "admin", None, admin=True)
        with urllib.request.urlopen(
            urllib.request.Request(
                f"{live.url}/ui/runs", headers={"Authorization": f"Bearer {admin[0]}"}
            )
        ) as page:
            html = page.read().decode()
    [reported] = client_outboxes.read(service.state)
    assert (reported.agent, reported.host, reported.dropped) == (
        "claude-code",
        socket.gethostname(),
        3,
    )
    assert "Dropped by clients" in html and f"<td>{socket.gethostname()}</td><td>3</td>" in html


def test_malformed_outbox_headers_are_ignored_and_the_report_still_taken(
    service: Service,
) -> None:
    client = TestClient(service.app)
    for host, dropped in [("bad host!", "3"), ("box", "-1"), ("box", "9" * 20)]:
        headers = {
            "Authorization": f"Bearer {service.token}",
            "Dose-Mem-Client": host,
            "Dose-Mem-Dropped": dropped,
        }
        body = {"title": "render", "cwd": "/tmp/x", "status": "running"}
        assert client.post("/v1/tasks/events", json=body, headers=headers).status_code == 202
    assert client_outboxes.read(service.state) == []
