"""A machine without dose-mem: it downloads one file from the service and runs it.

The file is fetched over HTTP without a token and run by a bare interpreter (``-I -S``:
no site-packages, so nothing of dose-mem or its dependencies can be imported). It must
recall for Claude Code, report task events for Claude Code and Codex, and push an ended
transcript to the write path's inbox.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from memory_repo.settings import Settings
from tests.conftest import IssueToken
from tests.integrations.demo import SETUP_PROMPT, TABLEKIT_CWD, TABSENSE_CWD, UV_CARD
from tests.integrations.helpers import LiveServer, clean_env

TRANSCRIPT = next(
    (Path(__file__).parents[1] / "data" / "transcripts" / "claude_code").rglob("*.jsonl")
)


@pytest.fixture
def hook_file(live: LiveServer, tmp_path: Path) -> Path:
    answer = httpx.get(f"{live.url}/v1/client/dose_mem_hook.py")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/x-python")
    path = tmp_path / "remote" / "dose_mem_hook.py"
    path.parent.mkdir()
    path.write_text(answer.text, encoding="utf-8")
    return path


def run(path: Path, args: list[str], env: dict[str, str], stdin: object = None):
    return subprocess.run(
        [sys.executable, "-I", "-S", str(path), *args],
        input=json.dumps(stdin) if stdin is not None else "",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=path.parent,
    )


def test_the_downloaded_file_recalls_reports_and_pushes(
    live: LiveServer,
    hook_file: Path,
    issue_token: IssueToken,
    demo_settings: Settings,
    tmp_path: Path,
) -> None:
    cc = clean_env(
        DOSE_MEM_URL=live.url,
        DOSE_MEM_TOKEN=issue_token("working", ["tablekit", "tabsense"], agent="claude-code"),
        DOSE_MEM_HOOK_STATE=str(tmp_path / "turns.json"),
    )
    prompt = {
        "session_id": "remote-1",
        "transcript_path": str(TRANSCRIPT),
        "cwd": TABLEKIT_CWD,
        "hook_event_name": "UserPromptSubmit",
        "prompt": SETUP_PROMPT,
    }
    recalled = run(hook_file, ["claude-code"], cc, prompt)
    assert recalled.returncode == 0, recalled.stderr
    context = json.loads(recalled.stdout)["hookSpecificOutput"]["additionalContext"]
    assert UV_CARD in context

    started = run(
        hook_file,
        ["claude-code"],
        cc,
        {
            "session_id": "remote-1",
            "cwd": TABSENSE_CWD,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "sbatch -o logs/r8.out train_r8.sh"},
            "tool_response": {"stdout": "Submitted batch job 5150", "stderr": ""},
        },
    )
    assert (started.returncode, started.stdout, started.stderr) == (0, "", "")

    codex = clean_env(
        DOSE_MEM_URL=live.url, DOSE_MEM_TOKEN=issue_token("working", ["tabsense"], agent="codex")
    )
    note = {
        "type": "agent-turn-complete",
        "cwd": TABSENSE_CWD,
        "last-assistant-message": "r8 完成了，CER 10.9%",
    }
    told = run(hook_file, ["notify-codex", json.dumps(note)], codex)
    assert (told.returncode, told.stdout, told.stderr) == (0, "", "")

    auth = {"Authorization": f"Bearer {cc['DOSE_MEM_TOKEN']}"}
    tasks = httpx.get(f"{live.url}/v1/tasks?project=tabsense", headers=auth).json()
    (r8,) = [t for t in tasks if t["job"] == "5150"]
    assert (r8["title"], r8["log_path"], r8["status"]) == ("train_r8.sh", "logs/r8.out", "done")
    assert r8["result"] == "r8 完成了，CER 10.9%" and r8["finished_by"] == "codex"

    ended = run(
        hook_file,
        ["claude-code"],
        cc,
        {
            "session_id": "remote-1",
            "transcript_path": str(TRANSCRIPT),
            "cwd": TABLEKIT_CWD,
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        },
    )
    assert (ended.returncode, ended.stdout) == (0, "")
    pushed = list((demo_settings.inbox_path / "claude_code").glob("claude-code__*.jsonl"))
    assert any(p.read_bytes() == TRANSCRIPT.read_bytes() for p in pushed)


def test_the_downloaded_file_is_silent_when_the_service_is_down(hook_file: Path) -> None:
    env = clean_env(DOSE_MEM_URL="http://127.0.0.1:9", DOSE_MEM_TOKEN="dm_x_y")
    for args, stdin in (
        (
            ["claude-code"],
            {"hook_event_name": "UserPromptSubmit", "prompt": "hi", "session_id": "s"},
        ),
        (["codex"], {"hook_event_name": "PostToolUse", "tool_input": {"command": "ls &"}}),
        (["notify-codex", "{}"], None),
    ):
        done = run(hook_file, args, env, stdin)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert run(hook_file, ["nonsense"], env).returncode == 2
