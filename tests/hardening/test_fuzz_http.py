"""Fuzzing every route: random JSON, huge and empty fields, odd Unicode (lone surrogates as
JSON escapes and as raw bytes), wrong types, random headers and tokens. The service may
refuse (4xx) but must never fail (5xx), and must still answer afterwards."""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall_api.tokens import TokenStore

EXAMPLES = int(os.environ.get("DOSE_MEM_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ODD = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "\ud800",
        "\udfff",
        "a\ud834b",
        "\u202e\u2066",
        "\ufeff",
        "🦜" * 50,
        "按我的习惯" * 200,
        "x" * 40_000,
        "../../etc/passwd",
        "'; DROP TABLE chunks; --",
        "p001' OR '1'='1",
        "NaN",
        "\\u0000",
        "全角ｕｖ　空格",
        "e\u0301" * 30,
    ]
)
TEXT = st.one_of(ODD, st.text(max_size=300), st.text(min_size=2000, max_size=5000))
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), TEXT)
JSON = st.recursive(
    SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=12,
)


def _field_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        SCALAR, st.lists(SCALAR, max_size=3), st.dictionaries(TEXT, SCALAR, max_size=2)
    )


RECALL = st.fixed_dictionaries(
    {},
    optional={
        "prompt": _field_values(),
        "session_id": _field_values(),
        "turn": _field_values(),
        "cwd": _field_values(),
        "project": _field_values(),
        "previous_turn": _field_values(),
        "extra": _field_values(),
    },
)
SEARCH = st.fixed_dictionaries(
    {},
    optional={
        "query": _field_values(),
        "project": _field_values(),
        "cwd": _field_values(),
        "k": _field_values(),
        "include_inactive": _field_values(),
    },
)
SESSIONS = st.fixed_dictionaries(
    {}, optional={"transcript": _field_values(), "format": _field_values()}
)
POSTS = {"/v1/recall": RECALL, "/v1/search": SEARCH, "/v1/sessions": SESSIONS}


def _encode(body: Any) -> bytes:
    """JSON as a client would send it; lone surrogates survive as \\ud800 escapes."""
    return json.dumps(body, ensure_ascii=True, allow_nan=True).encode()


@pytest.fixture(scope="module")
def auth(tokens: TokenStore) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {tokens.issue('fuzzer', 'full', None)[0]}",
        "Content-Type": "application/json",
    }


def _ok(response: Any) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:500])


@pytest.mark.parametrize("route", sorted(POSTS))
def test_structured_bodies_never_500(client: TestClient, auth: dict[str, str], route: str) -> None:
    @FUZZ
    @given(body=POSTS[route])
    def run(body: dict[str, Any]) -> None:
        _ok(client.post(route, content=_encode(body), headers=auth))

    run()


@FUZZ
@given(route=st.sampled_from(sorted(POSTS)), body=JSON)
def test_random_json_never_500(
    client: TestClient, auth: dict[str, str], route: str, body: Any
) -> None:
    _ok(client.post(route, content=_encode(body), headers=auth))


@FUZZ
@given(
    route=st.sampled_from(sorted(POSTS)),
    raw=st.one_of(
        st.binary(max_size=2000),
        st.sampled_from(
            [
                b'{"prompt": "\xed\xa0\x80", "session_id": "s", "turn": 1}',
                b'{"query": "\xff\xfe"}',
                b'{"prompt": "a"' * 100,
                b"\x00" * 64,
                b'{"transcript": "\xed\xb0\x80\\n", "format": "pi"}',
            ]
        ),
    ),
)
def test_raw_bytes_never_500(
    client: TestClient, auth: dict[str, str], route: str, raw: bytes
) -> None:
    _ok(client.post(route, content=raw, headers=auth))


@FUZZ
@given(item_id=st.one_of(TEXT, st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,40}", fullmatch=True)))
def test_memory_ids_never_500(client: TestClient, auth: dict[str, str], item_id: str) -> None:
    path = quote(item_id.encode("utf-8", "surrogatepass"), safe="")
    _ok(client.get(f"/v1/memories/{path}", headers=auth))


LATIN1 = st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=300)


@FUZZ
@given(
    route=st.sampled_from(
        [
            "/v1/recall",
            "/v1/search",
            "/v1/sessions",
            "/v1/projects",
            "/v1/memories/uv-for-python-envs",
            "/healthz",
        ]
    ),
    authorization=st.one_of(
        LATIN1,
        LATIN1.map(lambda s: f"Bearer {s}"),
        st.sampled_from(
            ["Bearer dm__", "Bearer dm_x_y", "bearer", "Basic dXNlcjpwYXNz", "Bearer " + "A" * 8000]
        ),
    ),
    extra=st.dictionaries(
        st.from_regex(r"[A-Za-z][A-Za-z0-9-]{0,20}", fullmatch=True), LATIN1, max_size=3
    ),
)
def test_random_headers_and_tokens_never_500(
    client: TestClient, route: str, authorization: str, extra: dict[str, str]
) -> None:
    headers = {
        k: v.encode("latin-1")
        for k, v in {**extra, "Authorization": authorization}.items()
        if k.lower() not in ("content-length", "transfer-encoding", "host")
    }
    if route.startswith("/v1/memories") or route in ("/v1/projects", "/healthz"):
        response = client.get(route, headers=headers)
    else:
        response = client.post(
            route, json={"prompt": "uv", "session_id": "s", "turn": 1}, headers=headers
        )
    _ok(response)
    if route != "/healthz":
        assert response.status_code in (401, 403, 413, 422) or response.is_success


def test_the_service_still_answers_after_the_fuzzing(
    client: TestClient, auth: dict[str, str]
) -> None:
    assert client.get("/healthz").status_code == 200
    got = client.post(
        "/v1/recall",
        headers=auth,
        json={
            "prompt": "Set up the Python environment for this project",
            "session_id": "after",
            "turn": 1,
            "project": "tablekit",
        },
    )
    assert got.status_code == 200 and got.json()["injected"] is True
