"""Who may open /ui: admin tokens only, by bearer header or the login cookie; agent tokens
get 403, no token 401; admin tokens in turn open nothing of the agent API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from memory_repo.settings import Settings
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.inspector.auth import COOKIE
from recall_api.tokens import TokenStore, tokens_path

PAGES = [
    "/ui/dose",
    "/ui/cards",
    "/ui/log",
    "/ui/profiles",
    "/ui/runs",
    "/ui/cards/uv-for-python-envs",
]


@pytest.fixture(scope="module")
def client(demo_settings: Settings, services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(demo_settings, services), base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture(scope="module")
def admin(demo_settings: Settings) -> str:
    return TokenStore(tokens_path(demo_settings)).issue("person", "admin", None, admin=True)[0]


@pytest.mark.parametrize("path", PAGES)
def test_no_token_gets_the_login_page_with_401(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 401
    assert 'action="/ui/login"' in r.text


@pytest.mark.parametrize("path", PAGES)
def test_an_agent_token_gets_403(client: TestClient, issue_token, path: str) -> None:
    agent = issue_token("working", agent="claude-code")
    r = client.get(path, headers={"Authorization": f"Bearer {agent}"})
    assert r.status_code == 403
    assert "agent token cannot open the inspector" in r.text
    client.cookies.set(COOKIE, agent, path="/ui")
    try:
        assert client.get(path).status_code == 403
    finally:
        client.cookies.clear()


def test_login_with_an_agent_token_is_refused_and_sets_no_cookie(
    client: TestClient, issue_token
) -> None:
    agent = issue_token("full", agent="hermes")
    r = client.post("/ui/login", data={"token": agent}, follow_redirects=False)
    assert r.status_code == 403
    assert COOKIE not in r.headers.get("set-cookie", "")


def test_admin_login_sets_a_strict_httponly_cookie_that_opens_every_page(
    client: TestClient, admin: str
) -> None:
    r = client.post("/ui/login", data={"token": admin}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/dose"
    cookie = r.headers["set-cookie"]
    assert f"{COOKIE}=" in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    try:
        for path in PAGES:
            assert client.get(path).status_code == 200, path
        out = client.post("/ui/logout", follow_redirects=False)
        assert out.status_code == 303 and f'{COOKIE}=""' in out.headers["set-cookie"]
    finally:
        client.cookies.clear()


def test_a_wrong_or_revoked_admin_token_is_401(client: TestClient, demo_settings: Settings) -> None:
    store = TokenStore(tokens_path(demo_settings))
    token, record = store.issue("person", "admin", None, admin=True)
    assert client.get("/ui/cards", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    store.revoke(record.id)
    assert client.get("/ui/cards", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert client.get("/ui/cards", headers={"Authorization": "Bearer dm_x_y"}).status_code == 401


def test_an_admin_token_opens_nothing_of_the_agent_api(client: TestClient, admin: str) -> None:
    headers = {"Authorization": f"Bearer {admin}"}
    body = {"prompt": "Set up the Python environment", "session_id": "s", "turn": 1}
    assert client.post("/v1/recall", json=body, headers=headers).status_code == 403
    assert client.get("/v1/memories/uv-for-python-envs", headers=headers).status_code == 403


def test_a_cross_origin_post_is_refused(client: TestClient, admin: str) -> None:
    r = client.post(
        "/ui/login",
        data={"token": admin},
        headers={"Origin": "http://evil.example"},
        follow_redirects=False,
    )
    assert r.status_code == 403 and "cross-origin" in r.text


def test_bad_input_is_a_4xx_page(client: TestClient, admin: str) -> None:
    headers = {"Authorization": f"Bearer {admin}"}
    assert client.get("/ui/cards/no-such-card", headers=headers).status_code == 404
    assert client.get("/ui/cards/..%2Fetc", headers=headers).status_code in (404, 422)
    assert client.get("/ui/dose?prompt=x&turn=0", headers=headers).status_code == 422
    assert client.get("/ui/runs/no-such-run/rollback", headers=headers).status_code == 404
    huge = client.post(
        "/ui/login",
        content=b"token=" + b"a" * 20_000,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert huge.status_code == 413
