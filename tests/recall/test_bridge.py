"""The gate's bridge over the real multilingual model: words cross scripts, numbers and
identifiers do not."""

from __future__ import annotations

import pytest

from memory_repo.index.use_embedder import UseEmbedder
from recall_api.bridge import Bridge


@pytest.fixture(scope="module")
def bridge() -> Bridge:
    found = Bridge.for_embedder(UseEmbedder())
    assert found is not None
    return found


def test_a_chinese_word_is_found_through_its_english_translation(bridge: Bridge) -> None:
    card = frozenset({"tests", "environment", "deadline"})
    assert bridge.translated(["测试", "环境"], card) == {"测试", "环境"}
    assert bridge.translated(["tests"], frozenset({"测试"})) == {"tests"}


def test_unrelated_words_numbers_and_identifiers_are_never_bridged(bridge: Bridge) -> None:
    # The model puts 100 at 0.84 from 一百 and run_tests at 0.66 from 运行测试: close
    # enough to bridge, but a number or an identifier must appear as written.
    card = frozenset({"测试", "环境", "一百", "运行测试"})
    assert bridge.translated(["banana", "100", "run_tests", "v2.1"], card) == frozenset()


def test_same_script_words_are_left_to_the_literal_match(bridge: Bridge) -> None:
    assert bridge.translated(["tests"], frozenset({"testing", "test"})) == frozenset()
