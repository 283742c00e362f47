"""Coding agents stay quiet on routine prompts (issue #3): counts for working vs full.

The 50 prompts in tests/data/routine_prompts.txt were written before any threshold was
tuned; each is the first turn of a new session in the tablekit checkout, so the working
profile's trigger fires every time and only its gate keeps it quiet.
"""

from __future__ import annotations

from pathlib import Path

from recall_api.deps import Services
from recall_api.models import Identity, RecallRequest

PROMPTS = [
    line
    for line in (Path(__file__).parents[1] / "data" / "routine_prompts.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    if line.strip() and not line.startswith("#")
]


def injections(services: Services, profile: str) -> int:
    who = Identity(agent=f"routine-{profile}", profile=profile, projects=None)
    count = 0
    for n, prompt in enumerate(PROMPTS):
        request = RecallRequest(
            prompt=prompt,
            session_id=f"routine-{profile}-{n}",
            turn=1,
            cwd="/home/demo/code/tablekit",
        )
        result = services.engine.recall(who, request)
        assert result.trigger is not None, "first turn must trigger, so the gate is tested"
        count += result.injected
    return count


def test_fifty_routine_prompts(services: Services) -> None:
    assert len(PROMPTS) == 50
    working = injections(services, "working")
    full = injections(services, "full")
    print(f"routine prompts with injection: working {working}/50, full {full}/50")
    assert working <= 2
    assert full > working
