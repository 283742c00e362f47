"""Which tasks a status question asks about, and when the honest answer is none."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memory_repo.models import Project, ProjectKind, Registry
from memory_repo.tasks.model import Task, TaskStatus
from profiles.model import load_profiles
from recall_api.models import Identity
from recall_api.task_board import TaskBoard

T0 = dt.datetime(2026, 12, 4, 14, 2, tzinfo=dt.UTC)
REGISTRY = Registry(
    projects=[
        Project(id="tabsense", name="TabSense", paths=["/w/tabsense"]),
        Project(id="tablekit", name="TableKit", paths=["/w/tablekit"]),
        Project(id="life", name="Life", kind=ProjectKind.personal),
    ]
)


def task(id: str, title: str, project: str | None, minutes: int = 0, agent: str = "cc") -> Task:
    at = T0 - dt.timedelta(minutes=minutes)
    return Task(
        id=id,
        project=project,
        title=title,
        status=TaskStatus.running,
        started=at,
        updated=at,
        agent=agent,
    )


TASKS = [
    task("r3", "train.py --config r3", "tabsense", 5),
    task("bench", "make bench", "tablekit", 10),
    task("pr", "PR: rename parse_table", "tablekit", 20),
    task("dentist", "约周六上午的牙医（李医生）", None, 30, agent="calendar"),
]


# In the journal, but not among the tasks a tablekit working token is shown.
HIDDEN = task("viznet", "scripts/eval_viznet.sh", "tabsense", 40)


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TaskBoard:
    board = TaskBoard(tmp_path / "e.jsonl", stale_hours=6, keep_days=7, now=lambda: T0)
    monkeypatch.setattr(board, "tasks", lambda: {t.id: t for t in [*TASKS, HIDDEN]})
    return board


@pytest.mark.parametrize(
    ("prompt", "project", "ids"),
    [
        ("r3 跑完了吗？", None, ["r3"]),
        ("benchmark finished?", "tablekit", ["bench"]),  # a prefix names "make bench"
        ("is it done?", "tablekit", ["bench", "pr"]),  # generic: the project's recent ones
        ("跑完了吗？", None, ["r3", "bench", "pr"]),
        ("tabsense 那边跑完了吗？", "tablekit", ["r3"]),  # a named project narrows
        ("did r7 finish?", None, None),  # a run that never existed
        ("is eval-7 finished?", None, None),
        ("is the viznet eval done?", "tablekit", None),  # a task this token is not shown
        ("还在跑吧？loss 降得怎么样", "tablekit", ["bench", "pr"]),  # plain words: generic
        ("牙医预约好了吗？", None, ["dentist"]),  # Chinese words name a Chinese title
        ("tablekit 的 r3 跑完了吗？", None, None),  # r3 exists, but not in tablekit
    ],
)
def test_answer(board: TaskBoard, prompt: str, project: str | None, ids: list[str] | None):
    found = board.answer(prompt, TASKS, project, REGISTRY)
    assert (None if found is None else [t.id for t in found]) == ids


def test_a_personal_agent_sees_its_own_errand_and_nobody_elses(board: TaskBoard) -> None:
    personal = load_profiles()["personal"]
    mine = Identity(agent="calendar", profile="personal", projects=None, token_id="c")
    other = Identity(agent="mail", profile="personal", projects=None, token_id="m")
    assert [t.id for t in board.visible(mine, personal, REGISTRY, None)] == ["dentist"]
    assert board.visible(other, personal, REGISTRY, None) == []
