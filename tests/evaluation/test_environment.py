"""The environment format: dated history, the snapshot rule, the temporal split, and the
demo's labels being answerable from the snapshot each probe sees."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from evaluation.harness.environment import EnvironmentLoadError, load_environment, snapshot_before
from evaluation.harness.probes import Split, SystemInput, system_input, week_start
from memory_repo.history import export_tree, history
from memory_repo.store import load_memory

DEMO = Path(__file__).resolve().parents[2] / "evaluation" / "envs" / "demo"


def test_history_becomes_dated_git_commits(tiny_env: Path, tmp_path: Path) -> None:
    env = load_environment(tiny_env, tmp_path / "work")
    assert [c.message for c in env.commits] == ["start", "teal"]
    dates = [c.date.date() for c in history(env.repo)]
    assert dates == [dt.date(2026, 1, 1), dt.date(2026, 1, 7)]


def test_probe_sees_the_last_commit_strictly_before_its_week(
    tiny_env: Path, tmp_path: Path
) -> None:
    env = load_environment(tiny_env, tmp_path / "work")
    first, second = env.commits
    by_id = {p.id: p for p in env.probes}
    assert env.snapshot_for(by_id["t1-1"]) == first  # week of Jan 5: teal (Jan 7) not yet
    assert env.snapshot_for(by_id["t4-1"]) == second
    # A commit at 23:59 on Sunday counts for the Monday after; one at Monday 00:00 does not.
    monday = week_start(by_id["t4-1"].timestamp)
    assert snapshot_before(env.commits, monday) == second
    assert snapshot_before(env.commits, second.at) == first


def test_demo_splits_by_time_and_labels_only_cards_in_the_snapshot(tmp_path: Path) -> None:
    env = load_environment(DEMO, tmp_path / "work")
    assert len(env.probes) >= 200
    dev = [p for p in env.probes if p.split == Split.dev]
    test = [p for p in env.probes if p.split == Split.test]
    assert max(p.timestamp for p in dev) < min(p.timestamp for p in test)
    assert len({week_start(p.timestamp) for p in dev}) == 2
    assert len({week_start(p.timestamp) for p in test}) == 4  # week 6: task state
    items_at: dict[str, set[str]] = {}
    for probe in env.probes:
        commit = env.snapshot_for(probe)
        assert commit is not None and commit.at < week_start(probe.timestamp)
        if commit.sha not in items_at:
            tree = export_tree(env.repo, commit.sha, tmp_path / "snap" / commit.sha)
            items_at[commit.sha] = set(load_memory(tree).items)
        assert probe.gold is not None
        wanted = set(probe.gold.necessary) | set(probe.gold.helpful)
        assert wanted <= items_at[commit.sha], probe.id
    quiet = [p for p in env.probes if p.gold and not p.gold.needs_memory]
    assert len(quiet) > len(env.probes) / 2  # most turns need nothing


def test_system_input_has_no_room_for_follow_ups_or_gold(tiny_env: Path, tmp_path: Path) -> None:
    env = load_environment(tiny_env, tmp_path / "work")
    probe = env.probes[0]
    seen = system_input(probe)
    assert "follow_ups" not in seen.model_dump() and "gold" not in seen.model_dump()
    with pytest.raises(ValidationError):
        SystemInput(**seen.model_dump(), follow_ups=probe.follow_ups)


def _edit_probe(env_dir: Path, probe_id: str, **changes: object) -> None:
    """Rewrite one probe of ``probes.jsonl`` with ``changes`` (``gold`` fields merge)."""
    path = env_dir / "probes.jsonl"
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        probe = json.loads(line)
        if probe["id"] == probe_id:
            gold = {**probe["gold"], **changes.pop("gold", {})}  # type: ignore[dict-item]
            probe = {**probe, **changes, "gold": gold}
        lines.append(json.dumps(probe, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("field", ["necessary", "helpful", "harmful"])
def test_a_gold_id_in_no_commit_is_an_error_naming_the_probe(
    tiny_env: Path, tmp_path: Path, field: str
) -> None:
    _edit_probe(tiny_env, "t5-1", gold={field: ["alpha-env", "no-such-card"]})
    with pytest.raises(EnvironmentLoadError, match=r"probe t5-1 .*no commit.*no-such-card"):
        load_environment(tiny_env, tmp_path / "work")


def test_a_gold_id_committed_after_the_snapshot_is_an_error_naming_the_probe(
    tiny_env: Path, tmp_path: Path
) -> None:
    # t1-1 is in the week of Jan 5: its snapshot is Jan 1, and teal is committed Jan 7.
    _edit_probe(tiny_env, "t1-1", gold={"helpful": ["teal"]})
    with pytest.raises(EnvironmentLoadError, match=r"probe t1-1 .*not yet committed.*teal"):
        load_environment(tiny_env, tmp_path / "work")


def test_a_probe_profile_other_than_its_agents_is_an_error_naming_the_probe(
    tiny_env: Path, tmp_path: Path
) -> None:
    _edit_probe(tiny_env, "t2-1", profile="working")  # hermes is full in env.yaml
    with pytest.raises(EnvironmentLoadError, match=r"probe t2-1 has profile 'working'.*'full'"):
        load_environment(tiny_env, tmp_path / "work")


@pytest.mark.parametrize("name", ["webdev", "labsci"])
def test_the_new_worlds_load_with_every_label_in_its_snapshot(name: str, tmp_path: Path) -> None:
    """Written before tuning by people who never saw the gate (issue #28): a web developer's
    and a molecular biologist's six weeks, English, Chinese and mixed."""
    env = load_environment(DEMO.parent / name, tmp_path / "work")
    probes = [p for p in env.probes if p.gold is not None]
    assert len(probes) == len(env.probes) >= 150
    memory = [p for p in probes if p.gold and p.gold.needs_memory]
    routine = [p for p in probes if "routine" in p.tags]
    assert len(memory) >= 55 and len(routine) >= 60
    langs = {t for p in memory for t in p.tags if t.startswith("lang:")}
    assert {"lang:en->en", "lang:zh->en"} <= langs or {"lang:en->zh", "lang:mixed->en"} <= langs
    later = [p for p in memory if p.turn >= 3 and p.agent in ("claude-code", "codex", "pi")]
    assert later, "later turns of coding sessions that need memory"
    assert {p.split for p in probes} == {Split.dev, Split.test}
