"""Task state in a real ingest flow run: a session finishes a task, its result is offered
to the judge once, and the task pages get one commit per run."""

from __future__ import annotations

import datetime as dt

import git
import yaml

from flows.ingest import ingest
from memory_repo.bootstrap import init_memory
from memory_repo.history import commit
from memory_repo.inbox import add_session
from memory_repo.settings import get_settings
from memory_repo.store import load_memory
from memory_repo.tasks import journal
from memory_repo.tasks.fold import fold
from memory_repo.tasks.model import TaskEvent, TaskStatus
from memory_repo.tasks.pages import page_path
from memory_repo.transcripts.readers import TRANSCRIPT_FORMAT
from memory_repo.transcripts.transcript import Transcript, Turn

AT = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.UTC)
FINISH = "看了一下日志，r3 跑完了，dev CER 11.2%。"  # the whole sentence is the quote


def test_a_session_that_says_r3_finished_finishes_it_once(harness, home) -> None:
    init_memory(home.memory)
    registry = {"projects": [{"id": "tabsense", "name": "TabSense", "paths": ["/w/tabsense"]}]}
    (home.memory / "registry.yaml").write_text(yaml.safe_dump(registry), encoding="utf-8")
    commit(home.memory, ["registry.yaml"], "registry")
    settings = get_settings()
    journal.append(
        settings.tasks_path,
        TaskEvent(
            id="e1",
            task="train-r3-0001",
            at=AT,
            agent="claude-code",
            source="claude-code:PostToolUse",
            project="tabsense",
            status=TaskStatus.running,
            title="train.py --config r3",
            log_path="logs/r3.log",
        ),
    )
    session = Transcript(
        session_id="h-9",
        agent="hermes",
        cwd="/w/tabsense",
        turns=[
            Turn(role="user", text="早上好", at=AT + dt.timedelta(hours=3)),
            Turn(role="user", text=f"{FINISH}下一步跑 r4。", at=AT + dt.timedelta(hours=3)),
            Turn(role="assistant", text="好的，我来准备 r4 的配置。"),
            Turn(role="user", text="r5 还在跑，没完成。"),  # names no task, and says not done
            Turn(role="user", text="谢谢"),
        ],
    )
    add_session(settings, session.model_dump_json().encode(), "hermes", TRANSCRIPT_FORMAT)

    first = ingest(home=str(home.root))
    assert first.task_events == 1 and first.task_results_offered == 1
    events, problems = journal.read(settings.tasks_path)
    assert problems == []
    task = fold(events)["train-r3-0001"]
    assert (task.status, task.result, task.finished_by) == (TaskStatus.done, FINISH, "hermes")
    assert sum(first.decisions.values()) == 1  # the offered result, decided like any fact
    cards = load_memory(home.memory).items.values()
    assert all(FINISH in c.conclusion for c in cards if c.type == "result")
    repo = git.Repo(home.memory)
    assert first.task_pages_commit == repo.head.commit.hexsha
    assert list(repo.head.commit.stats.files) == [page_path("tabsense")]
    page = (home.memory / page_path("tabsense")).read_text(encoding="utf-8")
    assert "train.py --config r3: done" in page and FINISH in page

    head = repo.head.commit.hexsha
    again = ingest(home=str(home.root))
    assert (again.task_events, again.task_results_offered) == (0, 0)
    assert again.task_pages_commit is None and again.commit is None
    assert repo.head.commit.hexsha == head
