"""Tokens are compared in constant time and a revocation from another process is honoured
on the very next request; the service refuses a non-loopback address unless told."""

from __future__ import annotations

import hmac
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from memory_repo.settings import Settings
from recall_api import tokens as tokens_module
from recall_api.app import create_app
from recall_api.deps import Services
from recall_api.tokens import TokenError, TokenStore
from tests.integrations.helpers import LiveServer, clean_env, free_port

DOSE_MEM = str(Path(sys.executable).with_name("dose-mem"))


def serve_on_all_addresses(demo: Settings, port: int, *extra: str) -> list[str]:
    """``dose-mem serve`` asked to listen on 0.0.0.0, the address loopback-only refuses."""
    home = ["--home", str(demo.home)]
    return [DOSE_MEM, *home, "serve", "--host", "0.0.0.0", "--port", str(port), *extra]


@pytest.fixture
def compare_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def counting(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(tokens_module.hmac, "compare_digest", counting)
    return calls


def test_verify_compares_digests_with_compare_digest(tmp_path: Path, compare_calls) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    token, record = store.issue("a", "full", None)
    assert store.verify(token).id == record.id
    assert len(compare_calls) == 1
    assert compare_calls[0][0] == record.sha256 and token.split("_", 2)[2] not in compare_calls[0]


def test_a_wrong_secret_and_a_wrong_id_cost_the_same_work(tmp_path: Path, compare_calls) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    token, record = store.issue("a", "full", None)
    _, token_id, secret = token.split("_", 2)
    wrong_secret = f"dm_{token_id}_{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}"
    wrong_id = f"dm_{'0' * len(token_id)}_{secret}"
    for bad in (wrong_secret, wrong_id):
        compare_calls.clear()
        with pytest.raises(TokenError, match="unknown or revoked") as err:
            store.verify(bad)
        assert len(compare_calls) == 1, bad
        assert [len(a) for a, _ in compare_calls] == [len(record.sha256)]
        assert str(err.value) == "unknown or revoked token"  # the same message either way


def test_revoking_in_another_process_refuses_the_next_request(
    demo: Settings, services: Services, tokens: TokenStore
) -> None:
    token, record = tokens.issue("revokee", "full", None)
    body = {"prompt": "Set up the Python environment", "session_id": "r", "turn": 1}
    with LiveServer(create_app(demo, services)) as live, httpx.Client(base_url=live.url) as http:
        auth = {"Authorization": f"Bearer {token}"}
        assert http.post("/v1/recall", json=body, headers=auth).status_code == 200
        done = subprocess.run(
            [DOSE_MEM, "--home", str(demo.home), "token", "revoke", record.id],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        refused = http.post("/v1/recall", json=body, headers=auth)
        assert refused.status_code == 401
        assert http.get("/v1/projects", headers=auth).status_code == 401


def test_serve_refuses_a_non_loopback_address(demo: Settings) -> None:
    done = subprocess.run(
        serve_on_all_addresses(demo, free_port()),
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "refusing to listen on 0.0.0.0" in done.stderr and "--allow-remote" in done.stderr


def test_serve_with_allow_remote_starts(demo: Settings) -> None:
    port = free_port()
    proc = subprocess.Popen(
        serve_on_all_addresses(demo, port, "--allow-remote"),
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        healthy = False
        while time.monotonic() < deadline and proc.poll() is None and not healthy:
            try:
                healthy = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).is_success
            except httpx.HTTPError:
                time.sleep(0.2)
        assert healthy, proc.stderr.read().decode() if proc.poll() is not None else "no answer"
    finally:
        proc.terminate()
        proc.wait(20)
