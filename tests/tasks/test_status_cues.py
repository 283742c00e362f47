"""Status questions reach task state under every shipped profile; routine prompts never do.

tests/data/status_questions.txt was written before the cues were extended (2026-12-06);
the routine lists are the ones the gate was tuned against (tests/data/routine_prompts*.txt).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from profiles.model import load_profiles
from recall_api.triggers import cue_in

DATA = Path(__file__).parents[1] / "data"


def lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


PROFILES = load_profiles()


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_status_question_carries_a_status_cue(name: str) -> None:
    missed = [q for q in lines("status_questions.txt") if not cue_in(q, PROFILES[name].status_cues)]
    assert missed == []


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_no_routine_prompt_is_taken_for_a_status_question(name: str) -> None:
    routine = lines("routine_prompts.txt") + lines("routine_prompts_zh.txt")
    taken = {p: cue_in(p, PROFILES[name].status_cues) for p in routine}
    assert {p: c for p, c in taken.items() if c} == {}
