"""The readers of Claude Code, Codex and Pi against the files those agents write: only the
person's words become user turns, kept byte for byte.

Pi's sessions are written by Pi's own SessionManager (evaluation/agents/pi.py installs
@mariozechner/pi-coding-agent 0.73.1 once per machine); Claude Code's and Codex's ship as
native binaries that need an account to run, so their files are written here line by
line in the shapes those versions write (Claude Code 2.1.328, Codex 0.171.0; the markers
are listed in docs/capture.md with where they were learned).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import zstandard

from evaluation.agents.pi import write_pi_sessions
from memory_repo.transcripts import claude_code, codex, pi
from memory_repo.transcripts.transcript import Transcript

HARNESS_MARKS = (
    "<command-",
    "<local-command",
    "Caveat:",
    "<system-reminder>",
    "This session is being continued",
    "<bash-",
    "<task-notification",
    "[Request interrupted",
    "Base directory for this skill",
    "<environment_context>",
    "AGENTS.md",
    "<INSTRUCTIONS>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<user_action>",
    "<skill",
    "<subagent_notification>",
    "<hook_prompt",
    "<codex_internal_context",
    "CONTEXT CHECKPOINT",
    "summary of",
    "git status",
)


def users(t: Transcript) -> list[str]:
    return [turn.text for turn in t.turns if turn.role == "user"]


def assert_no_harness(t: Transcript) -> None:
    for text in users(t):
        assert not [mark for mark in HARNESS_MARKS if mark in text], text


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# --- Pi (sessions written by Pi 0.73.1's SessionManager) ---------------------------------

SKILL_PROMPT = (
    '<skill name="release" location="/home/mei/.pi/agent/skills/release/SKILL.md">\n'
    "References are relative to /home/mei/.pi/agent/skills/release.\n\n"
    "Bump the version, tag, push.\n</skill>\n\n"
    "cut 1.4 but skip the changelog this time"
)
PI_SPEC: list[dict[str, Any]] = [
    {
        "cwd": "/home/mei/src/harbor",
        "started": "2026-11-03T09:15:00Z",
        "entries": [
            {"user": "Always run the harbor tests with -p no:cacheprovider."},
            {"assistant": "Reading the config.", "tools": ["read"]},
            {"tool": "read", "result": "[pytest]\naddopts = -q"},
            {"assistant": "Added it to addopts."},
            {"bash": "git status", "output": "modified: pytest.ini", "exit": 0},
            {"user": "Use pnpm, never npm, in the web/ folder."},
            {"assistant": "Switching to npm."},
            {"branch": 2},  # back above "Use pnpm ...": that prompt and its answer abandoned
            {"user": "Use yarn berry in web/, not npm.\n  Keep the lockfile committed."},
            {"assistant": "Noted.", "tools": ["bash"]},
            {"tool": "bash", "result": "error: no lockfile", "error": True},
            {"bash": "ls web", "output": "package.json", "exclude": True},  # `!!ls web`
            {"compact": "The user set pytest flags and yarn berry for web/."},
            {"user": SKILL_PROMPT},
            {"assistant": "Released 1.4."},
            {"branch": 1, "summary": "A summary of the release branch."},
            {"user": "以后提交信息一律用英文写。"},
            {"assistant": "好的。"},
            {"name": "Harbor tooling"},
        ],
    },
    {
        "cwd": "/home/mei/src/harbor",
        "started": "2026-11-04T10:00:00Z",
        "entries": [
            {"user": "Drop the staging deploy step."},
            {"assistant": "Dropped."},
            {"branch": 5},  # above the first entry: a new root, the old one abandoned
            {"user": "Keep the staging deploy, but make it manual."},
            {"assistant": "Made it manual."},
            {"bash": "make deploy", "output": "denied", "exit": 2},
        ],
    },
    {  # never answered: Pi writes no file for it
        "cwd": "/home/mei/src/harbor",
        "started": "2026-11-05T08:00:00Z",
        "entries": [{"user": "hello?"}],
    },
]


@pytest.fixture(scope="session")
def pi_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    sessions = tmp_path_factory.mktemp("pi") / "sessions"
    return sessions, write_pi_sessions(PI_SPEC, sessions)


def test_pi_reads_only_the_active_branch_in_the_persons_words(pi_files) -> None:
    root, paths = pi_files
    assert len(paths) == 2  # the unanswered session has no file, as in Pi
    assert list(pi.discover(root)) == sorted(paths)
    assert {p.parent.name for p in paths} == {"--home-mei-src-harbor--"}
    t = pi.read(paths[0])
    assert users(t) == [
        "Always run the harbor tests with -p no:cacheprovider.",
        "Use yarn berry in web/, not npm.\n  Keep the lockfile committed.",
        "cut 1.4 but skip the changelog this time",
        "以后提交信息一律用英文写。",
    ]
    assert_no_harness(t)
    assert "Switching to npm." not in [turn.text for turn in t.turns]  # abandoned branch
    assert t.session_id in paths[0].name and t.cwd == "/home/mei/src/harbor"
    assert t.title == "Harbor tooling"
    assert t.started is not None and t.started.isoformat() == "2026-11-03T09:15:00+00:00"


def test_pi_bang_commands_are_tool_turns_never_user_turns(pi_files) -> None:
    _, paths = pi_files
    t = pi.read(paths[0])
    bash = [turn.text for turn in t.turns if turn.role == "tool" and turn.tools == ["bash"]]
    assert bash == [
        "git status\nmodified: pytest.ini",
        "error: no lockfile",
        "ls web\npackage.json",
    ]
    assert [turn.error for turn in t.turns if turn.error] == ["error: no lockfile"]
    second = pi.read(paths[1])
    assert users(second) == ["Keep the staging deploy, but make it manual."]
    assert [turn.error for turn in second.turns if turn.error] == ["exit code 2"]


# --- Claude Code (2.1.328 line shapes) ---------------------------------------------------

CC_SESSION = "3f2a9c1e-7b4d-4e8a-9f10-2c3d4e5f6a7b"
CC_CWD = "/home/mei/src/harbor"
CC_WORDS = [
    "Rename parse_table to read_table everywhere.",
    "Never touch the generated files under build/.\nThey come from CI.",
    "The fixtures live in tests/data, not in tests/fixtures.",
    "also keep the old name as an alias",
    "Commit messages start with the ticket number.",
]


def cc(kind: str, n: int, sidechain: bool = False, **fields: Any) -> dict[str, Any]:
    """One line as Claude Code 2.1.328 writes it."""
    line = {
        "parentUuid": None if n == 0 else f"00000000-0000-4000-8000-{n - 1:012d}",
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": CC_CWD,
        "sessionId": CC_SESSION,
        "version": "2.1.328",
        "gitBranch": "main",
        "type": kind,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-11-06T10:{n:02d}:00.000Z",
    }
    return {**line, **fields}


def cc_user(n: int, content: Any, **fields: Any) -> dict[str, Any]:
    return cc("user", n, message={"role": "user", "content": content}, **fields)


def cc_assistant(n: int, *blocks: dict[str, Any], sidechain: bool = False) -> dict[str, Any]:
    message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "content": list(blocks)}
    return cc("assistant", n, sidechain=sidechain, message={**message, "model": "claude-opus-4-5"})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def claude_main_lines(stamped: bool = True) -> list[dict[str, Any]]:
    """A session of 2.1.328 (``stamped``: typed prompts carry ``origin: human``, generated
    ones ``origin: null``) or of a build before ``origin`` (the markers alone)."""
    human = {"origin": {"kind": "human"}} if stamped else {}
    lines = [
        cc_user(0, CC_WORDS[0], **human),
        cc_assistant(1, {"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": {}}),
        cc_user(2, [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "src/a.py:3"}]),
        cc_assistant(3, text("Renamed in 4 files.")),
        cc_user(  # older builds' caveat, flagged isMeta
            4,
            "<local-command-caveat>Caveat: The messages below were generated by the user while"
            " running local commands. DO NOT respond to these messages or otherwise consider"
            " them in your response unless the user explicitly asks you to."
            "</local-command-caveat>",
            isMeta=True,
        ),
        cc_user(  # 2.1.328's caveat, unflagged here to test the text alone
            5,
            "<local-command-caveat>The command below was run directly in Claude Code, not sent to"
            " you as a request, and its output goes straight to the user. It's recorded here as"
            " context for later messages.</local-command-caveat>",
        ),
        cc_user(
            6,
            "<command-name>/model</command-name>\n            <command-message>model"
            "</command-message>\n            <command-args>opus</command-args>",
            **human,
        ),
        cc_user(7, "<local-command-stdout>Set model to opus</local-command-stdout>"),
        cc_user(8, "<local-command-stderr>Unknown option --fast</local-command-stderr>"),
        cc_user(  # 1.x wrote the bare caveat line (isMeta), checked here by its text alone
            9,
            "Caveat: The messages below were generated by the user while running local"
            " commands. DO NOT respond to these messages or otherwise consider them in your"
            " response unless the user explicitly asks you to.",
        ),
        cc_user(  # the person's words with a reminder block prepended by the harness
            10,
            "<system-reminder>\nThe user opened build/gen.py in the IDE.\n</system-reminder>\n"
            + CC_WORDS[1],
            **human,
        ),
        cc_user(
            11,
            [
                text("<system-reminder>Todo list is empty.</system-reminder>"),
                text(CC_WORDS[2]),
                text("<system-reminder>\nMemory updated.\n</system-reminder>"),
            ],
            **human,
        ),
        cc_user(12, "<bash-input>git status</bash-input>", **human),
        cc_user(13, "<bash-stdout>nothing to commit</bash-stdout><bash-stderr></bash-stderr>"),
        cc_user(  # a skill's expansion
            14,
            [text("Base directory for this skill: /home/mei/.claude/skills/review\n\n# Review")],
            isMeta=True,
        ),
        cc_user(15, [text("[Request interrupted by user for tool use]")]),
        cc_user(  # a background task reporting back
            16,
            "<task-notification>\n<task-id>b7</task-id>\n<status>completed</status>\n"
            "</task-notification>",
            origin={"kind": "task-notification"},
        ),
        cc_user(17, "Relay: the peer session finished the migration.", origin={"kind": "peer"}),
        cc(  # typed while Claude worked
            "attachment",
            18,
            attachment={
                "type": "queued_command",
                "prompt": CC_WORDS[3],
                "commandMode": "prompt",
                "origin": {"kind": "human"},
            },
        ),
        cc(
            "attachment",
            19,
            attachment={
                "type": "queued_command",
                "prompt": "<task-notification><status>done</status></task-notification>",
                "commandMode": "task-notification",
            },
        ),
        cc("system", 20, subtype="compact_boundary", content="Conversation compacted"),
        cc_user(
            21,
            "This session is being continued from a previous conversation that ran out of"
            " context. The summary below covers the earlier portion of the conversation.\n\n"
            "Summary: the user renamed parse_table.",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
        cc_user(22, "This session is being continued from a previous conversation that ran"),
        cc_user(23, "Explore the repo for parse_table callers.", sidechain=True),  # old layout
        cc_assistant(24, text("Found 3 callers."), sidechain=True),
        cc_user(25, CC_WORDS[4], **human),
        cc_assistant(26, text("Noted.")),
        {"type": "custom-title", "customTitle": "Rename parse_table", "sessionId": CC_SESSION},
    ]
    if stamped:  # a command's expansion: origin null, no flag, no marker
        lines.append(cc_user(27, "Review the diff for missing tests.", origin=None))
    return lines


def claude_subagent_lines() -> list[dict[str, Any]]:
    agent = {"agentId": "a1b2c3d4e5f60718"}
    return [
        cc_user(0, "Find every caller of parse_table.", sidechain=True, **agent),
        {**cc_assistant(1, text("src/a.py, src/b.py"), sidechain=True), **agent},
    ]


@pytest.fixture
def claude_root(tmp_path: Path) -> Path:
    root = tmp_path / "projects"
    slug = root / "-home-mei-src-harbor"
    write_jsonl(slug / f"{CC_SESSION}.jsonl", claude_main_lines())
    subagents = slug / CC_SESSION / "subagents"
    write_jsonl(subagents / "agent-a1b2c3d4e5f60718.jsonl", claude_subagent_lines())
    write_jsonl(subagents / "workflows" / "wf-1" / "agent-a9.jsonl", claude_subagent_lines())
    write_jsonl(slug / "agent-5d6e7f80.jsonl", claude_subagent_lines())  # 1.x/2.0 layout
    (slug / CC_SESSION / "tool-results").mkdir()
    return root


def test_claude_code_user_turns_are_only_the_persons_words(claude_root: Path) -> None:
    t = claude_code.read(claude_root / "-home-mei-src-harbor" / f"{CC_SESSION}.jsonl")
    assert users(t) == CC_WORDS  # byte for byte, reminders cut out
    assert_no_harness(t)
    assert t.session_id == CC_SESSION and t.cwd == CC_CWD and t.skip is None
    assert t.title == "Rename parse_table"
    assert "Found 3 callers." not in [turn.text for turn in t.turns]  # sidechain lines
    tools = [turn for turn in t.turns if turn.role == "tool"]
    assert ["/model"] in [turn.tools for turn in tools]
    assert ("opus", ["/model"]) in [(turn.text, turn.tools) for turn in tools]
    assert ("git status", ["bash"]) in [(turn.text, turn.tools) for turn in tools]
    assert "Unknown option --fast" in [turn.error for turn in tools]


def test_claude_code_builds_before_origin_are_read_by_their_markers(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"{CC_SESSION}.jsonl", claude_main_lines(stamped=False))
    t = claude_code.read(path)
    assert users(t) == CC_WORDS
    assert_no_harness(t)


def test_claude_code_subagent_files_are_found_and_skipped(claude_root: Path) -> None:
    found = list(claude_code.discover(claude_root))
    names = sorted(p.name for p in found)
    assert names == [
        f"{CC_SESSION}.jsonl",
        "agent-5d6e7f80.jsonl",
        "agent-a1b2c3d4e5f60718.jsonl",
        "agent-a9.jsonl",
    ]
    for path in found:
        t = claude_code.read(path)
        if path.name.startswith("agent-"):
            assert t.skip == f"sub-agent sidechain of {CC_SESSION}"
            assert t.parent == CC_SESSION and t.session_id == path.stem
            assert users(t) == [] and t.turns  # the delegated prompt is not the person's
        else:
            assert t.skip is None


# --- Codex (0.171.0 rollout shapes) ------------------------------------------------------

CX_SESSION = "019a4c2e-7d10-7b3c-9e21-5f6a7b8c9d0e"
CX_WORDS = [
    "Pin ruff to 0.14 in pre-commit, we had drift last month.",
    "Use tabs in the Makefile only.\nEverything else: four spaces.",
    "Also add a CHANGELOG entry.",
]


def cx(kind: str, second: int, payload: dict[str, Any]) -> dict[str, Any]:
    """One rollout line as Codex 0.171.0 writes it."""
    return {"timestamp": f"2026-11-07T14:00:{second:02d}.000Z", "type": kind, "payload": payload}


def cx_message(role: str, *texts: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    content = [{"type": kind, "text": t} for t in texts]
    return {"type": "message", "role": role, "content": content}


def cx_meta(session: str, source: Any) -> dict[str, Any]:
    return {
        "id": session,
        "timestamp": "2026-11-07T14:00:00.000Z",
        "cwd": "/home/mei/src/harbor",
        "originator": "codex_cli_rs",
        "cli_version": "0.171.0",
        "source": source,
        "model_provider": "openai",
    }


def codex_lines() -> list[dict[str, Any]]:
    env = "<environment_context>\n  <cwd>/home/mei/src/harbor</cwd>\n</environment_context>"
    agents_md = (
        "# AGENTS.md instructions for /home/mei/src/harbor\n\n<INSTRUCTIONS>\nBe brief.\n"
        "</INSTRUCTIONS>"
    )
    shell = (
        "<user_shell_command>\n<command>\ngit status\n</command>\n<result>\nExit code: 0\n"
        "Duration: 0.0100 seconds\nOutput:\nclean\n</result>\n</user_shell_command>"
    )
    return [
        cx("session_meta", 0, cx_meta(CX_SESSION, "cli")),
        cx("response_item", 0, cx_message("developer", "<permissions instructions>...")),
        cx("response_item", 0, cx_message("user", agents_md)),
        cx("response_item", 0, cx_message("user", env)),
        cx("turn_context", 1, {"cwd": "/home/mei/src/harbor", "model": "gpt-5.5"}),
        cx("response_item", 1, cx_message("user", CX_WORDS[0])),
        cx("event_msg", 1, {"type": "user_message", "message": CX_WORDS[0]}),
        cx("response_item", 2, {"type": "function_call", "name": "shell", "call_id": "c1"}),
        cx(
            "response_item",
            3,
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps({"output": "no such file", "metadata": {"exit_code": 1}}),
            },
        ),
        cx("response_item", 4, cx_message("assistant", "Pinned ruff.")),
        cx("response_item", 5, cx_message("user", shell)),
        cx(
            "response_item",
            6,
            cx_message(
                "user",
                "<turn_aborted>\nThe user interrupted the"
                " previous turn on purpose.\n</turn_aborted>",
            ),
        ),
        cx("turn_context", 7, {"cwd": "/home/mei/src/harbor/web", "model": "gpt-5.5"}),
        cx(
            "response_item",
            7,
            cx_message(
                "user", "<skill>\n<name>lint</name>\nRun the linters.\n</skill>", CX_WORDS[1]
            ),
        ),
        cx(
            "response_item",
            8,
            cx_message(
                "user",
                "<user_action>\n  <context>User initiated a review task.</context>\n"
                "  <action>review</action>\n  <results>\n  None.\n  </results>\n</user_action>\n",
            ),
        ),
        cx(
            "response_item",
            9,
            cx_message("user", '<subagent_notification>{"id":"t1"}</subagent_notification>'),
        ),
        cx(
            "response_item",
            10,
            cx_message("user", '<hook_prompt hook_run_id="h1">lint first</hook_prompt>'),
        ),
        cx(
            "response_item",
            11,
            cx_message(
                "user", '<codex_internal_context source="goals">\nx\n</codex_internal_context>'
            ),
        ),
        cx(
            "response_item",
            12,
            cx_message(
                "user",
                "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary.",
            ),
        ),
        cx("compacted", 13, {"message": "summary of the work", "replacement_history": []}),
        cx("response_item", 14, cx_message("user", CX_WORDS[2])),
        cx("response_item", 15, cx_message("assistant", "Added.")),
    ]


def test_codex_user_turns_are_only_the_persons_words(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "2026" / "11" / "07" / f"rollout-2026-11-07T14-00-00-{CX_SESSION}.jsonl",
        codex_lines(),
    )
    t = codex.read(path)
    assert users(t) == CX_WORDS
    assert_no_harness(t)
    assert t.session_id == CX_SESSION and t.source == "cli" and t.skip is None
    assert t.cwd == "/home/mei/src/harbor/web"  # the last turn_context wins
    shell = [turn for turn in t.turns if turn.tools == ["shell"] and turn.role == "tool"]
    assert len(shell) == 1 and "git status" in shell[0].text
    assert [turn.error for turn in t.turns if turn.error] == ["exit code 1"]


def test_codex_subagent_rollouts_are_skipped_with_their_parent(tmp_path: Path) -> None:
    child = str(uuid.uuid4())
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": CX_SESSION, "depth": 1}}}
    day = tmp_path / "2026" / "11" / "07"
    write_jsonl(
        day / f"rollout-2026-11-07T14-05-00-{child}.jsonl",
        [
            cx("session_meta", 0, cx_meta(child, spawn)),
            cx("response_item", 1, cx_message("user", "Check the lint config.")),
        ],
    )
    review = str(uuid.uuid4())
    write_jsonl(
        day / f"rollout-2026-11-07T14-06-00-{review}.jsonl",
        [cx("session_meta", 0, cx_meta(review, {"subagent": "review"}))],
    )
    by_id = {t.session_id: t for t in map(codex.read, codex.discover(tmp_path))}
    assert by_id[child].parent == CX_SESSION
    assert by_id[child].skip == f"sub-agent session (thread_spawn) of {CX_SESSION}"
    assert by_id[review].skip == "sub-agent session (review)"


def test_codex_compressed_rollouts_are_found_and_read_or_named(tmp_path: Path) -> None:
    day = tmp_path / "2026" / "11" / "08"
    day.mkdir(parents=True)
    lone = day / f"rollout-2026-11-08T09-00-00-{uuid.uuid4()}.jsonl.zst"
    twin = day / f"rollout-2026-11-08T10-00-00-{uuid.uuid4()}.jsonl"
    lines = "".join(json.dumps(line) + "\n" for line in codex_lines()).encode()
    twin.write_bytes(lines)
    Path(f"{twin}.zst").write_bytes(zstandard.ZstdCompressor().compress(lines))  # a twin
    lone.write_bytes(zstandard.ZstdCompressor().compress(lines))
    assert list(codex.discover(tmp_path)) == [lone, twin]
    assert users(codex.read(lone)) == CX_WORDS
