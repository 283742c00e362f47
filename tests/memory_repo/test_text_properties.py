"""Byte caps hold for any text: never over the limit, never half a character."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memory_repo.text import cut_bytes, sentences, take_sentences, utf8_len

_MIXED = st.text(
    alphabet=st.sampled_from(list("abc xyz。！？.!?,，的表格解析数据 \n🙂é")), max_size=300
)


def _squash(text: str) -> str:
    return "".join(text.split())


@given(_MIXED, st.integers(min_value=0, max_value=400))
def test_cut_bytes_never_exceeds_and_is_a_prefix(text: str, limit: int) -> None:
    out = cut_bytes(text, limit)
    assert utf8_len(out) <= limit
    out.encode("utf-8")  # a str with no surrogates: always valid UTF-8
    assert _squash(text).startswith(_squash(out.removesuffix("…")))


@given(_MIXED, st.integers(min_value=0, max_value=400))
def test_take_sentences_never_exceeds_and_is_prefix_ish(text: str, limit: int) -> None:
    out = take_sentences(text, limit)
    assert utf8_len(out) <= limit
    assert _squash(text).startswith(_squash(out.removesuffix("…")))
    if text.strip() and limit >= 4 * utf8_len(text):
        # Joining sentences may add a space per sentence, never more.
        assert _squash(out) == _squash(text)


def test_sentences_split_chinese_and_english_alike() -> None:
    text = "数据放在 /data/tabsense。Do not commit it! 为什么？Because e.g. licences; see docs."
    assert sentences(text) == [
        "数据放在 /data/tabsense。",
        "Do not commit it!",
        "为什么？",
        "Because e.g. licences; see docs.",
    ]


def test_take_sentences_keeps_whole_sentences_within_the_cap() -> None:
    text = "第一句话。第二句话。Third sentence."
    assert take_sentences(text, utf8_len("第一句话。第二句话。")) == "第一句话。第二句话。"
    assert take_sentences(text, utf8_len("第一句话。第二句话。") - 1) == "第一句话。"


def test_a_long_first_sentence_is_cut_on_a_character_boundary() -> None:
    out = take_sentences("表" * 50 + "。", 10)
    assert out == "表表…"
    assert utf8_len(out) <= 10
