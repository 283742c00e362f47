"""Per-agent overrides in <memory>/profiles/<agent>.yaml: merged over the token's profile,
picked up when the file changes, and ignored (never fatal) when they can not be used."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from profiles.model import GateMode, Trigger, load_profiles
from profiles.overrides import AgentProfiles, override_rel

WORKING = load_profiles()["working"]


def write(root: Path, agent: str, text: str) -> Path:
    path = root / override_rel(agent)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_an_override_refines_only_its_agent(tmp_path: Path) -> None:
    overrides = AgentProfiles(tmp_path)
    assert overrides.for_agent("claude-code", WORKING) is WORKING
    write(tmp_path, "claude-code", "profile: working\ngate:\n  threshold: 0.3\nmax_items: 3\n")
    mine = overrides.for_agent("claude-code", WORKING)
    assert (mine.gate.threshold, mine.max_items) == (0.3, 3)
    assert mine.gate.min_l0_overlap == WORKING.gate.min_l0_overlap, "mappings merge by key"
    assert mine.cues == WORKING.cues
    assert overrides.for_agent("codex", WORKING) is WORKING


def test_a_changed_or_removed_file_is_picked_up(tmp_path: Path) -> None:
    overrides = AgentProfiles(tmp_path)
    path = write(tmp_path, "pi", "profile: working\ngate:\n  threshold: 0.3\n")
    assert overrides.for_agent("pi", WORKING).gate.threshold == 0.3
    path.write_text("profile: working\ngate:\n  threshold: 0.4\n", encoding="utf-8")
    later = path.stat().st_mtime_ns + 10_000_000
    os.utime(path, ns=(later, later))
    assert overrides.for_agent("pi", WORKING).gate.threshold == 0.4
    path.unlink()
    assert overrides.for_agent("pi", WORKING) is WORKING


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("gate: [unclosed\n", "cannot read override"),
        ("gate:\n  threshold: 0.3\n", "naming its 'profile'"),
        ("profile: working\nname: other\n", "may not rename"),
        ("profile: working\ngate:\n  threshold: 7\n", "gate.threshold"),
        ("profile: full\ngate:\n  threshold: 0.3\n", "token's profile is 'working'"),
    ],
)
def test_an_unusable_override_is_reported_and_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str, why: str
) -> None:
    write(tmp_path, "claude-code", text)
    with caplog.at_level(logging.WARNING):
        assert AgentProfiles(tmp_path).for_agent("claude-code", WORKING) == WORKING
    assert why in caplog.text and "claude-code" in caplog.text


def test_the_readme_s_relevance_override_switches_the_gate(tmp_path: Path) -> None:
    """The README's snippet (Profiles, "Relevance mode"), as written."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("# <memory>/profiles/claude-code.yaml\n", 1)[1].split("```", 1)[0]
    write(tmp_path, "claude-code", block)
    mine = AgentProfiles(tmp_path).for_agent("claude-code", WORKING)
    assert mine.gate.mode == GateMode.relevance and mine.gate.threshold == 0.45
    assert mine.gate.new_subject == 0.9 and mine.gate.min_l0_overlap == 0
    assert Trigger.new_subject in mine.triggers
    assert (mine.budget_bytes, mine.max_items) == (WORKING.budget_bytes, WORKING.max_items)
