"""A model endpoint that hangs, errors or answers garbage (a real scripted server on
127.0.0.1): the run retries, then fails only the sessions concerned, writes nothing of
theirs and leaves them out of the ledger; the next run, with the endpoint healthy, reads
exactly those sessions again and writes their cards. Nothing is lost."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from evaluation.harness.scripted_llm import LLMServer, Reply, llm_server, tool_answer, tool_name
from flows.ingest import ingest
from memory_repo.store import load_memory

DATA = Path(__file__).parents[1] / "data" / "transcripts"
QUOTE = "Always write commit messages in English, even when we talk in Chinese."
FACT = {
    "statement": "Commit messages are written in English.",
    "type": "convention",
    "project": "global",
    "confidence": 0.9,
    "quote": QUOTE,
}
PI_KEY = "pi:0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"

FAULTS: dict[str, Callable[[dict], Reply]] = {
    "hang": lambda r: Reply(tool_answer(r, {"facts": [FACT]}), delay_s=2.0),
    "error": lambda r: Reply({"error": {"message": "overloaded"}}, status=503),
    "garbage": lambda r: Reply("<html>502 bad gateway</html>"),
    "bad arguments": lambda r: Reply(tool_answer(r, "{facts: [not json")),
}


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with llm_server() as s:
        yield s


@pytest.fixture
def home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefect_api: str, server: LLMServer
) -> Path:
    for key in ("DOSE_MEM_CRASH_AT", "OPENAI_API_KEY", "DOSE_MEM_LLM_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    env = {
        "DOSE_MEM_HOME": str(tmp_path / "home"),
        "DOSE_MEM_CAPTURE_IDLE_MINUTES": "0",
        "DOSE_MEM_LLM_BASE_URL": server.url,
        "DOSE_MEM_LLM_TIMEOUT_S": "0.5",
        "DOSE_MEM_LLM_MAX_RETRIES": "1",
        "DOSE_MEM_LLM_RETRY_DELAYS_S": "[0]",
        "PREFECT_API_URL": prefect_api,
    }
    for agent, var in (
        ("pi", "DOSE_MEM_CAPTURE_PI_DIR"),
        ("claude_code", "DOSE_MEM_CAPTURE_CLAUDE_DIR"),
        ("codex", "DOSE_MEM_CAPTURE_CODEX_DIR"),
        ("hermes", "DOSE_MEM_CAPTURE_HERMES_DIR"),
    ):
        target = tmp_path / "sources" / agent
        if agent in ("pi", "claude_code"):
            shutil.copytree(DATA / agent, target)
        env[var] = str(target)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return tmp_path / "home"


def _is_pi(request: dict) -> bool:
    return QUOTE in json.dumps(request, ensure_ascii=False)


def _healthy(request: dict) -> Reply:
    if tool_name(request) == "FactList":
        return Reply(tool_answer(request, {"facts": [FACT] if _is_pi(request) else []}))
    return Reply(
        tool_answer(
            request,
            {"decisions": [{"index": 0, "action": "promote", "reason": "a new convention"}]},
        )
    )


@pytest.mark.parametrize(
    ("step", "fault"),
    [
        ("FactList", "hang"),
        ("FactList", "error"),
        ("FactList", "garbage"),
        ("FactList", "bad arguments"),
        ("JudgedList", "garbage"),
    ],
)
def test_failed_sessions_are_retried_next_run_and_nothing_is_lost(
    home: Path, server: LLMServer, step: str, fault: str
) -> None:
    def faulty(request: dict) -> Reply:
        if tool_name(request) == step and _is_pi(request):
            return FAULTS[fault](request)
        return _healthy(request)

    server.responder = faulty
    first = ingest(home=str(home))
    assert first.sessions_read == 2
    assert first.sessions_failed == [PI_KEY]
    assert first.cards_written == 0 and load_memory(home / "memory").items == {}
    attempts = [r for r in server.requests if tool_name(r) == step and _is_pi(r)]
    assert len(attempts) >= 2  # retried before giving up
    ledger = json.loads((home / "state" / "ledger.json").read_text("utf-8"))
    assert PI_KEY not in ledger and len(ledger) == 1  # the healthy session is done

    server.responder = _healthy
    second = ingest(home=str(home))
    assert second.sessions_read == 1 and second.sessions_failed == []
    [card] = load_memory(home / "memory").items.values()
    assert card.evidence[0].quote == QUOTE
    assert PI_KEY in json.loads((home / "state" / "ledger.json").read_text("utf-8"))
    assert ingest(home=str(home)).sessions_read == 0
