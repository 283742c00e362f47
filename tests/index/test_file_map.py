"""The file map beside the index answers what the item list it was built from answers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_repo.index.file_map import FileMap
from memory_repo.lifecycle import is_archived, superseded_ids
from memory_repo.models import CardStatus, CardType, Item, Project, ProjectStatus, Registry

IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "中文-卡片", "x'y"])
PROJECTS = ["global", "p1", "p2"]


@st.composite
def memories(draw: st.DrawFn) -> tuple[list[Item], dict[str, str], Registry]:
    ids = draw(st.lists(IDS, unique=True, max_size=8))
    items = [
        Item(
            id=item_id,
            type=CardType.fact,
            project=draw(st.sampled_from(PROJECTS)),
            created=dt.date(2026, 1, 1),
            path=f"cards/{n % 3}.md",
            title=item_id,
            supersedes=draw(st.lists(IDS, max_size=3)),
            status=draw(st.sampled_from(list(CardStatus))),
        )
        for n, item_id in enumerate(ids)
    ]
    hashes = {f"cards/{n}.md": f"h{n}" for n in range(4)}  # cards/3.md holds no items
    archived = draw(st.sets(st.sampled_from(PROJECTS[1:])))
    registry = Registry(
        projects=[
            Project(
                id=p,
                name=p,
                kind="research",
                status=ProjectStatus.archived if p in archived else ProjectStatus.active,
            )
            for p in PROJECTS[1:]
        ]
    )
    return items, hashes, registry


@settings(max_examples=60, deadline=None)
@given(memories())
def test_map_answers_like_the_items(memory: tuple[list[Item], dict[str, str], Registry]) -> None:
    items, hashes, registry = memory
    superseded = superseded_ids(items)
    files = FileMap.of(hashes, items, superseded, registry)
    assert files.paths() == set(hashes)
    assert files.hashes(["cards/1.md", "cards/3.md", "nope.md"]) == {
        "cards/1.md": "h1",
        "cards/3.md": "h3",
    }
    assert files.superseded() == superseded
    assert files.owners(["a", "x'y", "zz"]) == {i.id: i.path for i in items if i.id in {"a", "x'y"}}
    kept = files.without(["cards/0.md"])
    assert kept.paths() == set(hashes) - {"cards/0.md"}
    assert kept.superseded() == superseded_ids(i for i in items if i.path != "cards/0.md")
    flags = {
        r["item_id"]: (r["superseded"], r["archived"])
        for r in files.flagged(superseded, registry).table.to_pylist()
        if r["item_id"]
    }
    assert flags == {i.id: (i.id in superseded, is_archived(i, registry)) for i in items}


def test_map_survives_a_write_and_read(tmp_path: Path) -> None:
    item = Item(
        id="卡片-1",
        type=CardType.fact,
        project="global",
        created=dt.date(2026, 1, 1),
        path="global/cards/卡片-1.md",
        title="t",
        supersedes=["old"],
    )
    files = FileMap.of({item.path: "h", "empty.md": "e"}, [item], {"old"}, Registry())
    files.write(tmp_path, "files-1.arrow")
    assert FileMap.read(tmp_path, "files-1.arrow").table.equals(files.table)
    assert [p.name for p in tmp_path.iterdir()] == ["files-1.arrow"]
