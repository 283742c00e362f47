"""The Pi extension in the real Pi (0.73.1, installed from npm into .tools/agents/), set
up by ``dose-mem connect pi``, in print mode (``pi -p``), against a real recall service
and a scripted model server on 127.0.0.1: the model starts a background run with bash,
then reports it finished. Every report and the session push reach the service before
``pi -p`` exits, run after run (issue #29 found ``agent_end`` lost in 2 of 3 runs). And
in RPC mode (``--mode rpc``): recall in the model's context, the tools, the push."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx

from evaluation.agents.pi import node, pi_package
from evaluation.harness.scripted_llm import Reply, llm_server, scripted, stream_answer
from memory_repo.settings import Settings
from tests.conftest import IssueToken
from tests.integrations.demo import SETUP_PROMPT, UV_CARD
from tests.integrations.helpers import LiveServer, clean_env, connect


def test_print_mode_delivers_every_report_and_the_session_before_it_exits(
    recall_service: LiveServer, issue_token: IssueToken, demo_settings: Settings, tmp_path: Path
) -> None:
    cli = pi_package() / "dist" / "cli.js"
    pi = [node(), str(cli), "--provider", "fake", "--model", "m"]
    token = issue_token("full", None, agent="pi")
    for run in range(3):
        run_name = f"run{run}x{uuid.uuid4().hex[:6]}"
        command = f"nohup python train.py --config {run_name} > logs/{run_name}.log 2>&1 &"
        work = tmp_path / f"work{run}"
        (work / "logs").mkdir(parents=True)
        agent_dir = tmp_path / f"pi-agent{run}"
        agent_dir.mkdir()

        def start(request: dict[str, Any], command: str = command) -> Reply:
            return stream_answer(request, call={"name": "bash", "arguments": {"command": command}})

        def finish(request: dict[str, Any], name: str = run_name) -> Reply:
            return stream_answer(request, text=f"{name} finished: dev CER 11.2%")

        with llm_server() as llm:
            llm.responder = scripted([start, finish])
            provider = {"baseUrl": llm.url, "api": "openai-completions", "apiKey": "none"}
            provider |= {"compat": {"supportsDeveloperRole": False}, "models": [{"id": "m"}]}
            (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
            # the README's one command: the extension and its env
            connect("pi", token, recall_service.url, PI_CODING_AGENT_DIR=str(agent_dir))
            done = subprocess.run(
                [*pi, "-p", f"start the {run_name} run"],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=120,
                env=clean_env(  # no DOSE_MEM_URL or _TOKEN: connect wrote them for Pi
                    PI_CODING_AGENT_DIR=str(agent_dir), DOSE_MEM_OUTBOX=str(tmp_path / "outbox")
                ),
            )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"{run_name} finished: dev CER 11.2%"
        assert len(llm.requests) == 2  # the bash call, then the answer after its result
        assert not list((tmp_path / "outbox" / "pi").glob("*.req"))  # nothing left for later
        answer = httpx.get(
            f"{recall_service.url}/v1/tasks", headers={"Authorization": f"Bearer {token}"}
        )
        (task,) = [t for t in answer.json() if t["log_path"] == f"logs/{run_name}.log"]
        assert task["status"] == "done" and task["agent"] == "pi"
        pushed = [
            p
            for p in (demo_settings.inbox_path / "pi").glob("pi__*.jsonl")
            if f"start the {run_name} run" in p.read_text(encoding="utf-8")
        ]
        assert len(pushed) == 1


def test_rpc_mode_injects_memory_offers_the_tools_and_pushes_the_session_at_exit(
    recall_service: LiveServer, issue_token: IssueToken, demo_settings: Settings, tmp_path: Path
) -> None:
    """``pi --mode rpc``: a prompt that needs memory reaches the model with the recalled
    card and with memory_search/memory_read among its tools; when the client closes
    stdin, Pi shuts down and the session reaches the inbox."""
    cli = pi_package() / "dist" / "cli.js"
    token = issue_token("full", None, agent="pi")
    agent_dir = tmp_path / "pi-agent"
    agent_dir.mkdir()
    connect("pi", token, recall_service.url, PI_CODING_AGENT_DIR=str(agent_dir))
    marker = f"rpc-{uuid.uuid4().hex[:8]}"
    with llm_server() as llm:
        llm.responder = lambda request: stream_answer(request, text=f"Use uv. ({marker})")
        provider = {"baseUrl": llm.url, "api": "openai-completions", "apiKey": "none"}
        provider |= {"compat": {"supportsDeveloperRole": False}, "models": [{"id": "m"}]}
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        pi = subprocess.Popen(
            [node(), str(cli), "--provider", "fake", "--model", "m", "--mode", "rpc"],
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=clean_env(PI_CODING_AGENT_DIR=str(agent_dir)),
        )
        assert pi.stdin is not None and pi.stdout is not None
        pi.stdin.write(json.dumps({"id": "1", "type": "prompt", "message": SETUP_PROMPT}) + "\n")
        pi.stdin.flush()
        for line in pi.stdout:  # events until the agent's run ends
            if json.loads(line).get("type") == "agent_end":
                break
        pi.stdin.close()  # the client is done: Pi shuts down
        assert pi.wait(60) == 0, pi.stderr.read() if pi.stderr else ""
    [chat] = [r for r in llm.requests if "messages" in r]
    sent = json.dumps(chat["messages"], ensure_ascii=False)
    assert f'memory_read(\\"{UV_CARD}\\")' in sent  # the recalled card, in the model's context
    tools = {t["function"]["name"] for t in chat.get("tools", [])}
    assert {"memory_search", "memory_read"} <= tools
    pushed = [
        p
        for p in (demo_settings.inbox_path / "pi").glob("pi__*.jsonl")
        if marker in p.read_text(encoding="utf-8")
    ]
    assert len(pushed) == 1
