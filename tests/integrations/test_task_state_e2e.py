"""Task state end to end: real service, real hook commands, a Hermes provider, a clock.

Claude Code starts r3 in a research project; Hermes asks "r3 跑完了吗？" and hears it is
running, since when, where its log is and who started it; Codex's notify says it
finished; Hermes hears done with the result quoted; a coding agent in another project
hears nothing; a week later the task is no longer recalled. The service runs on a real
uvicorn; only its task clock is the test's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from recall_api.integrations.hermes_provider import DoseMemProvider
from tests.conftest import IssueToken
from tests.integrations.demo import TABLEKIT_CWD, TABSENSE_CWD
from tests.integrations.helpers import Clock, LiveServer, clean_env

DOSE_MEM = str(Path(sys.executable).with_name("dose-mem"))
R3 = "nohup python train.py --config r3 > logs/r3.log 2>&1 &"


def hook(
    agent_cmd: list[str], event: dict | None, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [DOSE_MEM, *agent_cmd],
        input=json.dumps(event) if event is not None else "",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def post_tool_use(command: str, stdout: str, cwd: str = TABSENSE_CWD) -> dict:
    return {
        "session_id": "cc-r3",
        "transcript_path": "/nonexistent.jsonl",
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "start r3"},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }


def test_r3_from_start_to_done_to_retired_across_four_agents(
    live: LiveServer, issue_token: IssueToken, clock: Clock, tmp_path: Path
) -> None:
    cc_env = clean_env(
        DOSE_MEM_URL=live.url,
        DOSE_MEM_TOKEN=issue_token("working", ["tabsense"], agent="claude-code"),
        DOSE_MEM_HOOK_STATE=str(tmp_path / "cc-turns.json"),
    )
    started = hook(["hook", "claude-code"], post_tool_use(R3, "[1] 4242\n"), cc_env)
    assert (started.returncode, started.stdout, started.stderr) == (0, "", "")

    hermes = DoseMemProvider(live.url, issue_token("full", None, agent="hermes"))
    hermes.initialize("hermes-1", cwd="/home/demo")
    clock.advance(minutes=37)
    running = hermes.prefetch("r3 跑完了吗？")
    assert "train.py --config r3: running since" in running
    assert "(37 min ago)" in running and "log logs/r3.log" in running
    assert "started by claude-code" in running and "job 4242" in running
    assert "done" not in running.split("running since")[1].split(";")[0]

    clock.advance(minutes=3)
    notify = {
        "type": "agent-turn-complete",
        "thread-id": "codex-7",
        "turn-id": "12",
        "cwd": TABSENSE_CWD,
        "input-messages": ["check on r3"],
        "last-assistant-message": "r3 finished: dev CER 11.2%",
    }
    codex_env = clean_env(
        DOSE_MEM_URL=live.url, DOSE_MEM_TOKEN=issue_token("working", ["tabsense"], agent="codex")
    )
    told = subprocess.run(
        [DOSE_MEM, "notify", "codex", json.dumps(notify)],
        capture_output=True,
        text=True,
        env=codex_env,
        timeout=60,
    )
    assert (told.returncode, told.stdout, told.stderr) == (0, "", "")

    clock.advance(minutes=5)
    done = hermes.prefetch("r3 跑完了吗？")
    assert "train.py --config r3: done " in done
    assert 'result (codex): "r3 finished: dev CER 11.2%"' in done

    other_env = clean_env(
        DOSE_MEM_URL=live.url,
        DOSE_MEM_TOKEN=issue_token("working", ["tablekit"], agent="claude-code"),
        DOSE_MEM_HOOK_STATE=str(tmp_path / "other-turns.json"),
    )
    ask = {
        "session_id": "cc-tk",
        "transcript_path": "/nonexistent.jsonl",
        "cwd": TABLEKIT_CWD,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "is it done?",
    }
    quiet = hook(["hook", "claude-code"], ask, other_env)
    assert (quiet.returncode, quiet.stdout) == (0, "")
    auth = {"Authorization": f"Bearer {other_env['DOSE_MEM_TOKEN']}"}
    body = {"prompt": "is it done?", "session_id": "cc-tk2", "turn": 3, "cwd": TABLEKIT_CWD}
    answer = httpx.post(f"{live.url}/v1/recall", json=body, headers=auth).json()
    assert (answer["injected"], answer["reason"]) == (False, "no_task")

    clock.advance(days=7, hours=1)
    assert hermes.prefetch("r3 跑完了吗？") == ""
    hermes.shutdown()


def test_a_status_question_about_a_task_that_never_existed_gets_nothing(
    live: LiveServer, issue_token: IssueToken, tmp_path: Path
) -> None:
    env = clean_env(
        DOSE_MEM_URL=live.url,
        DOSE_MEM_TOKEN=issue_token("working", ["tabsense"], agent="claude-code"),
        DOSE_MEM_HOOK_STATE=str(tmp_path / "turns.json"),
    )
    assert hook(["hook", "claude-code"], post_tool_use(R3, ""), env).returncode == 0
    hermes = DoseMemProvider(live.url, issue_token("full", None, agent="hermes"))
    hermes.initialize("hermes-2", cwd="/home/demo")
    assert hermes.prefetch("did the r7 run finish?") == ""
    assert "train.py --config r3" in hermes.prefetch("did the r3 run finish?")
    # Hermes keeps what it was given: the same line again in this session is held back
    # (docs/read-path.md, "Session-aware dose"); a new session gets it.
    assert hermes.prefetch("训练跑完了吗？") == ""
    assert hermes.last_result is not None and hermes.last_result["reason"] == "held"
    hermes.initialize("hermes-2b", cwd="/home/demo")
    assert "train.py --config r3" in hermes.prefetch("训练跑完了吗？")  # names no run: recent
    personal = DoseMemProvider(live.url, issue_token("personal", None, agent="calendar"))
    personal.initialize("cal-1")
    assert personal.prefetch("is it done?") == ""


def test_hermes_reports_its_own_turns_and_delegations(
    live: LiveServer, issue_token: IssueToken
) -> None:
    token = issue_token("full", None, agent="hermes")
    hermes = DoseMemProvider(live.url, token)
    hermes.initialize("hermes-3", cwd=TABSENSE_CWD)
    call = {
        "id": "call_1",
        "type": "function",
        "function": {
            "name": "terminal",
            "arguments": json.dumps({"command": "nohup python eval.py --split test > eval.log &"}),
        },
    }
    messages = [
        {"role": "user", "content": "start the test-set eval"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "[1] 777"},
        {"role": "assistant", "content": "Started the eval in the background."},
    ]
    hermes.sync_turn("start the test-set eval", messages[-1]["content"], messages=messages)
    hermes.on_delegation("Summarise the r2 ablation table", "r2 ablation: -1.3 CER without aug")
    hermes.wait()
    tasks = httpx.get(f"{live.url}/v1/tasks", headers={"Authorization": f"Bearer {token}"}).json()
    by_title = {t["title"]: t for t in tasks}
    started = by_title["eval.py --split test"]
    assert (started["status"], started["log_path"], started["job"]) == (
        "running",
        "eval.log",
        "777",
    )
    assert started["project"] == "tabsense" and started["agent"] == "hermes"
    delegated = by_title["Summarise the r2 ablation table"]
    assert delegated["status"] == "done"
    assert delegated["result"] == "r2 ablation: -1.3 CER without aug"


def test_codex_hooks_report_through_the_same_command(
    live: LiveServer, issue_token: IssueToken, tmp_path: Path
) -> None:
    token = issue_token("working", ["tabsense"], agent="codex")
    env = clean_env(
        DOSE_MEM_URL=live.url,
        DOSE_MEM_TOKEN=token,
        DOSE_MEM_HOOK_STATE=str(tmp_path / "codex-turns.json"),
    )
    event = post_tool_use("uv run pytest -q tests/test_grid.py", "....\n4 passed in 0.9s\n")
    event["session_id"] = "codex-hook-1"
    done = hook(["hook", "codex"], event, env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    tasks = httpx.get(
        f"{live.url}/v1/tasks",
        headers={"Authorization": f"Bearer {token}"},
        params={"project": "tabsense"},
    ).json()
    (run,) = [t for t in tasks if t["session"] == "codex-hook-1"]
    assert (run["agent"], run["status"], run["result"]) == ("codex", "done", "4 passed in 0.9s")
