"""``dose-mem tasks``: what a person reads, and ``--write`` committing the pages once."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import git

from memory_repo.bootstrap import init_memory
from memory_repo.settings import Settings
from memory_repo.tasks import journal
from memory_repo.tasks.model import TaskEvent, TaskStatus
from memory_repo.tasks.pages import page_path

DOSE_MEM = str(Path(sys.executable).with_name("dose-mem"))


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [DOSE_MEM, "--home", str(home), "tasks", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_lists_live_tasks_hides_retired_ones_and_writes_pages_once(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    init_memory(settings.memory_path)
    now = dt.datetime.now(dt.UTC)
    for task, project, status, age in (
        ("r3-0001", "tabsense", TaskStatus.running, dt.timedelta(minutes=20)),
        ("old-0002", "tabsense", TaskStatus.done, dt.timedelta(days=9)),
        ("pr-0003", "tablekit", TaskStatus.waiting, dt.timedelta(hours=1)),
    ):
        journal.append(
            settings.tasks_path,
            TaskEvent(
                id=task,
                task=task,
                at=now - age,
                agent="claude-code",
                source="test",
                project=project,
                status=status,
                title=f"title of {task}",
            ),
        )
    with settings.tasks_path.open("a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    shown = run(settings.home)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["r3-0001", "pr-0003"]
    assert "[tabsense]  title of r3-0001: running since" in lines[0]
    assert f"skipped {settings.tasks_path}:4: JSONDecodeError" in shown.stderr
    every = run(settings.home, "--all", "--project", "tabsense")
    assert [line.split()[0] for line in every.stdout.splitlines()] == ["r3-0001", "old-0002"]

    repo = git.Repo(settings.memory_path)
    before = len(list(repo.iter_commits()))
    first = run(settings.home, "--write")
    assert first.returncode == 0 and "task pages: " in first.stdout
    assert len(list(repo.iter_commits())) == before + 1
    assert (settings.memory_path / page_path("tablekit")).is_file()
    again = run(settings.home, "--write")
    assert again.stdout.strip() == "task pages: unchanged"
    assert len(list(repo.iter_commits())) == before + 1
