"""The Pi extension in the real Pi (0.73.1, installed from npm into .tools/agents/), in
print mode (``pi -p``), against a real recall service and a scripted model server on
127.0.0.1: the model starts a background run with bash, then reports it finished. Every
report and the session push reach the service before ``pi -p`` exits, run after run
(issue #29 found ``agent_end`` lost in 2 of 3 runs)."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx

from evaluation.agents.pi import node, pi_package
from evaluation.scripted_llm import Reply, llm_server, scripted, stream_answer
from memory_repo.settings import Settings
from tests.conftest import IssueToken
from tests.integrations.helpers import LiveServer, clean_env

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "recall_api" / "integrations" / "pi" / "dose-mem.ts"


def test_print_mode_delivers_every_report_and_the_session_before_it_exits(
    recall_service: LiveServer, issue_token: IssueToken, demo_settings: Settings, tmp_path: Path
) -> None:
    cli = pi_package() / "dist" / "cli.js"
    pi = [node(), str(cli), "--provider", "fake", "--model", "m", "-e", str(EXTENSION)]
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
            done = subprocess.run(
                [*pi, "-p", f"start the {run_name} run"],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=120,
                env=clean_env(
                    PI_CODING_AGENT_DIR=str(agent_dir),
                    DOSE_MEM_URL=recall_service.url,
                    DOSE_MEM_TOKEN=token,
                    DOSE_MEM_OUTBOX=str(tmp_path / "outbox"),
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
