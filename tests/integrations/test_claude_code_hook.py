"""``dose-mem hook claude-code`` as Claude Code runs it: a process per prompt, JSON on stdin."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import IssueToken
from tests.integrations.demo import SETUP_PROMPT, TABLEKIT_CWD, UV_CARD
from tests.integrations.helpers import LiveServer, clean_env, free_port

HOOK = [str(Path(sys.executable).parent / "dose-mem"), "hook", "claude-code"]


def run_hook(event: object, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    stdin = event if isinstance(event, str) else json.dumps(event)
    return subprocess.run(
        [*HOOK, *extra], input=stdin, capture_output=True, text=True, env=env, timeout=30
    )


def event(prompt: str, session: str, cwd: str = TABLEKIT_CWD) -> dict[str, str]:
    return {
        "session_id": session,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": cwd,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


@pytest.fixture
def hook_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    yield clean_env(DOSE_MEM_HOOK_STATE=str(tmp_path / "turns.json"))


def test_first_prompt_in_tablekit_gets_the_uv_card_then_a_rename_gets_nothing(
    recall_service: LiveServer, issue_token: IssueToken, hook_env: dict[str, str]
) -> None:
    env = hook_env | {
        "DOSE_MEM_URL": recall_service.url,
        "DOSE_MEM_TOKEN": issue_token("working", ["tablekit"], agent="claude-code"),
    }
    first = run_hook(event(SETUP_PROMPT, "cc-1"), env)
    assert first.returncode == 0
    output = json.loads(first.stdout)
    specific = output["hookSpecificOutput"]
    assert specific["hookEventName"] == "UserPromptSubmit"
    assert f'memory_read("{UV_CARD}")' in specific["additionalContext"]

    second = run_hook(event("Rename parse_table and update the tests", "cc-1"), env)
    assert second.returncode == 0
    assert second.stdout == ""  # turn 2 of the same session: working does not trigger
    assert json.loads(Path(env["DOSE_MEM_HOOK_STATE"]).read_text()) == {"cc-1": 2}


def test_a_revoked_or_bad_token_prints_nothing(
    recall_service: LiveServer, hook_env: dict[str, str]
) -> None:
    env = hook_env | {"DOSE_MEM_URL": recall_service.url, "DOSE_MEM_TOKEN": "dm_nope_nope"}
    done = run_hook(event(SETUP_PROMPT, "cc-2"), env)
    assert (done.returncode, done.stdout) == (0, "")


def test_service_down_prints_nothing_and_exits_zero(hook_env: dict[str, str]) -> None:
    closed = free_port()  # bound once and released: nothing listens there
    env = hook_env | {"DOSE_MEM_URL": f"http://127.0.0.1:{closed}", "DOSE_MEM_TOKEN": "dm_a_b"}
    done = run_hook(event(SETUP_PROMPT, "cc-3"), env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_service_that_never_answers_is_abandoned_at_the_deadline(
    hook_env: dict[str, str],
) -> None:
    with socket.socket() as silent:  # accepts connections, never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        env = hook_env | {"DOSE_MEM_URL": url, "DOSE_MEM_TOKEN": "dm_a_b"}
        done = run_hook(event(SETUP_PROMPT, "cc-4"), env, "--timeout", "0.5")
    assert (done.returncode, done.stdout) == (0, "")


@pytest.mark.parametrize(
    "stdin",
    [
        "",
        "not json",
        "[1, 2]",
        json.dumps({"session_id": "x", "prompt": ""}),
        json.dumps({"prompt": "no session id"}),
    ],
)
def test_malformed_hook_input_prints_nothing(
    stdin: str, recall_service: LiveServer, issue_token: IssueToken, hook_env: dict[str, str]
) -> None:
    env = hook_env | {
        "DOSE_MEM_URL": recall_service.url,
        "DOSE_MEM_TOKEN": issue_token("full", None),
    }
    done = run_hook(stdin, env)
    assert (done.returncode, done.stdout) == (0, "")


def test_the_full_cli_registration_behaves_the_same(
    recall_service: LiveServer, issue_token: IssueToken, hook_env: dict[str, str]
) -> None:
    """``python -m dose_mem.cli.entry`` and typer's ``hook claude-code`` share the logic."""
    from typer.testing import CliRunner

    from dose_mem.cli.main import app

    env = hook_env | {
        "DOSE_MEM_URL": recall_service.url,
        "DOSE_MEM_TOKEN": issue_token("full", None),
    }
    result = CliRunner().invoke(
        app, ["hook", "claude-code"], input=json.dumps(event(SETUP_PROMPT, "cc-5")), env=env
    )
    assert result.exit_code == 0
    assert UV_CARD in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_compaction_or_clear_makes_the_next_prompt_get_held_memory_again(
    recall_service: LiveServer, issue_token: IssueToken, hook_env: dict[str, str]
) -> None:
    """Claude Code keeps additionalContext in its transcript: the same question in one
    session is answered once; PreCompact (or SessionStart after a compaction or clear)
    is noted without a request, and the next prompt carries ``context_reset``."""
    env = hook_env | {
        "DOSE_MEM_URL": recall_service.url,
        "DOSE_MEM_TOKEN": issue_token("full", None, agent="claude-code"),
    }
    question = "Can other labs reuse the TabSense dataset? Under what license?"
    marks = Path(env["DOSE_MEM_HOOK_STATE"]).with_name("turns-resets.json")

    def context(session: str) -> str:
        done = run_hook(event(question, session), env)
        assert done.returncode == 0
        return (
            json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
            if done.stdout
            else ""
        )

    assert 'memory_read("tabsense-dataset-licence")' in context("cc-reset")
    assert context("cc-reset") == ""  # held: Claude Code still has it
    compact = {"session_id": "cc-reset", "hook_event_name": "PreCompact", "trigger": "auto"}
    done = run_hook(compact, env)
    assert (done.returncode, done.stdout) == (0, "")
    assert "cc-reset" in json.loads(marks.read_text())
    assert 'memory_read("tabsense-dataset-licence")' in context("cc-reset")
    assert "cc-reset" not in json.loads(marks.read_text())  # the service took it
    assert context("cc-reset") == ""

    for source, resets in (("startup", False), ("clear", True), ("resume", True)):
        start = {"session_id": f"cc-{source}", "hook_event_name": "SessionStart", "source": source}
        assert run_hook(start, env).stdout == ""
        assert (f"cc-{source}" in json.loads(marks.read_text())) is resets
