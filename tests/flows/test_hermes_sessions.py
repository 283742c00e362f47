"""Hermes Agent sessions written by Hermes' own code (hermes-agent 0.19.0), read by dose-mem.

No mocks: ``hermes_python()`` installs the real package into ``.tools/agents``, the
writer drives ``hermes_state.SessionDB`` (in-place compaction, the rotation handoff,
rewind, delegation as Hermes does them) and ``hermes.read_db`` reads the file.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
import yaml
from ingest_home import OLD_HERMES_SCHEMA

from evaluation.agents.hermes_writer import write_hermes_sessions
from evaluation.agents.install import hermes_python
from memory_repo.transcripts import hermes
from memory_repo.transcripts.transcript import Transcript

ROOT_ID = "20261103_091500_a1b2c3"
CONT_ID = "20261103_094500_d4e5f6"
SUB_ID = "20261103_093000_0de1e9"
CHAT_ID = "20261104_120000_7e1e9a"
HARBOR = "/home/mei/src/harbor"

U1 = "For harbor, always run the migrations with --dry-run first."
U2 = "Please check that the release branch builds."
U3 = "Which port does the staging proxy use?"
REWOUND = "Deploy harbor to production right now."
U5 = "Use blue-green deploys for harbor from now on."
U6 = "Thanks, let's continue after lunch."
U7 = "Yes, and keep the changelog in CHANGES.md."
U8 = "Ship it."
HARNESS = "Review the conversation above and consider saving to memory anything durable."
SUB_PROMPT = "Summarise the failing migration logs in two lines."

# Three compactions, each shaped as the compressor shapes it: in place with a standalone
# user-role summary (head 2, tail opening with an assistant turn), the rotation's handoff
# with an assistant-role summary, then in place again with the summary merged into the
# kept user message (head and tail would both collide).
SPEC = f"""
- id: "{ROOT_ID}"
  source: cli
  cwd: {HARBOR}
  git_repo_root: {HARBOR}
  git_branch: main
  title: Harbor release prep
  started: "2026-11-03T09:15:00Z"
  end_reason: compression
  messages:
    - {{role: user, content: "{U1}"}}
    - {{role: assistant, content: "Noted: migrations get a dry run first."}}
    - {{role: user, content: "{U2}"}}
    - {{role: assistant, content: "", tool_calls: [{{name: terminal, arguments: "{{}}"}}]}}
    - {{role: tool, tool_name: terminal, content: "build ok"}}
    - {{role: assistant, content: "The release branch builds cleanly."}}
    - {{role: user, content: "{U3}"}}
    - {{role: assistant, content: "The staging proxy listens on 8443."}}
    - {{compact: "Mei set up harbor's release checks.", head: 2, keep: 3}}
    - {{role: user, content: "{REWOUND}"}}
    - {{role: assistant, content: "Deploying now."}}
    - {{rewind: 2}}
    - {{role: user, content: "{U5}"}}
    - {{role: assistant, content: "Understood."}}
    - {{review_harness: "{HARNESS}", reply: "Saved one memory."}}
    - {{role: user, content: "{U6}"}}
- id: "{SUB_ID}"
  source: cli
  parent: "{ROOT_ID}"
  relation: delegate
  started: "2026-11-03T09:30:00Z"
  end_reason: completed
  messages:
    - {{role: user, content: "{SUB_PROMPT}"}}
    - {{role: assistant, content: "Two migrations fail on a missing index."}}
- id: "{CONT_ID}"
  source: cli
  parent: "{ROOT_ID}"
  relation: compression
  title: Harbor release prep #2
  started: "2026-11-03T09:45:00Z"
  end_reason: user_exit
  messages:
    - {{compact: "Release checks done; blue-green deploys agreed.", keep: 1}}
    - {{role: assistant, content: "Welcome back. Shall we continue?"}}
    - {{role: user, content: "{U7}"}}
    - {{role: assistant, content: "Will do."}}
    - {{compact: "Changelog location agreed.", head: 1, keep: 2}}
    - {{role: user, content: "{U8}"}}
- id: "{CHAT_ID}"
  source: telegram
  title: Weekend plans
  started: "2026-11-04T12:00:00Z"
  messages:
    - {{role: user, content: "Book a table for Saturday evening."}}
    - {{role: assistant, content: "Booked for 19:30."}}
"""


@pytest.fixture(scope="session")
def hermes_py() -> Path:
    return hermes_python()


@pytest.fixture(scope="module")
def state_db(hermes_py: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_hermes_sessions(yaml.safe_load(SPEC), tmp_path_factory.mktemp("hermes"))


@pytest.fixture(scope="module")
def read(state_db: Path) -> dict[str, Transcript]:
    return {t.session_id: t for t in hermes.read_db(state_db)}


def _users(t: Transcript) -> list[str]:
    return [turn.text for turn in t.turns if turn.role == "user"]


def _db_rows(db: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_the_writer_wrote_what_hermes_writes(state_db: Path) -> None:
    """The states the reader must handle are really in the file, stamped as the spec says."""
    states = dict(
        _db_rows(state_db, "SELECT active || '/' || compacted, COUNT(*) FROM messages GROUP BY 1")
    )
    assert states["0/1"] > 0 and states["0/0"] == 2 and states["1/0"] > 0
    summaries = _db_rows(
        state_db,
        "SELECT role, content LIKE '[PRIOR CONTEXT%' FROM messages"
        " WHERE content LIKE '%[CONTEXT COMPACTION%' ORDER BY id",
    )
    # in place (user role), the handoff (assistant), its copy kept as the third compaction's
    # head, and that compaction's summary merged into the kept user message
    assert summaries == [("user", 0), ("assistant", 0), ("assistant", 0), ("user", 1)]
    [(started, ended)] = _db_rows(
        state_db, f"SELECT started_at, ended_at FROM sessions WHERE id = '{ROOT_ID}'"
    )
    assert started == dt.datetime(2026, 11, 3, 9, 15, tzinfo=dt.UTC).timestamp()
    assert ended == started + 16 * 60


def test_project_and_session_fields_are_read(read: dict[str, Transcript]) -> None:
    root = read[ROOT_ID]
    assert (root.cwd, root.repo_root, root.source) == (HARBOR, HARBOR, "cli")
    assert root.title == "Harbor release prep" and root.parent is None and root.skip is None
    assert root.started == dt.datetime(2026, 11, 3, 9, 15, tzinfo=dt.UTC)
    chat = read[CHAT_ID]
    assert (chat.cwd, chat.repo_root, chat.source, chat.title) == (
        None,
        None,
        "telegram",
        "Weekend plans",
    )
    assert _users(chat) == ["Book a table for Saturday evening."]


def test_a_compression_continuation_is_joined_to_its_root(read: dict[str, Transcript]) -> None:
    assert CONT_ID not in read and set(read) == {ROOT_ID, SUB_ID, CHAT_ID}
    root = read[ROOT_ID]
    assert root.parts == [CONT_ID]
    assert root.path.endswith(f"#{ROOT_ID}")
    assert root.ended == dt.datetime(2026, 11, 3, 9, 51, tzinfo=dt.UTC)  # the tip's end
    times = [turn.at for turn in root.turns]
    assert times == sorted(times)
    assert "Will do." in [turn.text for turn in root.turns if turn.role == "assistant"]
    assert {"terminal"} == {name for turn in root.turns for name in turn.tools}


def test_only_the_persons_words_are_user_turns_each_once(read: dict[str, Transcript]) -> None:
    """Summaries (standalone or merged), rewound rows, the review harness and its reply and
    the compactions' copies are gone; the compacted originals are read exactly once."""
    root = read[ROOT_ID]
    assert _users(root) == [U1, U2, U3, U5, U6, U7, U8]
    texts = [turn.text for turn in root.turns]
    assert not any("CONTEXT COMPACTION" in t or "PRIOR CONTEXT" in t for t in texts)
    assert REWOUND not in texts and "Deploying now." not in texts
    assert not any(t.startswith("Review the conversation above") for t in texts)
    assert "Saved one memory." not in texts
    assert texts.count("The staging proxy listens on 8443.") == 1


def test_a_delegated_sub_agent_is_skipped_with_its_parents_cwd(
    read: dict[str, Transcript],
) -> None:
    sub = read[SUB_ID]
    assert sub.skip is not None and sub.skip.startswith(f"delegated sub-agent of {ROOT_ID}")
    assert "not the person's" in sub.skip
    assert (sub.cwd, sub.repo_root, sub.parent) == (HARBOR, HARBOR, ROOT_ID)
    assert _users(sub) == [SUB_PROMPT]  # returned whole, for capture to count as skipped
    assert SUB_PROMPT not in _users(read[ROOT_ID])


def test_every_summary_prefix_hermes_has_used_is_recognised(
    hermes_py: Path, tmp_path: Path
) -> None:
    """The current, legacy and historical prefixes, taken from Hermes' own module."""
    script = (
        "import json; from agent.context_compressor import SUMMARY_PREFIX as S, "
        "LEGACY_SUMMARY_PREFIX as L, _HISTORICAL_SUMMARY_PREFIXES as H; "
        "print(json.dumps([S, L, *H]))"
    )
    env = {"HERMES_HOME": str(tmp_path / "hermes-home")}
    done = subprocess.run(
        [str(hermes_py), "-c", script], capture_output=True, text=True, check=True, env=env
    )
    prefixes = json.loads(done.stdout)
    assert len(prefixes) >= 3
    lines = [{"role": "user", "content": f"{p}\nThe user wants X."} for p in prefixes]
    lines.append({"role": "user", "content": "A real request."})
    path = tmp_path / "sessions" / "s1.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n")
    assert _users(hermes.read(path)) == ["A real request."]


def test_an_old_database_without_the_new_columns_still_reads(tmp_path: Path) -> None:
    """Built by hand as early Hermes made it: no cwd, parent, model_config, active, title."""
    db = tmp_path / "state.db"
    conn = sqlite3.connect(db)
    conn.executescript(
        OLD_HERMES_SCHEMA
        + "INSERT INTO sessions VALUES ('old1', 'cli', 1763240400, 1763240600, 'idle');"
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES"
        " ('old1', 'user', 'Always answer in English.', 1763240400),"
        " ('old1', 'assistant', 'Sure.', 1763240460),"
        " ('old1', 'user', '[CONTEXT SUMMARY]: earlier turns', 1763240520);"
    )
    conn.commit()
    conn.close()
    [t] = list(hermes.read_db(db))
    assert (t.session_id, t.source, t.cwd, t.parent, t.parts, t.skip) == (
        "old1",
        "cli",
        None,
        None,
        [],
        None,
    )
    assert _users(t) == ["Always answer in English."]


def test_newer_schema_hidden_rows_and_persisted_summary_flags_are_dropped(
    hermes_py: Path, tmp_path: Path
) -> None:
    """GitHub main (hermes_state_common.py at 00704d087b7c) adds ``display_kind``,
    ``display_metadata`` and ``_compressed_summary`` to ``messages``; 0.19.0 has none of
    them, so they are added to a writer-made database as Hermes' column reconcile would."""
    spec = [
        {
            "id": "new1",
            "source": "cli",
            "cwd": HARBOR,
            "started": "2026-11-05T08:00:00Z",
            "messages": [
                {"role": "user", "content": "Keep release notes short."},
                {"role": "user", "content": "model-facing note the person never saw"},
                {"role": "assistant", "content": "Handoff: the release notes were discussed."},
                {"role": "assistant", "content": "Noted."},
            ],
        }
    ]
    db = write_hermes_sessions(spec, tmp_path / "hermes")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("ALTER TABLE messages ADD COLUMN display_kind TEXT")
        conn.execute("ALTER TABLE messages ADD COLUMN display_metadata TEXT")
        conn.execute(
            "ALTER TABLE messages ADD COLUMN _compressed_summary INTEGER NOT NULL DEFAULT 0"
        )
        conn.execute("UPDATE messages SET display_kind = 'hidden' WHERE content LIKE 'model-%'")
        conn.execute("UPDATE messages SET _compressed_summary = 1 WHERE content LIKE 'Handoff%'")
    conn.close()
    [t] = list(hermes.read_db(db))
    assert [turn.text for turn in t.turns] == ["Keep release notes short.", "Noted."]
