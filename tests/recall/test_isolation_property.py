"""Property: whatever the tokens, profiles, cwd, prompts and memory, nothing leaks.

Hypothesis draws whole memories (registry, projects of both kinds and statuses, cards of
every type with supersedes links), builds a real index for each, then fires random
recalls and searches at it, with tasks in flight in every project (and outside any) and
status questions among the prompts. No card or task may come from a project outside the
token's set or outside the profile's scope, and injected text never exceeds the
profile's budget.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_repo.cards import render_card
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.models import GLOBAL, Card, CardType, ProjectKind
from memory_repo.settings import Settings
from memory_repo.tasks import journal
from memory_repo.tasks.model import TaskEvent, TaskStatus
from profiles.model import Gate, Profile, ScopeKind, load_profiles
from recall_api.assemble import TASK_ITEM
from recall_api.engine import RecallEngine
from recall_api.models import Identity, RecallRequest
from recall_api.task_board import TaskBoard

WORDS = (
    "uv",
    "conda",
    "parse_table",
    "detect_cells",
    "licence",
    "dataset",
    "table",
    "cells",
    "pdf",
    "tests",
    "amber",
    "teal",
    "calendar",
    "meeting",
    "review",
    "mail",
    "budget",
    "1",
    "200",
    "environment",
    "python",
    "数据",
    "环境",
    "表格",
    "测试",
    "习惯",
    "会议",
    "许可证",
    "回顾",
    "邮件",
    "配置",
    "目录",
    "把 parse_table 改个名",
    "帮我配一下这个项目的环境",
    "按我的习惯",
    "跑一下测试",
    "未驗證的條目",
    "",
)
TODAY = dt.date(2026, 11, 30)
PROFILES = load_profiles()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """The shipped default: English and multilingual models side by side, with the
    gate's bilingual bridge, so Chinese and mixed prompts take every path."""
    return make_embedder(Settings())


STATUS = ("r3 跑完了吗？", "is it done?", "did train finish?", "eval 进度怎么样了", "PR link?")
sentence = st.lists(st.sampled_from(WORDS), min_size=2, max_size=9).map(" ".join)
prompts = st.one_of(
    sentence, st.sampled_from(STATUS), st.tuples(sentence, st.sampled_from(STATUS)).map(" ".join)
)


@st.composite
def memories(draw: st.DrawFn) -> dict:
    n = draw(st.integers(2, 5))
    projects = [
        {
            "id": f"p{i}",
            "name": f"Project {i}",
            "aliases": [f"alias{i}"],
            "paths": [f"/work/p{i}"] + ([f"/work/p{i}/sub"] if i % 2 else []),
            "kind": draw(st.sampled_from(["research", "personal"])),
            "status": draw(st.sampled_from(["active", "active", "archived"])),
        }
        for i in range(n)
    ]
    owners = [GLOBAL] + [p["id"] for p in projects]
    cards = []
    for j in range(draw(st.integers(4, 14))):
        earlier = [c["id"] for c in cards]
        cards.append(
            {
                "id": f"c{j}",
                "type": draw(st.sampled_from(list(CardType))),
                "project": draw(st.sampled_from(owners)),
                "conclusion": draw(sentence),
                "body": draw(sentence) + "。\n\n## Detail\n\n" + draw(sentence) + ".",
                "supersedes": draw(st.lists(st.sampled_from(earlier), max_size=1))
                if earlier
                else [],
                "age": draw(st.integers(0, 400)),
            }
        )
    tasks = [
        {
            "project": draw(st.sampled_from([None, *[p["id"] for p in projects]])),
            "title": draw(st.sampled_from(["train.py --config r3", "eval.py", "PR: rename", "r4"])),
            "status": draw(st.sampled_from(list(TaskStatus))),
            "hours": draw(st.integers(0, 300)),
        }
        for _ in range(draw(st.integers(0, 8)))
    ]
    return {"projects": projects, "cards": cards, "tasks": tasks}


def write_tasks(path: Path, tasks: list[dict]) -> None:
    now = dt.datetime.combine(TODAY, dt.time(12), dt.UTC)
    for n, t in enumerate(tasks):
        journal.append(
            path,
            TaskEvent(
                id=f"e{n}",
                task=f"t{n}",
                at=now - dt.timedelta(hours=t["hours"]),
                agent="prop",
                source="test",
                project=t["project"],
                status=t["status"],
                title=t["title"],
            ),
        )


def write_memory(root: Path, memory: dict) -> None:
    root.mkdir(parents=True)
    (root / "registry.yaml").write_text(yaml.safe_dump({"projects": memory["projects"]}))
    for c in memory["cards"]:
        folder = root / "global" if c["project"] == GLOBAL else root / "projects" / c["project"]
        (folder / "cards").mkdir(parents=True, exist_ok=True)
        card = Card(
            id=c["id"],
            type=c["type"],
            project=c["project"],
            conclusion=c["conclusion"],
            created=TODAY - dt.timedelta(days=c["age"]),
            supersedes=c["supersedes"],
        )
        card.body = c["body"]
        (folder / "cards" / f"{c['id']}.md").write_text(render_card(card), encoding="utf-8")


def random_profile(draw: st.DrawFn) -> Profile:
    base = PROFILES[draw(st.sampled_from(sorted(PROFILES)))]
    return base.model_copy(
        update={
            "budget_bytes": draw(st.integers(60, 1500)),
            "max_items": draw(st.integers(1, 6)),
            "gate": Gate(threshold=draw(st.floats(0.0, 0.8)), min_l0_overlap=0),
        }
    )


def in_scope(profile: Profile, item_project: str, item_type: str, kinds: dict, current):
    if profile.scope == ScopeKind.full:
        return True
    if profile.scope == ScopeKind.working:
        if item_project == GLOBAL:
            return item_type in {t.value for t in profile.global_types}
        return item_project == current
    return item_type == CardType.habit.value or kinds.get(item_project) == ProjectKind.personal


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(memory=memories(), data=st.data())
def test_no_leak_and_no_overdose(tmp_path_factory, embedder, memory: dict, data) -> None:
    home = tmp_path_factory.mktemp("prop")
    write_memory(home / "memory", memory)
    rebuild(home / "memory", home / "index", embedder)
    write_tasks(home / "tasks.jsonl", memory["tasks"])
    board = TaskBoard(
        home / "tasks.jsonl",
        stale_hours=6,
        keep_days=7,
        now=lambda: dt.datetime.combine(TODAY, dt.time(12), dt.UTC),
    )
    engine = RecallEngine(
        home / "memory", home / "index", PROFILES, embedder, today=lambda: TODAY, tasks=board
    )
    task_project = {f"t{n}": t["project"] for n, t in enumerate(memory["tasks"])}
    ids = [p["id"] for p in memory["projects"]]
    kinds = {p["id"]: ProjectKind(p["kind"]) for p in memory["projects"]}
    card_project = {c["id"]: c["project"] for c in memory["cards"]}
    for n in range(25):
        allowed = data.draw(st.one_of(st.none(), st.lists(st.sampled_from(ids), unique=True)))
        profile = random_profile(data.draw)
        who = Identity(agent="prop", profile=profile.name, projects=allowed)
        cwd = data.draw(st.sampled_from([None, "/elsewhere", *[f"/work/{i}/x" for i in ids]]))
        prompt = data.draw(prompts)
        project = data.draw(st.sampled_from([None, *ids]))
        request = RecallRequest(
            prompt=prompt,
            session_id=f"s{n % 3}",
            turn=data.draw(st.integers(1, 4)),
            cwd=cwd,
            project=project,
        )
        result = engine.recall(who, request, profile_override=profile)
        assert result.bytes <= profile.budget_bytes
        assert len(result.items) <= profile.max_items
        assert result.bytes == len(result.text.encode("utf-8"))
        current = result.project
        for item in result.items:
            if item.type == TASK_ITEM:
                owner = task_project[item.id]
                # a task outside every project: its own agent's (all are "prop" here)
                # under full or personal, never under working
                assert owner is not None or profile.scope != ScopeKind.working
                assert owner is None or allowed is None or owner in allowed
                if profile.scope == ScopeKind.working:
                    assert owner == current and owner is not None
                if profile.scope == ScopeKind.personal:
                    assert owner is None or kinds.get(owner) == ProjectKind.personal
                continue
            assert item.project == card_project[item.id]
            assert item.project == GLOBAL or allowed is None or item.project in allowed
            assert in_scope(profile, item.project, item.type, kinds, current), (profile, item)
        engine.profiles = {**PROFILES, profile.name: profile}
        for hit in engine.search(who, prompt, project=project, cwd=cwd, k=20):
            assert hit.project == GLOBAL or allowed is None or hit.project in allowed
        engine.profiles = PROFILES
