"""An accepted task event survives a SIGKILL of the service the instant after its 202.

``dose-mem serve`` runs as its own process; four clients report background commands at
once; the service is killed with SIGKILL right after the last 202 arrives. Every
accepted event is in the journal, and a restarted service lists every task.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from memory_repo.settings import Settings
from memory_repo.tasks import journal
from recall_api.tokens import TokenStore
from tests.integrations.helpers import clean_env, free_port

DOSE_MEM = str(Path(sys.executable).with_name("dose-mem"))
RESEARCH = "/home/demo/research/tabsense"


def serve(home: Path, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [DOSE_MEM, "--home", str(home), "serve", "--port", str(port)],
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).is_success:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError("the service did not start")


def report(url: str, token: str, n: int) -> str:
    body = {
        "source": "claude-code",
        "event": "PostToolUse",
        "payload": {
            "cwd": RESEARCH,
            "session_id": f"kill-{n}",
            "tool_input": {"command": f"nohup python train.py --config k{n} > logs/k{n}.log &"},
        },
    }
    answer = httpx.post(
        f"{url}/v1/tasks/events", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 202, answer.text
    (task,) = answer.json()["tasks"]
    return task


def test_every_accepted_event_survives_sigkill(demo: Settings, tokens: TokenStore) -> None:
    token, _ = tokens.issue("claude-code", "working", ["tabsense"])
    before, _ = journal.read(demo.tasks_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve(demo.home, port)
    try:
        with ThreadPoolExecutor(4) as pool:
            accepted = list(pool.map(lambda n: report(url, token, n), range(24)))
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # no shutdown, no flush: the instant after
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    events, problems = journal.read(demo.tasks_path)
    assert problems == []
    new = events[len(before) :]
    assert sorted(e.task for e in new) == sorted(accepted)
    assert all(e.status == "running" for e in new)

    proc = serve(demo.home, port)
    try:
        listed = httpx.get(
            f"{url}/v1/tasks?project=tabsense", headers={"Authorization": f"Bearer {token}"}
        ).json()
    finally:
        proc.terminate()
        proc.wait(30)
    assert set(accepted) <= {t["id"] for t in listed}
    assert {t["log_path"] for t in listed if t["id"] in accepted} == {
        f"logs/k{n}.log" for n in range(24)
    }


def test_serve_right_after_init_builds_the_index_and_answers(tmp_path: Path) -> None:
    """A memory with no index yet: serve builds it, says so, and answers /healthz."""
    home = tmp_path / "new-home"
    init = subprocess.run(
        [DOSE_MEM, "--home", str(home), "init"], env=clean_env(), capture_output=True, timeout=120
    )
    assert init.returncode == 0, init.stderr
    assert not (home / "state" / "index").exists()
    proc = serve(home, free_port())
    try:
        assert (home / "state" / "index").is_dir()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert b"no index at" in err and b"building it" in err
