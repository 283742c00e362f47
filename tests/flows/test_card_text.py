"""Card text an agent can use: clean L0 statements and readable ids, Chinese via pinyin;
and a card body that holds no provenance (L1 is cut from it)."""

from __future__ import annotations

import datetime as dt

import pytest

from flows.append import new_card
from flows.card_text import card_id, clean_statement
from flows.facts import Candidate, Decision, Fact
from memory_repo.layers import l1
from memory_repo.models import CardType, Item

CLEAN = [
    (
        "Remember, figures for the atlas paper use the Okabe-Ito palette.",
        "Figures for the atlas paper use the Okabe-Ito palette.",
    ),
    (
        "Going forward, answer in short paragraphs and skip bullet lists unless I ask for one.",
        "Answer in short paragraphs and skip bullet lists unless asked.",
    ),
    ("I prefer uv over conda.", "Prefer uv over conda."),
    (
        "Commit messages use Conventional Commits from now on.",
        "Commit messages use Conventional Commits.",
    ),
    ("以后回答我的时候先给结论，再给理由。", "回答时先给结论，再给理由。"),
    ("记住，以后周报一律用中文写", "周报一律用中文写。"),
    ("lumen 的实验名统一用日期格式。", "lumen 的实验名统一用日期格式。"),
]


@pytest.mark.parametrize(("said", "clean"), CLEAN)
def test_cue_filler_and_first_person_are_removed(said: str, clean: str) -> None:
    assert clean_statement(said) == clean


def test_ids_are_readable_in_both_languages() -> None:
    assert card_id("preference", "周报一律用中文写。", "s").startswith(
        "preference-zhoubao-yilv-yong-zhongwen-xie-"
    )
    english = card_id("convention", "Branch names in atlas follow a pattern.", "s")
    assert english.startswith("convention-branch-names-atlas-follow-pattern-")
    assert card_id("convention", "x y", "s1") != card_id("convention", "x y", "s2")


def test_the_body_holds_the_fact_and_no_provenance() -> None:
    fact = Fact(
        statement="Never call torch.compile on the eval model, it breaks checkpoint loading.",
        type=CardType.pitfall,
        confidence=0.9,
        quote="Never call torch.compile on the eval model, it breaks checkpoint loading!",
    )
    candidate = Candidate(
        fact=fact,
        agent="claude_code",
        session="5e550101-0101",
        by_user=True,
        at=dt.datetime(2026, 11, 2, tzinfo=dt.UTC),
    )
    card = new_card(candidate, Decision(action="promote", reason="new subject"), "run-1")
    assert card.body == fact.statement
    item = Item(
        id=card.id,
        type=card.type,
        project=card.project,
        created=card.created,
        path="global/cards/x.md",
        title=card.id,
        conclusion=card.conclusion,
        body=card.body,
    )
    assert l1(item) == ""
    [ev] = card.evidence
    assert ev.session == "5e550101-0101" and ev.quote == fact.quote
    assert ev.model_extra == {
        "run": "run-1",
        "by_user": True,
        "decision": "promote",
        "reason": "new subject",
    }
