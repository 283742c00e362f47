"""POST /v1/sessions stores a pushed transcript in the ingest inbox, once."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from memory_repo.settings import Settings
from tests.conftest import IssueToken

TRANSCRIPTS = Path(__file__).parents[1] / "data" / "transcripts"


def test_push_is_stored_once_under_the_tokens_agent(
    client: TestClient, issue_token: IssueToken, demo_settings: Settings
) -> None:
    source = next((TRANSCRIPTS / "hermes").rglob("*.json*"))
    headers = {"Authorization": f"Bearer {issue_token('full', agent='hermes')}"}
    body = {"transcript": source.read_text(encoding="utf-8")}
    first = client.post("/v1/sessions", json=body, headers=headers)
    assert first.status_code == 202, first.text
    again = client.post("/v1/sessions", json=body, headers=headers)
    assert again.status_code == 202
    assert first.json()["new"] is True and again.json()["new"] is False
    stored = Path(first.json()["path"])
    assert stored.read_bytes() == source.read_bytes()
    assert demo_settings.inbox_path in stored.parents


def test_unknown_format_and_empty_transcript_are_422(
    client: TestClient, issue_token: IssueToken
) -> None:
    headers = {"Authorization": f"Bearer {issue_token('full')}"}
    bad = client.post(
        "/v1/sessions", json={"transcript": "x", "format": "word-doc"}, headers=headers
    )
    assert bad.status_code == 422 and "unknown transcript format" in bad.json()["detail"]
    empty = client.post("/v1/sessions", json={"transcript": ""}, headers=headers)
    assert empty.status_code == 422
    assert client.post("/v1/sessions", json={"transcript": "x"}).status_code == 401
