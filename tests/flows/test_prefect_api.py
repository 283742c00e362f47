"""Shell commands' Prefect (dose_mem/cli/prefect_api.py): the server make up started when
it answers, else a temporary one given time to start, and one more try if it did not."""

from __future__ import annotations

import http.server
import threading

import pytest

from dose_mem.cli import prefect_api
from tests.integrations.helpers import free_port


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/api/health" else 404)
        self.end_headers()
        self.wfile.write(b"true")

    def log_message(self, *args: object) -> None:
        pass


def test_a_running_server_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api = f"http://127.0.0.1:{server.server_address[1]}/api"
    try:
        assert "started by make up" in prefect_api.use_prefect(api)
        assert prefect_api.os.environ["PREFECT_API_URL"] == api
    finally:
        server.shutdown()
        monkeypatch.delenv("PREFECT_API_URL", raising=False)


def test_without_one_a_temporary_server_gets_time_to_start(monkeypatch) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", raising=False)
    api = f"http://127.0.0.1:{free_port()}/api"  # nothing listens
    assert prefect_api.use_prefect(api) == "a temporary Prefect server"
    assert "PREFECT_API_URL" not in prefect_api.os.environ
    timeout = prefect_api.os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"]
    assert int(timeout) == prefect_api.EPHEMERAL_STARTUP_S
    monkeypatch.delenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS")


def test_a_server_that_did_not_come_up_is_tried_once_more() -> None:
    calls = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError(prefect_api.NOT_UP + ". Ephemeral server process exited.")
        return "ran"

    assert prefect_api.run_flow(flaky) == "ran" and len(calls) == 2

    def never() -> str:
        raise RuntimeError(prefect_api.NOT_UP)

    with pytest.raises(RuntimeError) as failed:
        prefect_api.run_flow(never)
    assert "make up" in prefect_api.advice(failed.value)

    def other() -> str:
        raise RuntimeError("something else")

    with pytest.raises(RuntimeError, match="something else"):
        prefect_api.run_flow(other)
