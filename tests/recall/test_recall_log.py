"""The recall log: what each recall decided and why, the searches and reads after it,
redaction and hashing of prompts, its size and age bounds, and the join of signals."""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from memory_repo.demo import DEMO_IDS
from memory_repo.recall_log import (
    CURRENT,
    ROTATE_SHARE,
    RecallLog,
    RecallLogEntry,
    joined,
    log_files,
    read_entries,
)
from memory_repo.settings import Settings
from recall_api.deps import Services
from recall_api.models import Identity, RecallRequest
from recall_api.services import recall_log_for
from tests.conftest import IssueToken

TABLEKIT = "/home/demo/code/tablekit"
UV = DEMO_IDS["uv"]


@pytest.fixture
def logged(services: Services, tmp_path: Path) -> Iterator[RecallLog]:
    """The shared engine, writing to a log of this test's own."""
    log = RecallLog(tmp_path / "log", days=30, max_mb=64, prompts="text")
    before = services.engine.recall_log
    services.engine.recall_log = log
    yield log
    services.engine.recall_log = before
    log.close()


def test_a_recall_is_logged_with_its_candidates_scores_and_bars(
    services: Services, logged: RecallLog
) -> None:
    who = Identity(agent="claude-code", profile="working", projects=None)
    request = RecallRequest(
        prompt="set up the python environment with uv", session_id="s1", turn=1, cwd=TABLEKIT
    )
    result = services.engine.recall(who, request)
    logged.flush()
    [entry] = read_entries(logged.folder)
    assert entry.kind == "recall"
    assert (entry.agent, entry.profile, entry.session, entry.turn) == (
        "claude-code",
        "working",
        "s1",
        1,
    )
    assert (entry.project, entry.project_how) == ("tablekit", "cwd")
    assert entry.trigger == "first_turn" and entry.reason == result.reason.value
    assert entry.prompt == request.prompt and len(entry.prompt_sha256) == 64
    assert entry.injected == [i.id for i in result.items] and UV in entry.injected
    assert entry.bytes == result.bytes > 0
    assert entry.candidates, "the gate's candidates are logged"
    for c in entry.candidates:
        if c.dropped == "item_cap":
            assert c.score is None
            continue
        assert c.score is not None and c.bar is not None
        if c.dropped is None:
            assert c.id in entry.injected and c.score >= c.bar
        elif c.dropped == "below_threshold":
            assert c.score < c.bar
    assert {c.id for c in entry.candidates if c.dropped is None} == set(entry.injected)


def test_quiet_recalls_say_why(services: Services, logged: RecallLog) -> None:
    who = Identity(agent="claude-code", profile="working", projects=None)
    services.engine.recall(
        who, RecallRequest(prompt="fix the typo", session_id="s2", turn=1, cwd=TABLEKIT)
    )
    services.engine.recall(
        who, RecallRequest(prompt="now run it", session_id="s2", turn=2, cwd=TABLEKIT)
    )
    logged.flush()
    first, second = read_entries(logged.folder, session="s2")
    assert first.reason == "below_threshold" and first.injected == []
    assert all(c.dropped for c in first.candidates)
    assert second.reason == "not_triggered" and second.candidates == []


def test_searches_and_reads_over_http_join_the_recall_before_them(
    client: TestClient, issue_token: IssueToken, logged: RecallLog
) -> None:
    auth = {"Authorization": f"Bearer {issue_token('working', agent='codex-log')}"}
    body = {"prompt": "fix the typo in the readme", "session_id": "h1", "turn": 1, "cwd": TABLEKIT}
    assert client.post("/v1/recall", json=body, headers=auth).status_code == 200
    search = {"query": "python environment", "cwd": TABLEKIT, "session_id": "h1", "turn": 1}
    hits = client.post("/v1/search", json=search, headers=auth).json()["hits"]
    assert UV in [h["item_id"] for h in hits]
    read = client.get(f"/v1/memories/{UV}", params={"session_id": "h1", "turn": 2}, headers=auth)
    assert read.status_code == 200
    logged.flush()
    entries = read_entries(logged.folder, agent="codex-log")
    assert [e.kind for e in entries] == ["recall", "search", "read"]
    assert UV in entries[1].ids and entries[2].ids == [UV]
    [pair] = joined(entries)
    assert pair.recall.session == "h1" and pair.searched and pair.read_ids == [UV]


def test_bad_session_on_a_read_is_a_422(client: TestClient, issue_token: IssueToken) -> None:
    auth = {"Authorization": f"Bearer {issue_token('working')}"}
    response = client.get(f"/v1/memories/{UV}", params={"turn": 0}, headers=auth)
    assert response.status_code == 422


def _entry(kind: str, minute: int, **fields: object) -> RecallLogEntry:
    at = dt.datetime(2026, 12, 1, 9, tzinfo=dt.UTC) + dt.timedelta(minutes=minute)
    return RecallLogEntry.model_validate(
        {"kind": kind, "at": at, "agent": "a", "profile": "working", **fields}
    )


def test_join_respects_turns_agents_and_sessions() -> None:
    entries = [
        _entry("recall", 0, session="s", turn=1),
        _entry("recall", 1, session="s", turn=2),
        _entry("search", 2, ids=["x"]),  # no session: the agent's latest recall's
        _entry("recall", 3, session="s", turn=5),
        _entry("read", 4, session="s", turn=5, ids=["y"]),
        _entry("read", 5, session="other", turn=1, ids=["z"]),  # no recall in that session
        _entry("read", 6, agent="b", session="s", turn=5, ids=["w"]),  # another agent
    ]
    first, second, third = joined(entries, turns=3)
    assert [s.ids for s in first.signals] == [["x"]]  # turn 2 is within 3 turns of 1
    assert [s.ids for s in second.signals] == [["x"]]
    assert third.read_ids == ["y"]  # turn 5 is too far from turns 1 and 2
    late = _entry("search", 60 * 3, ids=["q"])  # past the sessionless window
    assert all(late not in j.signals for j in joined([*entries, late]))


def test_prompts_are_redacted_or_only_hashed(tmp_path: Path) -> None:
    secret = "sk-" + "A1b2C3d4E5f6G7h8J9k0"
    for mode in ("text", "hash"):
        log = RecallLog(tmp_path / mode, days=30, max_mb=1, prompts=mode)  # type: ignore[arg-type]
        log.record("search", agent="a", profile="working", prompt=f"why does {secret} fail")
        log.close()
        raw = (tmp_path / mode / CURRENT).read_text("utf-8")
        assert secret not in raw
        [entry] = read_entries(tmp_path / mode)
        assert len(entry.prompt_sha256) == 64
        if mode == "text":
            assert entry.prompt == "why does [redacted] fail"
        else:
            assert entry.prompt is None and "why does" not in raw


def test_the_log_stays_within_its_size_and_age(tmp_path: Path) -> None:
    folder = tmp_path / "log"
    folder.mkdir()
    old = folder / "20200101T000000000000.jsonl"
    old.write_text("{}\n")
    forty_days_ago = dt.datetime.now(dt.UTC).timestamp() - 40 * 86400
    os.utime(old, (forty_days_ago, forty_days_ago))
    max_mb = 0.2
    log = RecallLog(folder, days=30, max_mb=max_mb, prompts="text")
    for n in range(2000):
        log.record("search", agent="a", profile="working", prompt=f"query {n} " + "x" * 200)
    log.close()
    assert not old.exists(), "a file past the retention days is deleted"
    files = log_files(folder)
    assert len(files) >= 2, "the current file was rotated"
    total = sum(p.stat().st_size for p in files)
    assert total <= max_mb * 1024 * 1024 * (1 + ROTATE_SHARE)
    entries = read_entries(folder)
    assert entries and (entries[-1].prompt or "").startswith("query 1999")
    assert len(read_entries(folder, limit=5)) == 5


def test_a_torn_line_is_skipped_with_its_file_and_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = RecallLog(tmp_path, days=30, max_mb=1, prompts="text")
    log.record("read", agent="a", profile="working", ids=["x"])
    log.close()
    with (tmp_path / CURRENT).open("a") as fh:
        fh.write('{"kind": "recall", "at": \n')
    with caplog.at_level(logging.WARNING):
        entries = read_entries(tmp_path)
    assert [e.ids for e in entries] == [["x"]]
    assert f"{tmp_path / CURRENT}:2" in caplog.text
    assert read_entries(tmp_path / "missing") == []


def test_the_log_can_be_turned_off(tmp_path: Path) -> None:
    assert recall_log_for(Settings(home=tmp_path, recall_log=False)) is None
    on = recall_log_for(Settings(home=tmp_path))
    assert on is not None and on.folder == tmp_path / "state" / "recall_log"
    on.close()
