"""Agents' reports become task events for the common shapes, and for nothing else."""

from __future__ import annotations

import datetime as dt

import pytest

from memory_repo.tasks.extract import Report, UnknownTask, extract
from memory_repo.tasks.fold import fold
from memory_repo.tasks.model import Task, TaskEvent, TaskStatus

T0 = dt.datetime(2026, 12, 4, 14, 2, tzinfo=dt.UTC)
RESEARCH = "/home/demo/research/tabsense"


def project_of(cwd: str | None) -> str | None:
    if cwd and cwd.startswith(RESEARCH):
        return "tabsense"
    if cwd and cwd.startswith("/home/demo/code/tablekit"):
        return "tablekit"
    return None


def bash(command: str, stdout: str = "", cwd: str = RESEARCH, **extra: object) -> Report:
    payload = {
        "session_id": "cc-1",
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, **extra},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }
    return Report(source="claude-code", event="PostToolUse", payload=payload)


def run(report: Report, tasks: dict[str, Task] | None = None, agent: str = "claude-code"):
    return extract(report, agent=agent, project_of=project_of, tasks=tasks or {}, now=T0)


@pytest.mark.parametrize(
    ("command", "stdout", "title", "log", "job"),
    [
        (
            "nohup python train.py --config r3 > logs/r3.log 2>&1 &",
            "[1] 4242",
            "train.py --config r3",
            "logs/r3.log",
            "4242",
        ),
        (
            "sbatch -o logs/eval-%j.out run_eval.sh",
            "Submitted batch job 991",
            "run_eval.sh",
            "logs/eval-%j.out",
            "991",
        ),
        (
            "tmux new -d -s r4 'python train.py --config r4 | tee logs/r4.log'",
            "",
            "train.py --config r4",
            "logs/r4.log",
            None,
        ),
        ("screen -dmS dl python download.py", "", "screen -dmS dl python download.py", None, None),
        (
            "docker run -d --name qdrant qdrant/qdrant",
            "a" * 64,
            "docker run -d --name qdrant qdrant/qdrant",
            None,
            "a" * 12,
        ),
        (
            "setsid python serve.py >> out/serve.log 2>&1 < /dev/null &",
            "",
            "serve.py",
            "out/serve.log",
            None,
        ),
    ],
)
def test_a_command_sent_to_the_background_starts_a_running_task(
    command: str, stdout: str, title: str, log: str | None, job: str | None
) -> None:
    (event,) = run(bash(command, stdout))
    assert event.status == TaskStatus.running
    assert (event.title, event.log_path, event.job) == (title, log, job)
    assert event.project == "tabsense" and event.command == command
    assert event.session == "cc-1" and event.agent == "claude-code"


def test_claude_codes_run_in_background_flag_starts_a_task_without_any_shell_sign() -> None:
    (event,) = run(bash("python train.py --config r5", run_in_background=True))
    assert event.status == TaskStatus.running and event.title == "train.py --config r5"


@pytest.mark.parametrize(
    "command", ["ls -la", "git status", "python -c 'print(1 & 2)'", "echo done > /tmp/x"]
)
def test_an_ordinary_command_is_no_task(command: str) -> None:
    assert run(bash(command, "whatever")) == []


def test_gh_pr_create_waits_on_review_with_its_url() -> None:
    url = "https://github.com/demo/tablekit/pull/87"
    report = bash(
        'gh pr create --title "Rename parse_table" --body x',
        f"Creating pull request\n{url}\n",
        cwd="/home/demo/code/tablekit",
    )
    (event,) = run(report)
    assert event.status == TaskStatus.waiting and event.links == [url]
    assert event.title == "PR: Rename parse_table" and event.project == "tablekit"


def test_a_foreground_test_run_is_a_finished_task_with_its_final_line_quoted() -> None:
    passed = run(bash("uv run pytest -q tests/", "....\n12 passed in 3.1s\n"))
    assert [(e.status, e.result) for e in passed] == [(TaskStatus.done, "12 passed in 3.1s")]
    tasks = fold(passed)
    again = run(bash("uv run pytest -q tests/", "F...\n1 failed, 11 passed in 3.0s\n"), tasks)
    assert again[0].task == passed[0].task  # the same command updates the same task
    assert again[0].status == TaskStatus.failed


def test_reading_a_running_tasks_log_records_its_last_line_without_changing_status() -> None:
    started = run(bash("nohup python train.py --config r3 > logs/r3.log 2>&1 &"))
    tasks = fold(started)
    (event,) = run(bash("tail -n 3 logs/r3.log", "epoch 11\nepoch 12 dev CER 12.0%\n"), tasks)
    assert event.task == started[0].task and event.status is None
    assert event.result == "epoch 12 dev CER 12.0%"


def open_task(title: str, project: str | None, session: str = "cc-1") -> Task:
    return Task(
        id=f"{title.split()[0]}-0001",
        project=project,
        title=title,
        status=TaskStatus.running,
        started=T0,
        updated=T0,
        agent="claude-code",
        session=session,
    )


def message(text: str, cwd: str | None = RESEARCH) -> Report:
    payload = {"type": "agent-turn-complete", "last-assistant-message": text}
    if cwd:
        payload["cwd"] = cwd
    return Report(source="codex", event="agent-turn-complete", payload=payload)


@pytest.mark.parametrize(
    ("text", "status", "quoted"),
    [
        ("r3 finished: dev CER 11.2%", TaskStatus.done, "r3 finished: dev CER 11.2%"),
        (
            "好的。r3 跑完了，dev CER 11.2%。还有别的吗？",
            TaskStatus.done,
            "r3 跑完了，dev CER 11.2%。",
        ),
        (
            "Checked the logs. The r3 run crashed with CUDA OOM at epoch 4.",
            TaskStatus.failed,
            "The r3 run crashed with CUDA OOM at epoch 4.",
        ),
        ("r3 训练失败了，显存不够", TaskStatus.failed, "r3 训练失败了，显存不够"),
    ],
)
def test_a_sentence_that_names_an_open_task_and_a_finish_closes_it_quoted(
    text: str, status: TaskStatus, quoted: str
) -> None:
    task = open_task("train.py --config r3", "tabsense")
    (event,) = run(message(text), {task.id: task}, agent="codex")
    assert (event.task, event.status, event.result) == (task.id, status, quoted)
    assert event.project is None  # an update never moves a task


@pytest.mark.parametrize(
    "text",
    [
        "r3 is not finished yet, epoch 7 of 12",
        "r3 还在跑，没完成",
        "The build finished.",  # names no open task
        "I started r3 in the background.",  # names it, no finishing word
    ],
)
def test_nothing_else_changes_a_status(text: str) -> None:
    task = open_task("train.py --config r3", "tabsense", session="other")
    assert run(message(text), {task.id: task}) == []


def test_a_finish_in_one_project_leaves_the_similar_task_of_another_alone() -> None:
    here = open_task("train.py --config r3", "tabsense")
    there = open_task("train.py --config r3", "tablekit").model_copy(update={"id": "tk-r3"})
    (event,) = run(message("r3 finished: 0.91 F1"), {here.id: here, there.id: there})
    assert event.task == here.id


def test_every_text_is_redacted_before_it_becomes_an_event() -> None:
    command = "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv nohup python train.py r9 > r9.log &"
    (event,) = run(bash(command))
    assert "sk-proj" not in event.model_dump_json()
    assert "OPENAI_API_KEY=[redacted]" in (event.command or "")


def test_an_explicit_report_starts_or_updates_and_an_unknown_id_is_refused() -> None:
    (started,) = run(Report(title="Label 200 tables", status=TaskStatus.blocked, cwd=RESEARCH))
    assert started.project == "tabsense" and started.status == TaskStatus.blocked
    tasks = fold([started])
    (update,) = run(Report(task=started.task, status=TaskStatus.done, result="all 200"), tasks)
    assert update.task == started.task and update.result == "all 200"
    with pytest.raises(UnknownTask):
        run(Report(task="never-0000", status=TaskStatus.done), tasks)


def claude_stop(background_tasks: list[dict[str, str]], **extra: str) -> Report:
    """Claude Code's Stop hook in the research project, with its background tasks."""
    payload = {"hook_event_name": "Stop", "cwd": RESEARCH, "background_tasks": background_tasks}
    return Report(source="claude-code", event="Stop", payload={**payload, **extra})


def test_stop_background_tasks_finish_the_task_of_the_same_command() -> None:
    started = run(bash("python train.py --config r6", run_in_background=True))
    tasks = fold(started)
    done = {"id": "b1", "command": "python train.py --config r6", "status": "completed"}
    (event,) = run(claude_stop([done]), tasks)
    assert (event.task, event.status) == (started[0].task, TaskStatus.done)


def test_events_round_trip_through_json() -> None:
    (event,) = run(bash("nohup python train.py --config r3 > logs/r3.log 2>&1 &"))
    assert TaskEvent.model_validate_json(event.model_dump_json()) == event


def test_reading_a_log_of_the_same_name_in_another_project_touches_nothing() -> None:
    started = run(bash("nohup python train.py --config r3 > logs/r3.log 2>&1 &"))
    tasks = fold(started)
    elsewhere = bash("tail -n 2 logs/r3.log", "epoch 7\n", cwd="/home/demo/code/tablekit")
    assert run(elsewhere, tasks) == []


def test_a_killed_background_task_stays_abandoned_whatever_the_message_says() -> None:
    started = run(bash("python sweep.py --grid lr", run_in_background=True))
    killed = {"command": "python sweep.py --grid lr", "status": "killed"}
    stop = claude_stop([killed], last_assistant_message="Killed the sweep; the grid was wrong.")
    assert [e.status for e in run(stop, fold(started))] == [TaskStatus.abandoned]
