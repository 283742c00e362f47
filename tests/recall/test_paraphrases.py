"""The paraphrase set (tests/data/paraphrases_demo.jsonl): prompts a new user would type,
written before any tuning, over the demo memory of `make up` (issue #28).

The issue's target is 80% served per profile; docs/read-path.md ("Gate") has the rates
measured in both gate modes, all below it. This test holds each mode's measured floor,
so a change that serves fewer fails, and checks the part of the target that is met in
full: no superseded, forbidden or other-project card is ever injected.
"""

from __future__ import annotations

import pytest

from evaluation.harness.systems import in_relevance_mode
from evaluation.sets.paraphrases import load_set, run, summary
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import Settings
from profiles.model import Profile, load_profiles

# Served shares measured 2026-12-07 (docs/read-path.md, "The paraphrase set"): the
# profiles as shipped (personal in mode relevance since then), and every profile in mode
# relevance at the bars below.
FLOORS = {
    "shipped": {
        "all": 0.25,
        "profile:working": 0.04,
        "profile:full": 0.35,
        "profile:personal": 0.5,
    },
    "relevance": {
        "all": 0.40,
        "profile:working": 0.30,
        "profile:full": 0.47,
        "profile:personal": 0.5,
    },
}
# The relevance mode's bars docs/read-path.md recommends.
BARS = {"full": 0.35, "working": 0.45, "personal": 0.25}


def profiles_in(mode: str) -> dict[str, Profile]:
    shipped = load_profiles()
    if mode == "shipped":
        return shipped
    out = {}
    for name, profile in shipped.items():
        p = in_relevance_mode(profile)
        gate = p.gate.model_copy(update={"threshold": BARS[name]})
        out[name] = p.model_copy(update={"gate": gate})
    return out


def test_the_set_is_as_written() -> None:
    items = load_set()
    assert len(items) >= 40
    assert {p.lang for p in items} == {"en", "zh", "mixed"}
    assert {p.profile for p in items} == {"working", "full", "personal"}
    assert all(p.expected for p in items)


@pytest.mark.parametrize("mode", ["shipped", "relevance"])
def test_paraphrases_find_their_cards_and_nothing_wrong(mode: str) -> None:
    outcomes = run(make_embedder(Settings()), profiles_in(mode))
    table = summary(outcomes)
    print(mode, {g: (row["served"], row["prompts"]) for g, row in table.items()})
    assert all(not o.wrong for o in outcomes), [o for o in outcomes if o.wrong]
    for group, floor in FLOORS[mode].items():
        assert table[group]["rate"] >= floor, (mode, group, table[group])
