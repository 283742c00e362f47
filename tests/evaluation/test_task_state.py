"""Task state in the evaluation: timestamped task events, seen by a probe strictly before its
time; keys that name tasks across runs; the task-state metrics; and the demo's status
follow-ups (what they measure, not how many hit)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluation.harness.environment import EnvironmentLoadError, load_environment
from evaluation.harness.judges import gold_verdict
from evaluation.harness.metrics import point_estimates, task_shares, turn_record
from evaluation.harness.probes import Probe
from evaluation.harness.run import answer_all, run_evaluation
from evaluation.harness.snapshots import SnapshotStore
from evaluation.harness.systems import SHIPPED, DoseMem, InjectedCard, Injection, per_turn
from evaluation.harness.task_feed import TASK_EVENTS_FILE, TaskBoards
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import get_settings
from memory_repo.tasks.model import TaskStatus
from profiles.model import load_profiles
from tests.evaluation.cli import eval_json
from tests.evaluation.tiny_env import TZ

DEMO = Path(__file__).resolve().parents[2] / "evaluation" / "envs" / "demo"
DAY = dt.date(2026, 1, 21)
ASKED = dt.datetime.combine(DAY, dt.time(11, 0), tzinfo=TZ)  # the first status probe


def _bash(at: dt.datetime, cwd: str, command: str, stdout: str = "") -> dict[str, object]:
    return {
        "source": "claude-code",
        "event": "PostToolUse",
        "payload": {
            "session_id": "s-tasks",
            "cwd": cwd,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": stdout},
        },
    }


def _line(at: dt.datetime, report: dict[str, object], key: str | None = None) -> str:
    line: dict[str, object] = {"at": at.isoformat(), "agent": "coder", "report": report}
    if key:
        line["key"] = key
    return json.dumps(line, ensure_ascii=False)


def _status_probe(
    pid: str, agent: str, at: dt.datetime, prompt: str, tasks: list[str], cwd: str | None
) -> dict[str, object]:
    return {
        "id": pid,
        "session_id": f"s-{pid}",
        "agent": agent,
        "profile": "full" if agent == "hermes" else "working",
        "timestamp": at.isoformat(),
        "prompt": prompt,
        "cwd": cwd,
        "turn": 1,
        "split": "test",
        "tags": ["task"],
        "gold": {"needs_memory": bool(tasks), "necessary_tasks": tasks},
    }


@pytest.fixture
def task_env(tiny_env: Path) -> Path:
    """The tiny env plus r3 in alpha and in beta; alpha's r3 finishes one second after the
    first status probe; three status probes (one whose answer is silence)."""
    start = ASKED - dt.timedelta(hours=2)
    lines = [
        _line(
            start,
            _bash(start, "/code/alpha", "nohup python train.py --config r3 > a.log &"),
            "a-r3",
        ),
        _line(
            start, _bash(start, "/code/beta", "nohup python train.py --config r3 > b.log &"), "b-r3"
        ),
        _line(
            ASKED + dt.timedelta(seconds=1),
            {
                "source": "claude-code",
                "event": "Stop",
                "payload": {
                    "session_id": "s-tasks",
                    "cwd": "/code/alpha",
                    "hook_event_name": "Stop",
                    "last_assistant_message": "r3 finished: F1 0.90",
                },
            },
            "a-r3",
        ),
    ]
    (tiny_env / TASK_EVENTS_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    probes = [
        _status_probe("x1", "coder", ASKED, "r3 跑完了吗？", ["a-r3"], "/code/alpha"),
        _status_probe(
            "x2", "coder", ASKED + dt.timedelta(minutes=5), "r3 finished?", ["a-r3"], "/code/alpha"
        ),
        _status_probe("x3", "hermes", ASKED + dt.timedelta(minutes=9), "is r9 done?", [], None),
    ]
    with (tiny_env / "probes.jsonl").open("a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in probes))
    return tiny_env


def test_a_probe_sees_only_events_strictly_before_its_time(task_env: Path, tmp_path: Path) -> None:
    env = load_environment(task_env, tmp_path / "work")
    assert env.tasks is not None and env.tasks.problems == []
    boards = TaskBoards(env.tasks, tmp_path / "boards")
    alpha = env.tasks.keys["a-r3"]
    # The finish is one second after the probe: not seen then, nor at its own second.
    assert boards.at(ASKED).tasks()[alpha].status == TaskStatus.running
    assert len(env.tasks.before(ASKED)) == 2
    finished = ASKED + dt.timedelta(seconds=1)
    assert boards.at(finished).tasks()[alpha].status == TaskStatus.running
    later = boards.at(finished + dt.timedelta(microseconds=1))
    assert later.tasks()[alpha].status == TaskStatus.done
    assert later.now() == finished + dt.timedelta(microseconds=1)  # the clock is the probe's
    assert boards.at(ASKED - dt.timedelta(hours=3)).tasks() == {}


def test_keys_name_tasks_and_an_explicit_update_by_key_gets_the_id(
    task_env: Path, tmp_path: Path
) -> None:
    path = task_env / TASK_EVENTS_FILE
    update = {"source": "mcp", "event": "task_update", "status": "abandoned", "result": "stop"}
    wrong = _bash(ASKED, "/code/beta", "tail -n 1 b.log", "epoch 3")  # reads beta's log
    with path.open("a", encoding="utf-8") as fh:
        fh.write(_line(ASKED + dt.timedelta(minutes=1), update, "b-r3") + "\n")
        fh.write(_line(ASKED + dt.timedelta(seconds=30), wrong, "a-r3") + "\n")
    env = load_environment(task_env, tmp_path / "work")
    assert env.tasks is not None
    keys, events = env.tasks.keys, env.tasks.events
    assert keys["a-r3"] != keys["b-r3"]
    assert {e.task for e in events if e.project == "alpha"} == {keys["a-r3"]}
    assert env.tasks.name(keys["b-r3"]) == "task:b-r3"
    beta = TaskBoards(env.tasks, tmp_path / "b").at(ASKED + dt.timedelta(hours=1)).tasks()
    assert beta[keys["b-r3"]].status == TaskStatus.abandoned
    # The last line reads beta's log but says it is about a-r3: listed as a problem.
    (problem,) = env.tasks.problems
    assert "key 'a-r3'" in problem and "made task:b-r3" in problem


def test_a_probe_naming_an_unknown_task_key_is_a_load_error(task_env: Path, tmp_path: Path) -> None:
    path = task_env / "probes.jsonl"
    extra = _status_probe("x9", "hermes", ASKED, "is r4 done?", ["no-such-key"], None)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(extra) + "\n")
    with pytest.raises(EnvironmentLoadError, match="no-such-key"):
        load_environment(task_env, tmp_path / "work")


def _record(probe: Probe, ids: list[str]) -> object:
    injection = Injection(
        items=[InjectedCard(id=i, text=i, bytes=10) for i in ids], bytes=10 * len(ids)
    )
    return turn_record("s", probe, injection, gold_verdict(probe, injection))


def test_task_metrics_count_all_necessary_tasks_and_silence(task_env: Path, tmp_path: Path) -> None:
    env = load_environment(task_env, tmp_path / "work")
    by_id = {p.id: p for p in env.probes}
    status, quiet = by_id["x1"], by_id["x3"]
    hit = _record(status, ["task:a-r3", "task:b-r3"])
    assert hit.task_need and hit.task_hit and hit.served and hit.labels["task:a-r3"] == "necessary"
    assert not _record(status, ["task:b-r3"]).task_hit  # the other project's r3 is not it
    assert not _record(status, []).served
    assert _record(quiet, []).task_hit and _record(quiet, []).task_quiet
    assert not _record(quiet, ["teal"]).task_hit  # silence means nothing at all
    records = [hit, _record(status, []), _record(quiet, []), _record(quiet, ["teal"])]
    m = point_estimates(records)
    assert m["task_status_hit_rate"] == 0.5 and m["task_silence"] == 0.5
    assert m["task_hit_rate"] == 0.5 and m["served"] == 0.5


def test_eval_reports_task_state_beside_the_existing_metrics(
    task_env: Path, tmp_path: Path
) -> None:
    data, out = eval_json(task_env, tmp_path)
    assert {"dose-mem", "dose-mem/no-tasks"} <= set(data["systems"])
    assert set(data["systems"]["dose-mem"]) == set(data["systems"]["dense"])  # same keys as ever
    with_, without = data["served"]["with_task_state"], data["served"]["without_task_state"]
    assert with_["probes"] == without["probes"] and with_["count"] > without["count"]
    state = data["task_state"]
    assert state["dose-mem/no-tasks"]["task_status_hit_rate"]["count"] == 0
    assert state["dense"]["task_status_hit_rate"]["count"] == 0  # peers never see tasks
    assert state["dose-mem"]["task_status_hit_rate"]["count"] == 2  # x1 (running), x2 (done)
    assert state["dose-mem"]["task_silence"]["count"] == 1  # r9 never existed
    assert data["task_problems"] == []
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Task state" in report and "memory-needing turns served" in report
    header = next(line for line in report.splitlines() if line.startswith("| system | hit_rate"))
    assert header.endswith("| composite | task_hit_rate | served |")


def test_an_environment_without_task_events_has_no_task_rows(
    tiny_env: Path, tmp_path: Path
) -> None:
    result = run_evaluation(
        tiny_env, get_settings(home=tmp_path / "home"), workdir=tmp_path / "w", only=["dose-mem"]
    )
    assert task_shares(result.records) == {} and "dose-mem/no-tasks" not in result.systems


# -- the demo's status follow-ups -------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[Probe], dict]]:
    """The demo's task probes answered by dose-mem (shipped profiles) with task state,
    every line given on every turn (``per_turn``): these tests read what each answer
    says, and a line the agent already holds is not given again (that is scored in
    test_session_scoring.py)."""
    work = tmp_path_factory.mktemp("demo")
    env = load_environment(DEMO, work / "env")
    assert env.tasks is not None
    profiles = {name: per_turn(p) for name, p in load_profiles().items()}
    store = SnapshotStore(env, work, make_embedder(get_settings(home=work / "home")), profiles)
    boards = TaskBoards(env.tasks, work / "boards")
    probes = [p for p in env.probes if p.gold and p.gold.is_task_probe]
    answers = {}
    for name, tasks in (("with", boards), ("without", None)):
        system = DoseMem("dose-mem", profiles, env.spec, shipped=True, tasks=tasks)
        answers[name] = answer_all(system, probes, env, store, lambda _g: SHIPPED)
    yield probes, answers


def _trap(probe: Probe) -> str:
    return next(t.removeprefix("trap:") for t in probe.tags if t.startswith("trap:"))


def _text(answer: Injection, key: str) -> str:
    return next(i.text for i in answer.items if i.id == f"task:{key}")


def test_demo_has_status_follow_ups_for_every_trap(demo: tuple[list[Probe], dict]) -> None:
    probes, _ = demo
    traps = {_trap(p) for p in probes}
    assert len(probes) >= 30
    assert {"finished_hours_ago", "stale", "two_projects", "abandoned", "never_existed"} <= traps
    assert {"other_project", "pr_link", "personal"} <= traps
    assert sum(p.gold.necessary_tasks == [] for p in probes) >= 5
    assert {p.agent for p in probes} == {"hermes", "claude-code", "codex", "calendar"}


def test_demo_without_task_state_serves_no_status_follow_up(demo: tuple[list[Probe], dict]) -> None:
    probes, answers = demo
    for p in probes:
        assert not any(i.id.startswith("task:") for i in answers["without"][p.id].items)
    needed = [p for p in probes if p.gold.necessary_tasks]
    served = [
        p
        for p in needed
        if {f"task:{k}" for k in p.gold.necessary_tasks} <= set(answers["with"][p.id].ids)
    ]
    assert len(served) > len(needed) / 2


def test_demo_runs_that_never_existed_get_nothing(demo: tuple[list[Probe], dict]) -> None:
    probes, answers = demo
    # The ones named like a run (r9, test_grid, eval-7, v2, a project with no task).
    named = [
        p
        for p in probes
        if _trap(p) == "never_existed" and any(c.isascii() and c.isalnum() for c in p.prompt)
    ]
    assert len(named) >= 5
    for p in named:
        assert answers["with"][p.id].items == [], p.id


def test_demo_stale_tasks_are_said_not_confirmed_and_finished_ones_done(
    demo: tuple[list[Probe], dict],
) -> None:
    probes, answers = demo
    seen = set()
    for p in probes:
        answer, trap = answers["with"][p.id], _trap(p)
        if trap == "stale":
            (key,) = p.gold.necessary_tasks
            assert "not confirmed since" in _text(answer, key), p.id
        elif trap in ("finished_hours_ago", "finished_days_ago", "just_finished"):
            (key,) = p.gold.necessary_tasks
            assert ": done " in _text(answer, key), p.id
        elif trap == "same_second":  # the finish is reported at the probe's own second
            (key,) = p.gold.necessary_tasks
            assert "running since" in _text(answer, key), p.id
        elif trap == "pr_link":
            assert "https://github.com/lin/tablekit/pull/42" in _text(answer, "tk-pr"), p.id
        elif trap == "two_projects":
            assert {f"task:{k}" for k in p.gold.necessary_tasks} <= set(answer.ids), p.id
        else:
            continue
        seen.add(trap)
    assert seen == {
        "stale",
        "finished_hours_ago",
        "finished_days_ago",
        "just_finished",
        "same_second",
        "pr_link",
        "two_projects",
    }


def test_demo_personal_agent_never_sees_a_research_task(demo: tuple[list[Probe], dict]) -> None:
    probes, answers = demo
    for p in probes:
        if p.agent == "calendar":
            assert not any(
                i.id.startswith("task:") and i.id != "task:home-dentist"
                for i in answers["with"][p.id].items
            )


# Bugs found while writing the demo's events (reported, not fixed here: the task code
# belongs to memory_repo/tasks and recall_api). strict: a fix turns these into failures,
# so whoever fixes one moves it up.


def test_demo_reading_a_log_updates_the_task_of_its_own_project(tmp_path: Path) -> None:
    env = load_environment(DEMO, tmp_path / "env")
    assert env.tasks is not None
    assert env.tasks.problems == []


def test_demo_a_killed_background_sweep_stays_abandoned(demo: tuple[list[Probe], dict]) -> None:
    probes, answers = demo
    (p,) = [p for p in probes if _trap(p) == "abandoned" and p.agent == "claude-code"]
    assert ": abandoned " in _text(answers["with"][p.id], "tk-sweep")


def test_demo_a_working_token_asking_about_another_project_gets_nothing(
    demo: tuple[list[Probe], dict],
) -> None:
    probes, answers = demo
    for p in probes:
        if _trap(p) == "other_project":
            assert answers["with"][p.id].items == [], p.id
