"""One memory in two languages, through the real app over the demo memory's real index.

A Chinese prompt gets the card its English twin gets, under the working profile in the
tablekit checkout and under full; an English question finds a card written only in
Chinese; routine Chinese coding prompts stay as quiet as English ones.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from evaluation.sets.bilingual import load_queries
from memory_repo.demo import DEMO_IDS
from tests.conftest import IssueToken
from tests.recall.test_case_study import TABLEKIT, ids, recall

# (English prompt, its Chinese twin as the person writes it, the card both must get)
TWINS = [
    ("Which colour for unverified entries?", "未验证的条目用什么颜色标？", DEMO_IDS["teal"]),
    (
        "Set up the Python environment for this project",
        "帮我配一下这个项目的 Python 环境",
        DEMO_IDS["uv"],
    ),
    ("Set up the environment the usual way", "按我的习惯配置环境", DEMO_IDS["uv"]),
]
ROUTINE_ZH = [
    line.strip()
    for line in (Path(__file__).parents[1] / "data" / "routine_prompts_zh.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    if line.strip() and not line.startswith("#")
]


@pytest.mark.parametrize("profile", ["working", "full"])
@pytest.mark.parametrize(("english", "chinese", "card"), TWINS)
def test_a_chinese_prompt_gets_the_card_its_english_twin_gets(
    client: TestClient, issue_token: IssueToken, profile: str, english: str, chinese: str, card: str
) -> None:
    token = issue_token(profile)
    en = recall(client, token, english, f"twin-en-{profile}-{card}-{english}", cwd=TABLEKIT)
    zh = recall(client, token, chinese, f"twin-zh-{profile}-{card}-{chinese}", cwd=TABLEKIT)
    assert card in ids(en)
    assert card in ids(zh), zh
    assert DEMO_IDS["amber"] not in ids(zh)


def test_the_routine_rename_is_quiet_in_both_languages_under_working(
    client: TestClient, issue_token: IssueToken
) -> None:
    token = issue_token("working")
    for n, prompt in enumerate(
        ("Rename parse_table and update the tests", "把 parse_table 改个名，顺便更新测试")
    ):
        result = recall(client, token, prompt, f"rename-{n}", cwd=TABLEKIT)
        assert result["injected"] is False, result
        assert result["reason"] == "below_threshold"


def test_the_main_assistant_gets_memory_for_the_rename_in_both_languages(
    client: TestClient, issue_token: IssueToken
) -> None:
    token = issue_token("full")
    en = recall(client, token, "Rename parse_table and update the tests", "rename-full-en")
    zh = recall(client, token, "把 parse_table 改个名，顺便更新测试", "rename-full-zh")
    assert en["injected"] and zh["injected"]
    assert set(ids(en)) & set(ids(zh))


def test_an_english_question_finds_a_card_written_only_in_chinese(
    client: TestClient, issue_token: IssueToken
) -> None:
    card = DEMO_IDS["reply_chinese"]
    result = recall(
        client, issue_token("full"), "What language should you reply to me in?", "en-zh"
    )
    assert card in ids(result), result


def test_english_questions_of_the_held_out_half_find_their_chinese_cards(
    client: TestClient, issue_token: IssueToken
) -> None:
    """The en->zh queries of the bilingual set's test half (never looked at while
    tuning; the bound was set after the one measurement, 7 of 9, docs/read-path.md)."""
    queries = [
        q for q in load_queries() if q.pair == "en->zh" and int(q.id.removeprefix("bq")) % 2 == 0
    ]
    assert len(queries) >= 8
    token = issue_token("full")
    found = [
        q.id
        for q in queries
        if set(q.expected)
        & set(ids(recall(client, token, q.query, f"held-out-{q.id}", project=q.project)))
    ]
    assert len(found) * 3 >= len(queries) * 2, found


def test_routine_chinese_coding_prompts_stay_quiet_under_working(
    client: TestClient, issue_token: IssueToken
) -> None:
    assert len(ROUTINE_ZH) >= 20
    token = issue_token("working")
    loud = [
        prompt
        for n, prompt in enumerate(ROUTINE_ZH)
        if recall(client, token, prompt, f"routine-zh-{n}", cwd=TABLEKIT)["injected"]
    ]
    assert len(loud) <= 1, loud
