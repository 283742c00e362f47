"""Codex CLI: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Lines are ``{timestamp, type, payload}``: ``session_meta`` {id, cwd, timestamp},
``response_item`` with payload ``message`` {role, content: [input_text|output_text]},
``function_call`` {name} and ``function_call_output`` {output}. Older rollouts put the
item itself on the line (no ``payload``); both are read. Codex injects
``<environment_context>`` and ``<user_instructions>`` as user messages: those are harness
text, not the user's words, and are dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from memory_repo.transcripts.records import parse_time, read_jsonl, text_of
from memory_repo.transcripts.transcript import Transcript, Turn, finish

AGENT = "codex"
_HARNESS = ("<environment_context>", "<user_instructions>", "# AGENTS.md")


def read(path: Path) -> Transcript:
    transcript = Transcript(session_id=path.stem.split("-", 1)[-1], agent=AGENT, path=str(path))
    for line in read_jsonl(path):
        kind = line.get("type")
        payload = line.get("payload") if isinstance(line.get("payload"), dict) else line
        at = parse_time(line.get("timestamp") or payload.get("timestamp"))
        if kind == "session_meta" or ("id" in line and "instructions" in line):
            transcript.session_id = str(payload.get("id") or transcript.session_id)
            transcript.cwd = payload.get("cwd") or transcript.cwd
            transcript.started = parse_time(payload.get("timestamp")) or at
            continue
        if kind == "turn_context":
            transcript.cwd = payload.get("cwd") or transcript.cwd
            continue
        item = payload.get("type")
        if item == "message" and payload.get("role") in ("user", "assistant"):
            text = text_of(payload.get("content"))
            if text and not text.lstrip().startswith(_HARNESS):
                transcript.turns.append(Turn(role=payload["role"], text=text, at=at))
        elif item in ("function_call", "local_shell_call", "custom_tool_call"):
            transcript.turns.append(
                Turn(role="assistant", at=at, tools=[str(payload.get("name") or item)])
            )
        elif item in ("function_call_output", "custom_tool_call_output"):
            transcript.turns.append(
                Turn(role="tool", text=_output(payload), at=at, error=_error(payload))
            )
    return finish(transcript)


def _output(payload: dict) -> str:
    output = payload.get("output")
    if isinstance(output, dict):
        return str(output.get("content", ""))
    return str(output or "")


def _error(payload: dict) -> str | None:
    """Codex reports a failed command through its exit code inside the output JSON."""
    text = _output(payload)
    try:
        meta = json.loads(text).get("metadata", {})
    except (json.JSONDecodeError, AttributeError):
        return None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return f"exit code {code}" if code not in (None, 0) else None


def discover(root: Path) -> Iterator[Path]:
    yield from sorted(root.glob("*/*/*/rollout-*.jsonl"))
