"""dose-mem in the real Claude Code (2.1.337, installed from npm into .tools/agents/), set
up by ``dose-mem connect claude-code`` and nothing else: ``claude -p`` in a TableKit
checkout, against a real recall service over that checkout's memory and a scripted
Anthropic Messages API on 127.0.0.1 (``tests/integrations/fake_anthropic.py``). The model
starts a background run with Bash, searches memory and reads the card it found through
the MCP server, then says the run finished. What the model was sent and what reached the
service show each piece at work: the recalled card (UserPromptSubmit), the MCP tools'
results, the task the Bash report started and the Stop report finished (PostToolUse,
Stop), and the transcript SessionEnd pushed before ``claude`` exited."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evaluation.agents.claude_code import claude_command
from evaluation.harness.scripted_llm import scripted
from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.services import build_services
from recall_api.tokens import TokenStore, tokens_path
from tests.integrations.checkout import ROTATED_CARD, ROTATED_QUERY, Checkout, tablekit_checkout
from tests.integrations.fake_anthropic import Turn, call, fake_anthropic, say
from tests.integrations.helpers import DOSE_MEM, LiveServer, clean_env, connect

PROMPT = "pdfplumber loses the text of rotated pages in our PDFs: what do we do about it?"
SEARCH = "mcp__dose-mem__memory_search"  # Claude Code's names for an MCP server's tools
READ = "mcp__dose-mem__memory_read"
# What a person running `claude -p` allows up front: no one is there to approve a call.
ALLOWED = ["--allowedTools", "Bash", SEARCH, READ]
QUIET = {  # the model is the fake one; nothing else leaves the machine
    "ANTHROPIC_API_KEY": "sk-ant-test",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


@pytest.fixture(scope="module")
def checkout(demo_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Checkout:
    return tablekit_checkout(demo_settings, tmp_path_factory.mktemp("claude-checkout"))


@pytest.fixture(scope="module")
def service(checkout: Checkout) -> Iterator[LiveServer]:
    """The recall service over the checkout's memory, whose registry knows the checkout."""
    with LiveServer(create_app(checkout.settings, build_services(checkout.settings))) as live:
        yield live


def _result(request: dict[str, Any], name: str) -> tuple[str, bool]:
    """The text of the result of the model's call of ``name`` in a request's messages, and
    whether Claude Code marked it an error."""
    blocks = [
        block
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
    ]
    [call_id] = [b["id"] for b in blocks if b.get("type") == "tool_use" and b["name"] == name]
    [result] = [b for b in blocks if b.get("type") == "tool_result" and b["tool_use_id"] == call_id]
    content = result["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    return text, bool(result.get("is_error"))


def test_claude_code_recalls_searches_reports_and_pushes_its_session(
    checkout: Checkout, service: LiveServer, tmp_path: Path
) -> None:
    store = TokenStore(tokens_path(checkout.settings))
    token = store.issue("claude-code", "working", ["tablekit"])[0]
    home = tmp_path / "home"
    config = home / ".claude"
    config.mkdir(parents=True)
    homes = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(config),
        "PATH": f"{Path(DOSE_MEM).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    # the README's one command (its DOSE_MEM_HOME goes into the MCP server's entry)
    connect("claude-code", token, service.url, **homes, DOSE_MEM_HOME=str(checkout.settings.home))

    run = f"r{uuid.uuid4().hex[:6]}"
    (checkout.path / "logs").mkdir(exist_ok=True)
    command = f"nohup python train.py --config {run} > logs/{run}.log 2>&1 &"
    answer = f"{run} finished: dev CER 11.2%. Pin pdfplumber 0.10 ({ROTATED_CARD})."

    def start(request: dict[str, Any]) -> Turn:
        return call("Bash", {"command": command, "description": f"Start the {run} run"})

    def search(request: dict[str, Any]) -> Turn:
        return call(SEARCH, {"query": ROTATED_QUERY})

    def read(request: dict[str, Any]) -> Turn:
        return call(READ, {"id": ROTATED_CARD})

    def finish(request: dict[str, Any]) -> Turn:
        return say(answer)

    outbox = tmp_path / "outbox"
    with fake_anthropic() as model:
        model.responder = scripted([start, search, read, finish])
        env = clean_env(**homes, **QUIET, ANTHROPIC_BASE_URL=model.url, DOSE_MEM_OUTBOX=str(outbox))
        done = subprocess.run(
            [*claude_command(), "-p", PROMPT, *ALLOWED],
            cwd=checkout.path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == answer
    first, after_bash, after_search, after_read = model.messages()

    # recall: the UserPromptSubmit hook's memory is in the model's first request
    sent = json.dumps(first["messages"], ensure_ascii=False)
    assert "Memory from dose-mem" in sent
    assert f'memory_read(\\"{ROTATED_CARD}\\")' in sent
    # the MCP server from .claude.json: its tools offered, then called by the model
    assert SEARCH in json.dumps(first) and READ in json.dumps(first)
    assert _result(after_bash, "Bash")[1] is False
    found, error = _result(after_search, SEARCH)
    assert not error, found
    assert ROTATED_CARD in [h["id"] for h in json.loads(found)["hits"]][:3]  # cwd: TableKit
    card, error = _result(after_read, READ)
    assert not error and "pdfplumber==0.10.4" in card, card

    # task state: PostToolUse(Bash) started the run's task, Stop finished it
    tasks = httpx.get(
        f"{service.url}/v1/tasks",
        params={"project": "tablekit"},
        headers={"Authorization": f"Bearer {token}"},
    )
    (task,) = [t for t in tasks.json() if t["log_path"] == f"logs/{run}.log"]
    assert (task["agent"], task["command"], task["status"]) == ("claude-code", command, "done")
    assert task["result"] == f"{run} finished: dev CER 11.2%."
    # the session push: SessionEnd sent the transcript before `claude -p` exited
    assert not list((outbox / "claude-code").glob("*.req"))  # nothing left for later
    inbox = checkout.settings.inbox_path / "claude_code"
    pushed = [p for p in inbox.glob("claude-code__*.jsonl") if answer in p.read_text()]
    assert len(pushed) == 1
    assert f'"sessionId":"{task["session"]}"' in pushed[0].read_text()
