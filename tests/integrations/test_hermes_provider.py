"""The Hermes Agent memory provider against the real recall service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recall_api.integrations.hermes_provider import DoseMemProvider
from tests.conftest import IssueToken
from tests.integrations.demo import SETUP_PROMPT, TABLEKIT_CWD, UV_CARD
from tests.integrations.helpers import LiveServer, free_port


def test_prefetch_returns_the_injected_text_under_full(
    recall_service: LiveServer, issue_token: IssueToken
) -> None:
    provider = DoseMemProvider(recall_service.url, issue_token("full", None, agent="hermes"))
    assert provider.is_available()
    provider.initialize("hermes-1", hermes_home="/tmp/unused", platform="cli", cwd=TABLEKIT_CWD)
    text = provider.prefetch(SETUP_PROMPT, session_id="hermes-1")
    assert f'memory_read("{UV_CARD}")' in text
    assert provider.last_result is not None
    assert provider.last_result["profile"] == "full"
    assert text == provider.last_result["text"]
    provider.shutdown()


def test_personal_token_never_sees_research_memory(
    recall_service: LiveServer, issue_token: IssueToken
) -> None:
    provider = DoseMemProvider(recall_service.url, issue_token("personal", ["life"]))
    provider.initialize("hermes-2", cwd=TABLEKIT_CWD)
    provider.on_turn_start(1, SETUP_PROMPT)
    assert UV_CARD not in provider.prefetch(SETUP_PROMPT)
    found = json.loads(
        provider.handle_tool_call("memory_search", {"query": "parse_table tests tablekit"})
    )
    assert all(hit["project"] in {"life", "global"} for hit in found["hits"])


def test_search_tool_returns_hits_as_json(
    recall_service: LiveServer, issue_token: IssueToken
) -> None:
    provider = DoseMemProvider(recall_service.url, issue_token("working", ["tablekit"]))
    provider.initialize("hermes-3")
    assert [t["name"] for t in provider.get_tool_schemas()] == ["memory_search", "memory_read"]
    found = json.loads(provider.handle_tool_call("memory_search", {"query": "uv Python", "k": 3}))
    assert found["hits"][0]["id"] == UV_CARD
    card = json.loads(provider.handle_tool_call("memory_read", {"id": UV_CARD}))
    assert card["id"] == UV_CARD and "uv" in card["l0"]
    missing = json.loads(provider.handle_tool_call("memory_read", {"id": "no-such-card"}))
    assert "no memory" in missing["error"]
    # the id goes quoted whole, so a path in it reaches no other route
    odd = json.loads(provider.handle_tool_call("memory_read", {"id": "../x"}))["error"]
    assert odd in ("no memory '../x'", "not an item id: '../x'")
    assert "error" in json.loads(provider.handle_tool_call("memory_delete", {}))


def test_unreachable_service_or_missing_token_means_no_memory_not_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DOSE_MEM_TOKEN", raising=False)
    down = DoseMemProvider(f"http://127.0.0.1:{free_port()}", "dm_a_b", timeout_s=0.5)
    down.initialize("hermes-4")
    assert down.prefetch(SETUP_PROMPT) == ""
    assert "error" in json.loads(down.handle_tool_call("memory_search", {"query": "uv"}))
    down.on_session_end([{"role": "user", "content": "hi"}])  # best effort, no raise
    assert not DoseMemProvider("http://127.0.0.1:1", token="").is_available()


def test_what_hermes_could_not_send_is_sent_by_a_later_call(
    live: LiveServer, issue_token: IssueToken, own_outbox: Path, demo_settings
) -> None:
    """The service down at session end: the push and the report wait in the outbox, and
    the next turn's report, with the service up, sends all three, oldest first."""
    token = issue_token("full", None, agent="hermes")
    said = "Keep the Hermes outbox test transcript 7f3a."
    down = DoseMemProvider(f"http://127.0.0.1:{free_port()}", token, timeout_s=0.5)
    down.initialize("hermes-outbox")
    down.on_session_end([{"role": "user", "content": said}, {"role": "assistant", "content": "ok"}])
    down.wait()
    waiting = sorted((own_outbox / "hermes").glob("*.req"))
    assert len(waiting) == 2
    up = DoseMemProvider(live.url, token)
    up.initialize("hermes-outbox-2")
    up.sync_turn("and?", "done with that")
    up.wait()
    assert not list((own_outbox / "hermes").glob("*.req"))
    pushed = [p.read_text() for p in (demo_settings.inbox_path / "hermes").glob("hermes__*")]
    assert sum(said in text for text in pushed) == 1
