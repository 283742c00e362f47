"""The journal is the truth; tasks are its fold; lines and pages are how a person reads it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import git

from memory_repo.history import init_repo
from memory_repo.tasks import journal
from memory_repo.tasks.fold import fold, is_stale, live
from memory_repo.tasks.model import TaskEvent, TaskStatus
from memory_repo.tasks.pages import page_path, write_pages
from memory_repo.tasks.view import ago, line, markdown

T0 = dt.datetime(2026, 12, 4, 14, 2, tzinfo=dt.UTC)


def event(task: str, minutes: float, **fields: object) -> TaskEvent:
    base = {"agent": "claude-code", "source": "test", "project": "tabsense"}
    return TaskEvent(
        id=f"{task}-{minutes}", task=task, at=T0 + dt.timedelta(minutes=minutes), **base | fields
    )


def test_append_then_read_keeps_order_and_skips_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "tasks" / "events.jsonl"
    first = event("r3", 0, status=TaskStatus.running, title="train.py --config r3")
    second = event("r3", 40, status=TaskStatus.done, result="dev CER 11.2%")
    journal.append(path, first)
    journal.append(path, second)
    with path.open("ab") as fh:
        fh.write(b'{"id": "torn", "task": "r3", "at": "2026-12-0')  # a crash mid-write
    events, problems = journal.read(path)
    assert events == [first, second]
    assert problems == [f"{path}:3: JSONDecodeError"]
    assert path.stat().st_mode & 0o777 == 0o600


def test_status_changes_only_when_an_event_names_one() -> None:
    events = [
        event("r3", 0, status=TaskStatus.running, title="train.py --config r3", log_path="a.log"),
        event("r3", 10, result="epoch 3", agent="codex"),  # no status: still running
        event("r3", 20, links=["https://ci/1"], log_path="logs/r3.log"),
    ]
    (task,) = fold(events).values()
    assert task.status == TaskStatus.running and task.finished_by is None
    assert (task.result, task.log_path, task.links) == ("epoch 3", "logs/r3.log", ["https://ci/1"])
    assert (task.started, task.updated, task.events) == (T0, events[-1].at, 3)
    assert task.agent == "claude-code"  # who started it, not who updated it
    (done,) = fold([*events, event("r3", 30, status=TaskStatus.done, agent="codex")]).values()
    assert done.status == TaskStatus.done and done.finished_by == "codex"


def test_finished_tasks_retire_after_keep_days_open_ones_never() -> None:
    tasks = fold(
        [
            event("old-done", 0, status=TaskStatus.done),
            event("old-open", 0, status=TaskStatus.running),
            event("new-done", 60, status=TaskStatus.abandoned),
        ]
    ).values()
    week = T0 + dt.timedelta(days=7, minutes=30)
    assert [t.id for t in live(tasks, week, keep_days=7)] == ["new-done", "old-open"]
    assert [t.id for t in live(tasks, week + dt.timedelta(hours=1), keep_days=7)] == ["old-open"]


def test_a_running_task_without_news_reads_not_confirmed_never_done() -> None:
    (task,) = fold([event("r3", 0, status=TaskStatus.running, title="train.py r3")]).values()
    soon, later = T0 + dt.timedelta(minutes=37), T0 + dt.timedelta(hours=7)
    assert not is_stale(task, soon, 6) and is_stale(task, later, 6)
    assert "running since" in line(task, soon, 6) and "(37 min ago)" in line(task, soon, 6)
    stale = line(task, later, 6)
    assert "last seen running" in stale and "not confirmed since" in stale
    assert "done" not in stale


def test_a_line_quotes_the_result_and_says_who_and_where() -> None:
    (task,) = fold(
        [
            event(
                "r3",
                0,
                status=TaskStatus.running,
                title="train.py --config r3",
                log_path="logs/r3.log",
                job="4242",
                host="gpu1",
            ),
            event("r3", 40, status=TaskStatus.done, agent="codex", result="r3 finished: CER 11.2%"),
        ]
    ).values()
    text = line(task, T0 + dt.timedelta(minutes=45), 6)
    assert text.startswith("train.py --config r3: done ")
    assert 'result (codex): "r3 finished: CER 11.2%"' in text
    assert "started by claude-code on gpu1" in text and "log logs/r3.log" in text
    assert "job 4242" in text


def test_ages_read_naturally() -> None:
    assert ago(T0, T0 + dt.timedelta(seconds=30)) == "just now"
    assert ago(T0, T0 + dt.timedelta(minutes=37)) == "37 min ago"
    assert ago(T0, T0 + dt.timedelta(hours=5)) == "5 h ago"
    assert ago(T0, T0 + dt.timedelta(days=3)) == "3 days ago"


def test_pages_are_one_commit_per_call_and_none_when_nothing_changed(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    init_repo(root)
    events = [
        event("r3", 0, status=TaskStatus.running, title="train.py r3"),
        event("pr", 5, status=TaskStatus.waiting, title="PR: rename", project="tablekit"),
        event("loose", 6, status=TaskStatus.running, title="no project", project=None),
    ]
    now = T0 + dt.timedelta(minutes=10)
    repo = git.Repo(root)
    before = len(list(repo.iter_commits())) if repo.head.is_valid() else 0
    sha = write_pages(root, fold(events).values(), now, 6)
    assert sha is not None
    assert len(list(repo.iter_commits())) == before + 1
    assert sorted(repo.head.commit.stats.files) == [page_path("tablekit"), page_path("tabsense")]
    page = (root / page_path("tabsense")).read_text(encoding="utf-8")
    assert page == markdown("tabsense", [fold(events)["r3"]], now, 6)
    assert "## Open" in page and "`r3` train.py r3: running since" in page
    assert write_pages(root, fold(events).values(), now, 6) is None
    assert len(list(repo.iter_commits())) == before + 1
