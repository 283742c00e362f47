"""The memory read as of a past moment: older state, weekly snapshots, reverts as new commits."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memory_repo import history
from memory_repo.bootstrap import init_memory
from memory_repo.demo import DEMO_IDS, build_demo
from memory_repo.store import load_memory

UTC = dt.UTC


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hist") / "memory"
    build_demo(root)
    return root


def test_demo_history_spans_several_weeks(demo: Path) -> None:
    commits = history.history(demo)
    assert len(commits) == 8
    assert commits[0].date.date() == dt.date(2026, 10, 5)
    assert commits[-1].date.date() == dt.date(2026, 11, 23)
    assert (commits[-1].date - commits[0].date).days >= 7 * 7
    assert [c.date for c in commits] == sorted(c.date for c in commits)


def test_as_of_a_date_returns_the_older_state(demo: Path) -> None:
    with history.memory_as_of(demo, dt.datetime(2026, 10, 20, tzinfo=UTC)) as old:
        assert old is not None
        items = load_memory(old).items
        assert DEMO_IDS["amber"] in items
        assert DEMO_IDS["teal"] not in items
        assert DEMO_IDS["pdfplumber_pitfall"] in items
        assert load_memory(old).problems == []
    assert not old.exists()
    assert DEMO_IDS["teal"] in load_memory(demo).items


def test_as_of_is_strictly_before(demo: Path) -> None:
    second = history.history(demo)[1]
    assert history.commit_before(demo, second.date).sha == history.history(demo)[0].sha
    with history.memory_as_of(demo, dt.datetime(2026, 10, 5, 18, tzinfo=UTC)) as nothing:
        assert nothing is None


def test_as_of_a_commit(demo: Path) -> None:
    first = history.history(demo)[0]
    with history.memory_as_of(demo, first.sha) as old:
        assert old is not None
        assert DEMO_IDS["table_objects_decision"] not in load_memory(old).items


def test_revert_undoes_a_commit_with_a_new_one(tmp_path: Path) -> None:
    root = tmp_path / "m"
    shas = build_demo(root)
    teal = root / "global/cards" / f"{DEMO_IDS['teal']}.md"
    assert teal.exists()
    new = history.revert(root, shas[4], message="rollback run teal")
    assert not teal.exists()
    commits = history.history(root)
    assert commits[-1].sha == new and commits[-1].message == "rollback run teal"
    assert len(commits) == 9
    with pytest.raises(history.HistoryError):
        history.revert(root, "0" * 40)


def test_commit_records_the_given_date_and_deletions(tmp_path: Path) -> None:
    root = tmp_path / "m"
    history.init_repo(root)
    assert history.history(root) == []
    (root / "a.md").write_text("a", encoding="utf-8")
    history.commit(root, ["a.md"], "add a", dt.datetime(2026, 1, 2, 3, 4, 5))
    (root / "a.md").unlink()
    history.commit(root, ["a.md"], "drop a", dt.datetime(2026, 1, 9, tzinfo=UTC))
    first, second = history.history(root)
    assert first.date == dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    with history.memory_as_of(root, second.sha) as now:
        assert now is not None and not (now / "a.md").exists()
    with history.memory_as_of(root, first.sha) as then:
        assert then is not None and (then / "a.md").read_text(encoding="utf-8") == "a"


def test_snapshot_tag_is_weekly_and_idempotent(tmp_path: Path) -> None:
    day = dt.date(2026, 12, 2)
    history.init_repo(tmp_path / "empty")
    assert history.snapshot_tag(tmp_path / "empty", day) is None  # nothing committed yet
    init_memory(tmp_path / "memory")
    assert history.snapshot_tag(tmp_path / "memory", day) == "snapshot-2026-W49"
    assert history.snapshot_tag(tmp_path / "memory", day) == "snapshot-2026-W49"


def test_changed_paths_lists_every_kind_of_change_since_a_commit(tmp_path: Path) -> None:
    root = tmp_path / "m"
    history.init_repo(root)
    for name in ("kept.md", "edited.md", "staged.md", "gone.md", "moved.md"):
        (root / name).write_text(name, encoding="utf-8")
    first = history.commit(root, ["kept.md", "edited.md", "staged.md", "gone.md", "moved.md"], "a")
    assert history.head(root) == first
    assert history.changed_paths(root, first) == set()
    (root / "edited.md").write_text("new", encoding="utf-8")
    (root / "staged.md").write_text("new", encoding="utf-8")
    history.open_repo(root).index.add(["staged.md"])
    (root / "gone.md").unlink()
    (root / "moved.md").rename(root / "renamed.md")
    (root / "新卡.md").write_text("untracked", encoding="utf-8")
    (root / ".gitignore").write_text("ignored.md\n", encoding="utf-8")
    (root / "ignored.md").write_text("x", encoding="utf-8")
    assert history.changed_paths(root, first) == {
        "edited.md",
        "staged.md",
        "gone.md",
        "moved.md",
        "renamed.md",
        "新卡.md",
        ".gitignore",
    }


def test_changed_paths_and_head_say_none_when_git_can_not_answer(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert history.changed_paths(plain, "HEAD") is None and history.head(plain) is None
    empty = tmp_path / "empty"
    history.init_repo(empty)
    assert history.head(empty) is None
    (empty / "a.md").write_text("a", encoding="utf-8")
    history.commit(empty, ["a.md"], "a")
    assert history.changed_paths(empty, "0" * 40) is None  # a commit it never had
