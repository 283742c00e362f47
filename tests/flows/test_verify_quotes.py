"""Quote verification on the adversarial set: only whitespace, width and quote marks may differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.digest import Digest, DigestTurn
from flows.facts import Fact
from flows.verify import find_quote, verify
from memory_repo.models import CardType

DATA = json.loads((Path(__file__).parents[1] / "data" / "quotes_adversarial.json").read_text())


def test_the_set_is_big_enough() -> None:
    assert len(DATA["accepted"]) >= 30 and len(DATA["rejected"]) >= 30


@pytest.mark.parametrize("case", DATA["accepted"], ids=lambda c: c["why"])
def test_genuine_quotes_are_accepted(case: dict) -> None:
    assert find_quote(case["quote"], DATA["turns"]) is not None


@pytest.mark.parametrize("case", DATA["rejected"], ids=lambda c: c["why"])
def test_paraphrased_spliced_or_invented_quotes_are_rejected(case: dict) -> None:
    assert find_quote(case["quote"], DATA["turns"]) is None


def test_verify_keeps_the_turn_it_found_and_whether_the_user_said_it() -> None:
    digest = Digest(
        key="pi:s",
        agent="pi",
        session="s",
        turns=[
            DigestTurn(n=0, role="user", text="From now on, use teal instead of amber."),
            DigestTurn(n=3, role="assistant", text="Switched the palette to teal."),
        ],
    )
    facts = [
        Fact(
            statement="Use teal.",
            type=CardType.preference,
            confidence=0.9,
            quote="use teal instead of amber",
        ),
        Fact(
            statement="Palette is teal.",
            type=CardType.fact,
            confidence=0.5,
            quote="Switched the palette to teal.",
        ),
        Fact(
            statement="Use purple.",
            type=CardType.preference,
            confidence=0.9,
            quote="use purple instead of amber",
        ),
    ]
    kept, dropped = verify(facts, digest)
    assert [(c.by_user, c.correction) for c in kept] == [(True, True), (False, False)]
    assert [f.statement for f in dropped] == ["Use purple."]
