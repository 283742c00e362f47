"""The instructor path against a real, scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from evaluation.harness.scripted_llm import (
    LLMServer,
    Reply,
    llm_server,
    scripted,
    tool_answer,
    tool_name,
)
from flows.digest import Digest, DigestTurn
from flows.distill import distill
from flows.ingest import ingest
from memory_repo.models import Registry
from memory_repo.settings import get_settings
from memory_repo.store import load_memory

REAL = "Always write commit messages in English, even when we talk in Chinese."
GOOD = {
    "facts": [
        {
            "statement": "Commit messages are written in English.",
            "type": "convention",
            "project": "global",
            "confidence": 0.9,
            "quote": REAL,
        }
    ]
}
DIGEST = Digest(
    key="pi:s1", agent="pi", session="s1", turns=[DigestTurn(n=0, role="user", text=REAL)]
)


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with llm_server() as s:
        yield s


def _settings(server: LLMServer, tmp_path, timeout: float = 5.0):
    return get_settings(
        home=tmp_path,
        llm_base_url=server.url,
        llm_model="scripted-1",
        llm_timeout_s=timeout,
        llm_max_retries=2,
    )


def _good(request: dict) -> Reply:
    return Reply(tool_answer(request, GOOD))


def test_request_carries_the_schema_and_a_malformed_answer_is_reasked(server, tmp_path) -> None:
    bad = {"facts": [{"statement": "x", "type": "colour", "confidence": 7, "quote": REAL}]}
    server.responder = scripted([lambda r: Reply(tool_answer(r, bad)), _good])
    facts = distill(DIGEST, _settings(server, tmp_path), Registry())
    assert [f.quote for f in facts] == [REAL]
    first, second = server.requests
    schema = json.dumps(first["tools"][0]["function"]["parameters"])
    assert first["model"] == "scripted-1"
    assert all(field in schema for field in ("facts", "quote", "confidence", "preference"))
    assert "distil durable memory" in first["messages"][0]["content"]  # prompt file
    assert len(second["messages"]) > len(first["messages"])
    assert "colour" in json.dumps(second["messages"][len(first["messages"]) :])


def test_a_server_error_is_retried(server, tmp_path) -> None:
    server.responder = scripted(
        [lambda r: Reply({"error": {"message": "boom"}}, status=500), _good]
    )
    assert len(distill(DIGEST, _settings(server, tmp_path), Registry())) == 1
    assert len(server.requests) == 2


def test_a_timeout_is_retried(server, tmp_path) -> None:
    server.responder = scripted([lambda r: Reply(tool_answer(r, GOOD), delay_s=2.0), _good])
    assert len(distill(DIGEST, _settings(server, tmp_path, timeout=0.5), Registry())) == 1
    assert len(server.requests) == 2


def test_a_fabricated_quote_is_dropped_in_a_real_ingest_run(
    harness, home, server, monkeypatch
) -> None:
    home.add("pi")
    home.add("hermes")
    monkeypatch.setenv("DOSE_MEM_LLM_BASE_URL", server.url)
    monkeypatch.setenv("DOSE_MEM_LLM_MAX_RETRIES", "1")
    fabricated = {
        "statement": "Deploys happen on Fridays.",
        "type": "habit",
        "confidence": 0.8,
        "quote": "We always deploy on Fridays at noon.",
    }

    weekly = {
        "statement": "Weekly reports are written in Chinese.",
        "type": "preference",
        "confidence": 0.9,
        "quote": "以后周报一律用中文写，技术名词保留英文。",
    }

    def respond(request: dict) -> Reply:
        if tool_name(request) == "FactList":
            hermes = "周报" in json.dumps(request["messages"], ensure_ascii=False)
            facts = [weekly] if hermes else [*GOOD["facts"], fabricated]
            return Reply(tool_answer(request, {"facts": facts}))
        return Reply(
            tool_answer(
                request,
                {
                    "decisions": [
                        {"index": i, "action": "promote", "reason": "new"} for i in range(2)
                    ]
                },
            )
        )

    server.responder = respond
    summary = ingest(home=str(home.root))
    assert (summary.facts_distilled, summary.quotes_rejected, summary.cards_written) == (3, 1, 2)
    judged = [r for r in server.requests if tool_name(r) == "JudgedList"]
    assert len(judged) == 1  # one batched call for both candidates
    prompt = json.dumps(judged[0]["messages"], ensure_ascii=False)
    assert "candidate 1" in prompt and "Fridays" not in prompt
    quotes = {i.evidence[0].quote for i in load_memory(home.memory).items.values()}
    assert quotes == {REAL, weekly["quote"]}


def test_filler_and_raw_quotes_from_the_model_become_clean_cards(
    harness, home, server, monkeypatch
) -> None:
    """A realistic model: one conclusion opens with filler and first person, one is the
    raw Chinese quote with its cue word, one decision is filed as a preference; the judge
    answers with a reason. The cards carry clean L0s, the content's type, readable ids,
    and a body without session, quote or judge reasoning."""
    home.add("hermes")
    monkeypatch.setenv("DOSE_MEM_LLM_BASE_URL", server.url)
    monkeypatch.setenv("DOSE_MEM_LLM_MAX_RETRIES", "1")
    weekly_quote = "以后周报一律用中文写，技术名词保留英文。"
    facts = [
        {
            "statement": weekly_quote,  # the raw quote as the conclusion
            "type": "preference",
            "subject": "周报语言",
            "confidence": 0.9,
            "quote": weekly_quote,
        },
    ]

    def respond(request: dict) -> Reply:
        if tool_name(request) == "FactList":
            return Reply(tool_answer(request, {"facts": facts}))
        return Reply(
            tool_answer(
                request,
                {"decisions": [{"index": 0, "action": "promote", "reason": "new subject: 周报"}]},
            )
        )

    server.responder = respond
    summary = ingest(home=str(home.root))
    assert summary.cards_written == 1
    [card] = load_memory(home.memory).items.values()
    assert card.conclusion == "周报一律用中文写，技术名词保留英文。"
    assert card.id.startswith("preference-zhoubao-yilv-")
    assert card.body.strip() == card.conclusion
    assert card.evidence[0].quote == weekly_quote
    assert card.evidence[0].model_extra["reason"] == "new subject: 周报"
    distill_prompt = json.dumps(server.requests[0], ensure_ascii=False)
    assert "subject" in distill_prompt and "no first person" in distill_prompt


def test_the_model_path_cleans_filler_and_fixes_a_decision_filed_as_a_taste(
    server, tmp_path
) -> None:
    said = "We chose LanceDB over Chroma because it stores the index as plain files."
    filler = "Remember, going forward, I prefer pytest fixtures over setUp methods."
    digest = Digest(
        key="pi:s2",
        agent="pi",
        session="s2",
        turns=[DigestTurn(n=0, role="user", text=f"{said} {filler}")],
    )
    answer = {
        "facts": [
            {"statement": said, "type": "preference", "confidence": 0.9, "quote": said},
            {"statement": filler, "type": "preference", "confidence": 0.8, "quote": filler},
        ]
    }
    server.responder = scripted([lambda r: Reply(tool_answer(r, answer))])
    facts = distill(digest, _settings(server, tmp_path), Registry())
    assert [(f.statement, f.type.value) for f in facts] == [
        ("Chose LanceDB over Chroma because it stores the index as plain files.", "decision"),
        ("Prefer pytest fixtures over setUp methods.", "preference"),
    ]
