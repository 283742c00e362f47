"""Which demo items are recallable: expiry by type, supersedes chains, archived cards/projects."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memory_repo import lifecycle as lc
from memory_repo.demo import DEMO_IDS, DEMO_TODAY, build_demo
from memory_repo.models import CardType, Item, Registry
from memory_repo.store import Memory, load_memory


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    root = tmp_path_factory.mktemp("demo") / "memory"
    build_demo(root)
    return load_memory(root)


def _item(item_id: str, kind: CardType, project: str = "global", **kw: object) -> Item:
    return Item(
        id=item_id,
        type=kind,
        project=project,
        created=dt.date(2026, 1, 1),
        path=f"{item_id}.md",
        title=item_id,
        **kw,
    )


@pytest.mark.parametrize(
    ("kind", "days"),
    [
        (CardType.result, 180),
        (CardType.decision, 365),
        (CardType.preference, None),
        (CardType.pitfall, None),
        (CardType.convention, None),
        (CardType.habit, None),
    ],
)
def test_expiry_defaults_by_type(kind: CardType, days: int | None) -> None:
    item = _item("a", kind)
    want = None if days is None else dt.date(2026, 1, 1) + dt.timedelta(days=days)
    assert lc.expiry(item) == want
    explicit = _item("b", kind, expires=dt.date(2026, 2, 1))
    assert lc.expiry(explicit) == dt.date(2026, 2, 1)


def test_supersedes_chain_across_projects() -> None:
    items = {
        "a": _item("a", CardType.fact, "tablekit"),
        "b": _item("b", CardType.fact, "global", supersedes=["a"]),
        "c": _item("c", CardType.fact, "tabsense", supersedes=["b"]),
    }
    assert lc.superseded_ids(items.values()) == {"a", "b"}
    assert lc.supersedes_cycles({"a": ["b"], "b": ["a"]}) == [["a", "b"]]


def _recallable(memory: Memory, key: str) -> bool:
    superseded = lc.superseded_ids(memory.items.values())
    item = memory.items[DEMO_IDS[key]]
    return lc.is_recallable(item, DEMO_TODAY, superseded, memory.registry)


@pytest.mark.parametrize(
    ("key", "recallable"),
    [
        ("amber", False),
        ("teal", True),
        ("dataframes_decision", False),
        ("table_objects_decision", True),
        ("expired_result", False),
        ("tabsense_result", True),
        ("archived_status", False),
        ("archived_card", False),
        ("archived_pitfall", False),
        ("uv", True),
        ("weekly_review", True),
    ],
)
def test_demo_lifecycle(demo: Memory, key: str, recallable: bool) -> None:
    assert _recallable(demo, key) is recallable


def test_demo_expired_result_is_old_enough(demo: Memory) -> None:
    result = demo.items[DEMO_IDS["expired_result"]]
    assert result.type == CardType.result
    assert (DEMO_TODAY - result.created).days > 180
    assert lc.expiry(result) <= DEMO_TODAY


def test_demo_archived_project_stays_readable_by_id(demo: Memory) -> None:
    card = demo.items[DEMO_IDS["archived_card"]]
    assert card.project == "ocr-legacy"
    assert lc.is_archived(card, demo.registry)
    assert not lc.is_archived(card, Registry())


def test_demo_uses_every_type_and_merged_evidence(demo: Memory) -> None:
    assert {i.type for i in demo.items.values()} == set(CardType)
    pitfall = demo.items[DEMO_IDS["pdfplumber_pitfall"]]
    assert len(pitfall.evidence) == 2  # one in the card, one appended in the sidecar
    auto = [i for i in demo.items.values() if i.source == "auto"]
    assert auto and all(e.quote and e.session and e.at for i in auto for e in i.evidence)


def test_demo_shifts_with_today(tmp_path: Path) -> None:
    later = DEMO_TODAY + dt.timedelta(days=400)
    build_demo(tmp_path / "m", today=later)
    memory = load_memory(tmp_path / "m")
    superseded = lc.superseded_ids(memory.items.values())
    live = {
        i.id
        for i in memory.items.values()
        if lc.is_recallable(i, later, superseded, memory.registry)
    }
    assert DEMO_IDS["tabsense_result"] in live
    assert DEMO_IDS["expired_result"] not in live
