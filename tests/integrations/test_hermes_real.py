"""The Hermes plugin in the real Hermes Agent (0.19.0, installed from PyPI into its own
environment under .tools/agents/, which has never seen dose-mem): ``dose-mem connect
hermes`` (the files it writes are those the service serves to other machines), Hermes'
own loader, ``AIAgent.run_conversation`` against a scripted model server, and the
session's end as Hermes ends it."""

from __future__ import annotations

import json
import subprocess
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from evaluation.agents.install import hermes_python
from evaluation.harness.scripted_llm import Reply, llm_server, stream_answer
from memory_repo.settings import Settings
from recall_api.integrations.client_files import PIECES
from tests.conftest import IssueToken
from tests.integrations.demo import SETUP_PROMPT, UV_CARD
from tests.integrations.helpers import LiveServer, clean_env, connect

RUN = Path(__file__).with_name("hermes_run.py")


def _answer(request: dict[str, Any]) -> Reply:
    if request.get("stream"):
        return stream_answer(request, text="Use uv, as you always do.")
    message = {"role": "assistant", "content": "Use uv, as you always do."}
    choice = {"index": 0, "finish_reason": "stop", "message": message}
    body = {"id": "c", "object": "chat.completion", "created": 0, "model": "m"}
    return Reply(body | {"choices": [choice], "usage": {"total_tokens": 2}})


def test_a_hermes_that_never_saw_dose_mem_loads_the_served_plugin_and_remembers(
    recall_service: LiveServer, issue_token: IssueToken, demo_settings: Settings, tmp_path: Path
) -> None:
    python = hermes_python()
    home = tmp_path / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text("model:\n  default: m  # the user's own\n", encoding="utf-8")
    token = issue_token("full", None, agent="hermes")
    connect("hermes", token, recall_service.url, HERMES_HOME=str(home))  # the README's command
    plugin = home / "plugins" / "dose-mem"
    for name in PIECES["hermes"]:  # what a machine elsewhere fetches is what connect wrote
        with urllib.request.urlopen(f"{recall_service.url}/v1/client/hermes/{name}") as answer:
            assert answer.read() == (plugin / name).read_bytes()
    session = f"hermes-{uuid.uuid4().hex[:8]}"
    with llm_server() as llm:
        llm.responder = _answer
        done = subprocess.run(
            [str(python), str(RUN), SETUP_PROMPT],
            cwd=home,  # not the repository: nothing of dose-mem on Hermes' path
            env=clean_env(HERMES_HOME=str(home), FAKE_LLM=llm.url, SESSION=session),
            capture_output=True,
            text=True,
            timeout=180,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["recall_api_importable"] is False
    assert seen["discovered"]["dose-mem"] is True  # available, from the .env alone
    assert seen["providers"] == ["dose-mem"]
    assert seen["final"] == "Use uv, as you always do."
    [chat] = [r for r in llm.requests if "messages" in r]  # (Hermes also probes the model)
    sent = "\n".join(str(m.get("content")) for m in chat["messages"])
    assert f'memory_read("{UV_CARD}")' in sent  # the recalled card reached the model
    pushed = [
        p
        for p in (demo_settings.inbox_path / "hermes").glob("hermes__*.jsonl")
        if session in p.read_text(encoding="utf-8")
    ]
    assert len(pushed) == 1  # the session's end reached the write path's inbox
