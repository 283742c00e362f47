"""``dose-mem ingest`` (offline rules provider) SIGKILLed at random points, again and again.

After every kill the memory is a valid git repository holding only whole cards, and the
ledger and run journals are valid JSON; a final uninterrupted run then reaches exactly the
cards of a run that was never killed. ``DOSE_MEM_SOAK_KILLS`` sets the number of kills
(5 in ``make test``, 20 in ``make soak``).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from memory_repo.store import load_memory
from tests.flows.ingest_home import DATA, SOURCES

KILLS = int(os.environ.get("DOSE_MEM_SOAK_KILLS", "5"))
DOSE_MEM = str(Path(sys.executable).with_name("dose-mem"))


def _home(root: Path, api_url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DOSE_MEM_", "OPENAI_")) and k != "PREFECT_API_URL"
    }
    env.update(
        {
            "DOSE_MEM_HOME": str(root / "home"),
            "DOSE_MEM_CAPTURE_IDLE_MINUTES": "0",
            "PREFECT_API_URL": api_url,
        }
    )
    for agent, var in SOURCES.items():
        shutil.copytree(DATA / agent, root / "sources" / agent)
        env[var] = str(root / "sources" / agent)
    return env


def _ingest(env: dict[str, str], kill_after: float | None = None) -> int:
    """Run ``dose-mem ingest``; with ``kill_after``, SIGKILL its whole process group then."""
    proc = subprocess.Popen(
        [DOSE_MEM, "ingest"],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    if kill_after is None:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()[-3000:]
        return 0
    try:
        proc.wait(kill_after)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    return proc.returncode


def _cards(memory: Path) -> dict[str, str]:
    loaded = load_memory(memory)
    assert loaded.problems == [], loaded.problems  # whole cards only
    # evidence (and so the file hash) names the run that wrote it, which differs by design
    return {
        i.id: i.model_dump_json(exclude={"evidence", "content_hash"}) for i in loaded.items.values()
    }


def _assert_consistent(home: Path) -> None:
    memory, state = home / "memory", home / "state"
    if (memory / ".git").exists():
        fsck = subprocess.run(
            ["git", "-C", str(memory), "fsck", "--no-dangling"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert fsck.returncode == 0, fsck.stdout + fsck.stderr
        _cards(memory)
    if (state / "ledger.json").exists():
        json.loads((state / "ledger.json").read_text("utf-8"))
    for journal in (state / "runs").glob("*.json") if (state / "runs").exists() else []:
        json.loads(journal.read_text("utf-8"))


def test_sigkill_at_random_points_loses_and_duplicates_nothing(
    tmp_path: Path, prefect_api: str
) -> None:
    reference = _home(tmp_path / "reference", prefect_api)
    started = time.monotonic()
    _ingest(reference)
    full_run_s = time.monotonic() - started
    expected = _cards(Path(reference["DOSE_MEM_HOME"]) / "memory")
    assert expected  # the transcripts really yield cards

    env = _home(tmp_path / "killed", prefect_api)
    home = Path(env["DOSE_MEM_HOME"])
    rng = random.Random(int(os.environ.get("DOSE_MEM_SOAK_SEED", "6")))
    killed = 0
    for _ in range(KILLS):
        code = _ingest(env, kill_after=rng.uniform(0.3, full_run_s))
        killed += code == -signal.SIGKILL
        _assert_consistent(home)
    assert killed >= 1  # at least one run really died part-way
    _ingest(env)
    _assert_consistent(home)
    assert _cards(home / "memory") == expected
    status = subprocess.run(
        ["git", "-C", str(home / "memory"), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""
