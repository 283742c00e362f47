"""A scope the token may see but that holds nothing answers ``no_hits``, not
``out_of_scope``; a ``coding`` project is scoped like a research one, never as personal;
a result is either quiet with its reason or a dose whose ``bytes`` are its text's."""

from __future__ import annotations

import datetime as dt

import pytest

from memory_repo.history import commit, init_repo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import make_embedder
from memory_repo.models import ProjectKind
from memory_repo.registry import load_registry
from memory_repo.settings import Settings
from profiles.model import load_profiles
from recall_api.engine import RecallEngine
from recall_api.models import Identity, Reason, RecallRequest, RecallResult

REGISTRY = """\
projects:
  - {id: tool, name: Tool, paths: [/code/tool], kind: coding}
  - {id: empty, name: Empty, paths: [/code/empty], kind: coding}
  - {id: home, name: Home, paths: [], kind: personal}
"""
CARD = """\
---
id: {id}
type: convention
project: {project}
conclusion: "{text}"
created: 2026-01-01
---
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> RecallEngine:
    root = tmp_path_factory.mktemp("kinds")
    memory = root / "memory"
    init_repo(memory)
    (memory / "registry.yaml").write_text(REGISTRY, encoding="utf-8")
    files = {
        "projects/tool/cards/tool-tests.md": CARD.format(
            id="tool-tests", project="tool", text="Tool runs its tests with uv run pytest -x."
        ),
        "projects/home/cards/home-plants.md": CARD.format(
            id="home-plants", project="home", text="Water the plants on Sunday mornings."
        ),
    }
    for rel, text in files.items():
        (memory / rel).parent.mkdir(parents=True, exist_ok=True)
        (memory / rel).write_text(text, encoding="utf-8")
    commit(memory, ["registry.yaml", *files], "cards")
    embedder = make_embedder(Settings(home=root))
    rebuild(memory, root / "index", embedder)
    return RecallEngine(
        memory, root / "index", load_profiles(), embedder, today=lambda: dt.date(2026, 2, 1)
    )


def _recall(engine: RecallEngine, profile: str, prompt: str, **where: str) -> RecallResult:
    who = Identity(agent="a", profile=profile, projects=None)
    request = RecallRequest(prompt=prompt, session_id=f"s-{profile}-{prompt}", turn=1, **where)
    return engine.recall(who, request)


def test_coding_is_a_project_kind(engine: RecallEngine) -> None:
    registry = load_registry(engine.memory_root)
    assert registry.get("tool").kind == ProjectKind.coding


def test_an_empty_scope_the_token_may_see_answers_no_hits(engine: RecallEngine) -> None:
    result = _recall(engine, "working", "how do I run the tests here?", cwd="/code/empty")
    assert result.project == "empty"
    assert result.reason == Reason.no_hits and not result.injected


def test_a_project_the_token_may_not_see_stays_out_of_scope(engine: RecallEngine) -> None:
    who = Identity(agent="a", profile="working", projects=["tool"])
    request = RecallRequest(prompt="how do I run tests?", session_id="x", turn=1, project="home")
    assert engine.recall(who, request).reason == Reason.out_of_scope


def test_a_coding_project_is_scoped_like_research_not_personal(engine: RecallEngine) -> None:
    working = _recall(engine, "working", "how do I run the tests here?", cwd="/code/tool")
    assert [i.id for i in working.items] == ["tool-tests"]
    full = _recall(engine, "full", "how does Tool run its tests with pytest?")
    assert "tool-tests" in [i.id for i in full.items]
    personal = _recall(engine, "personal", "how does Tool run its tests with pytest?")
    assert "tool-tests" not in [i.id for i in personal.items]


def test_a_quiet_result_needs_a_reason_other_than_injected() -> None:
    quiet = RecallResult.quiet(Reason.no_hits, profile="working", trigger="first_turn")
    assert (quiet.injected, quiet.reason, quiet.text, quiet.bytes) == (
        False,
        Reason.no_hits,
        "",
        0,
    )
    with pytest.raises(ValueError, match="quiet"):
        RecallResult.quiet(Reason.injected, profile="working")


def test_a_dose_counts_the_bytes_of_its_text() -> None:
    dose = RecallResult.dose([], "统一用 uv 管理环境", profile="full", considered=3)
    assert (dose.injected, dose.reason, dose.bytes, dose.considered) == (
        True,
        Reason.injected,
        len("统一用 uv 管理环境".encode()),
        3,
    )
