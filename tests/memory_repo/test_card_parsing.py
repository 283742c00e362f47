"""Cards survive render -> parse unchanged, unknown keys included; bad files name their reason."""

from __future__ import annotations

import datetime as dt

import pytest

from memory_repo.cards import parse_card_text, render_card
from memory_repo.errors import MalformedCard
from memory_repo.models import Card, CardType, Evidence, Source


def _card(**extra: object) -> Card:
    card = Card(
        id="reply-in-chinese",
        type=CardType.preference,
        conclusion="回复请用中文，代码注释用英文。",
        created=dt.date(2026, 10, 5),
        supersedes=["old-one"],
        source=Source.auto,
        confidence=0.8,
        evidence=[
            Evidence(
                agent="hermes",
                session="s-1",
                at=dt.datetime(2026, 10, 3, 9, 14, tzinfo=dt.UTC),
                quote="请用中文回复",
            )
        ],
        **extra,
    )
    card.body = "和我对话时用中文。\n\n## Why\n\nCode review in English."
    return card


def test_render_then_parse_gives_the_same_card() -> None:
    card = _card()
    text = render_card(card)
    again = parse_card_text(text, "x.md", card.id)
    assert again == card
    assert again.body == card.body
    assert render_card(again) == text


def test_unknown_keys_are_kept_with_their_types() -> None:
    card = _card(reviewed=dt.date(2026, 11, 1), tags=["ui", "颜色"])
    text = render_card(card)
    assert "reviewed: 2026-11-01\n" in text
    again = parse_card_text(text, "x.md", card.id)
    assert again.model_extra == {"reviewed": dt.date(2026, 11, 1), "tags": ["ui", "颜色"]}
    assert render_card(again) == text


def test_hand_written_card_with_a_datetime_expiry_parses() -> None:
    text = "---\nid: a\ntype: result\ncreated: 2026-01-01\nexpires: 2026-03-01 10:00:00\n---\nx.\n"
    assert parse_card_text(text, "a.md", "a").expires == dt.date(2026, 3, 1)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\nid: [a\n---\n", "bad YAML front matter"),
        ("---\ntype: fact\ncreated: 2026-01-01\n---\n", "missing id"),
        ("---\nid: b\ntype: fact\ncreated: 2026-01-01\n---\n", "does not match file name"),
        ("---\nid: a\ntype: nonsense\ncreated: 2026-01-01\n---\n", "invalid type"),
        ("just text\n", "no front matter"),
        ("---\n- a list\n---\nbody\n", "front matter is not a mapping"),
    ],
)
def test_malformed_card_names_the_reason(text: str, reason: str) -> None:
    with pytest.raises(MalformedCard) as err:
        parse_card_text(text, "global/cards/a.md", "a")
    assert reason in err.value.reason
    assert err.value.path == "global/cards/a.md"
