"""Malformed requests get a 4xx with a message, never a 500."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.conftest import IssueToken

GOOD = {"prompt": "hello", "session_id": "s", "turn": 1}


@pytest.fixture(scope="module")
def auth(issue_token: IssueToken) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token('full')}"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"session_id": "s", "turn": 1}, "prompt"),
        ({"prompt": "x", "turn": 1}, "session_id"),
        ({**GOOD, "turn": -3}, "turn"),
        ({**GOOD, "turn": "first"}, "turn"),
        ({**GOOD, "prompt": ""}, "prompt"),
        ({**GOOD, "prompt": "x" * 40_000}, "prompt"),
        ({**GOOD, "colour": "teal"}, "colour"),
        ({**GOOD, "previous_turn": "hi"}, "previous_turn"),  # no field: docs/read-path.md
    ],
)
def test_invalid_fields_are_422_naming_the_field(
    client: TestClient, auth: dict[str, str], body: dict, field: str
) -> None:
    response = client.post("/v1/recall", json=body, headers=auth)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert any(field in map(str, error["loc"]) for error in detail), detail


def test_megabyte_prompt_is_refused_before_parsing(client: TestClient, auth: dict) -> None:
    body = {**GOOD, "prompt": "数据" * 600_000}
    response = client.post("/v1/recall", json=body, headers=auth)
    assert response.status_code == 413
    assert "larger than" in response.json()["detail"]


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"\xff\xfe\xfa\x00garbage", b"", b"[]", b'"just a string"', b"null"],
)
def test_invalid_json_and_bytes_are_4xx(client: TestClient, auth: dict, raw: bytes) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    response = client.post("/v1/recall", content=raw, headers=headers)
    assert 400 <= response.status_code < 500
    assert response.json()["detail"]


def test_no_token_bad_token_and_revoked_token_are_401(
    client: TestClient, issue_token: IssueToken, services
) -> None:
    assert client.post("/v1/recall", json=GOOD).status_code == 401
    bad = {"Authorization": "Bearer dm_00000000_nope"}
    assert client.post("/v1/recall", json=GOOD, headers=bad).status_code == 401
    token = issue_token("working")
    headers = {"Authorization": f"Bearer {token}"}
    assert client.post("/v1/recall", json=GOOD, headers=headers).status_code == 200
    assert services.tokens.revoke(token.split("_")[1])
    response = client.post("/v1/recall", json=GOOD, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_unknown_memory_id_is_404_and_bad_id_is_422(client: TestClient, auth: dict) -> None:
    assert client.get("/v1/memories/no-such-card", headers=auth).status_code == 404
    assert client.get("/v1/memories/..%2Fregistry.yaml", headers=auth).status_code in (404, 422)


def test_search_and_projects_answer(client: TestClient, issue_token: IssueToken) -> None:
    headers = {"Authorization": f"Bearer {issue_token('full', ['tabsense'])}"}
    projects = client.get("/v1/projects", headers=headers).json()
    assert [p["id"] for p in projects] == ["tabsense"]
    hits = client.post("/v1/search", json={"query": "数据放在哪里"}, headers=headers).json()
    assert hits["hits"] and {h["project"] for h in hits["hits"]} <= {"tabsense", "global"}
    assert client.post("/v1/search", json={"query": ""}, headers=headers).status_code == 422
    assert client.get("/healthz").json()["status"] == "ok"
