"""Shared by the integration tests: free ports, a live uvicorn, a clean env, a clock."""

from __future__ import annotations

import datetime as dt
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """The test process's environment without any DOSE_MEM_* that could leak in, and a
    fresh client outbox (unless ``extra`` names one), so that what one run could not send
    is never delivered by another test's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSE_MEM_")}
    env["DOSE_MEM_OUTBOX"] = tempfile.mkdtemp(prefix="dose-mem-outbox-")
    env.update(extra)
    return env


class LiveServer:
    """An ASGI app on a real uvicorn in a background thread, on a free loopback port."""

    def __init__(self, app: object, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


T0 = dt.datetime(2026, 12, 4, 14, 2, tzinfo=dt.UTC)


class Clock:
    """A settable clock for a service's task board."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


DOSE_MEM = str(Path(sys.executable).with_name("dose-mem"))


def connect(agent: str, token: str, url: str | None = None, **env: str) -> str:
    """``dose-mem connect AGENT --token TOKEN [--url URL]`` as a person runs it, with the
    agent's home given by its own variable in ``env``; its report (stdout)."""
    command = [DOSE_MEM, "connect", agent, "--token", token, *(["--url", url] if url else [])]
    done = subprocess.run(
        command, env=clean_env(**env), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def codex_homes(codex_home: Path, dose_home: Path) -> dict[str, str]:
    """The environment a Codex run in a test gets: its own home and CODEX_HOME, the
    dose-mem home, and the venv's ``dose-mem`` first on PATH."""
    return {
        "CODEX_HOME": str(codex_home),
        "HOME": str(codex_home.parent),
        "DOSE_MEM_HOME": str(dose_home),
        "PATH": f"{Path(DOSE_MEM).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
