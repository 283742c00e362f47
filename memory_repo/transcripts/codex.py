"""Codex CLI: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` (or ``.jsonl.zst``).

Read as Codex 0.171.0 writes it (openai/codex ``codex-rs``, see docs/capture.md). Lines
are ``{timestamp, type, payload}``: ``session_meta`` {id, cwd, timestamp, source},
``turn_context`` {cwd} (the last one wins: the session may move), ``response_item`` with
payload ``message`` {role, content: [input_text|output_text]}, ``function_call`` /
``local_shell_call`` / ``custom_tool_call`` {name} and their ``*_output`` {output}.
``event_msg`` lines repeat messages, ``compacted`` lines hold a compaction's summary and
rebuilt history, ``developer`` messages are instructions: none is read. Older rollouts put
the item itself on the line (no ``payload``); both are read.

Codex injects context as *user* messages; those are never the person's words. A user
content block is such a fragment (``is_contextual_user_fragment`` in
``codex-rs/core/src/context/contextual_user_message.rs``) when it is wholly one
snake_case element (``<environment_context>``, ``<user_instructions>``,
``<user_shell_command>``, ``<turn_aborted>``, ``<subagent_notification>``,
``<user_action>`` (a /review's result), ``<codex_internal_context source=...>``,
``<hook_prompt hook_run_id=...>`` ...), a ``<skill>`` element, the AGENTS.md block
(``# AGENTS.md instructions for <dir>`` ... ``</INSTRUCTIONS>``), one of the retired
warnings Codex still filters, or the compaction prompt or summary prefix. The person's
own ``!`` command (``<user_shell_command>``) becomes a tool turn named ``shell``.

``session_meta.source`` gives ``source``; a sub-agent's rollout (source ``subagent``:
``thread_spawn`` with its ``parent_thread_id``, ``review``, ``compact`` ...) or an
internal one (memory consolidation) is returned with ``skip`` set. Compressed rollouts
(``.jsonl.zst``, which current Codex writes for old sessions) are read through
``zstandard``; a plain twin of the same rollout wins.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_repo.transcripts.records import parse_jsonl, parse_time, read_jsonl, text_of
from memory_repo.transcripts.transcript import Transcript, Turn, finish

AGENT = "codex"
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl")
_ELEMENT = re.compile(r"<(skill|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?:\s[^>]*)?>.*</\1>", re.S | re.I)
_AGENTS_MD = ("# AGENTS.md instructions", "</INSTRUCTIONS>")
_INJECTED_PREFIXES = (
    "Warning: apply_patch was requested via ",
    "Warning: Your account was flagged for potentially high-risk cyber activity",
    "Warning: The maximum number of unified exec processes you can keep open is",
    "You are performing a CONTEXT CHECKPOINT COMPACTION.",
    "Another language model started to solve this problem and produced a summary",
)
_TOOL_CALLS = ("function_call", "local_shell_call", "custom_tool_call", "web_search_call")
_TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def read(path: Path) -> Transcript:
    """The rollout at ``path`` (plain or zstd-compressed); corrupt lines are skipped."""
    match = _UUID.search(path.name)
    transcript = Transcript(
        session_id=match.group(1) if match else path.name.split(".", 1)[0],
        agent=AGENT,
        path=str(path),
    )
    seen_meta = False
    for line in _lines(path):
        kind = line.get("type")
        payload = line["payload"] if isinstance(line.get("payload"), dict) else line
        at = parse_time(line.get("timestamp") or payload.get("timestamp"))
        if kind == "session_meta" or ("id" in line and "instructions" in line):
            if not seen_meta:
                _meta(transcript, payload, at)
            seen_meta = True
        elif kind == "turn_context":
            transcript.cwd = payload.get("cwd") or transcript.cwd
        else:
            transcript.turns.extend(_turns(payload, at))
    return finish(transcript)


def discover(root: Path) -> Iterator[Path]:
    """Every rollout, plain or compressed; a compressed one beside its plain twin is
    skipped (Codex reads the plain one first)."""
    for path in sorted(root.glob("*/*/*/rollout-*.jsonl*")):
        if path.name.endswith(".jsonl") or _lone_compressed(path):
            yield path


def _lone_compressed(path: Path) -> bool:
    return path.name.endswith(".jsonl.zst") and not path.with_name(path.name[:-4]).exists()


def is_injected(text: str) -> bool:
    """Whether one user content block is context Codex injected, not the person's words."""
    body = text.strip()
    if _ELEMENT.fullmatch(body):
        return True
    if body.startswith(_AGENTS_MD[0]) and body.endswith(_AGENTS_MD[1]):
        return True
    return body.startswith(_INJECTED_PREFIXES)


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    if not path.name.endswith(".zst"):
        yield from read_jsonl(path)
        return
    import zstandard  # only for compressed rollouts

    with path.open("rb") as fh, zstandard.ZstdDecompressor().stream_reader(fh) as raw:
        yield from parse_jsonl(_split_lines(raw), path)


def _split_lines(stream: Any) -> Iterator[bytes]:
    rest = b""
    while chunk := stream.read(1 << 16):
        *whole, rest = (rest + chunk).split(b"\n")
        yield from whole
    if rest:
        yield rest


def _meta(transcript: Transcript, payload: dict[str, Any], at: Any) -> None:
    transcript.session_id = str(payload.get("id") or transcript.session_id)
    transcript.cwd = payload.get("cwd") or transcript.cwd
    transcript.started = parse_time(payload.get("timestamp")) or at
    source = payload.get("source")
    if isinstance(source, str):
        transcript.source = source
    elif isinstance(source, dict) and source:
        _delegated(transcript, source)


def _delegated(transcript: Transcript, source: dict[str, Any]) -> None:
    """``{"subagent": "review"}``, ``{"subagent": {"thread_spawn": {...}}}`` and
    ``{"internal": "memory_consolidation"}`` are sessions the person did not hold; any
    other tagged source (``{"custom": name}``) only names the source."""
    kind, detail = next(iter(source.items()))
    name = detail if isinstance(detail, str) else next(iter(detail or {}), "other")
    transcript.source = f"{kind}_{name}"
    if kind not in ("subagent", "internal"):
        return
    spawn = detail.get("thread_spawn") if isinstance(detail, dict) else None
    if isinstance(spawn, dict) and spawn.get("parent_thread_id"):
        transcript.parent = str(spawn["parent_thread_id"])
    owner = f" of {transcript.parent}" if transcript.parent else ""
    label = "sub-agent" if kind == "subagent" else kind
    transcript.skip = f"{label} session ({name}){owner}"


def _turns(payload: dict[str, Any], at: Any) -> list[Turn]:
    item = payload.get("type")
    role = payload.get("role")
    if item == "message" and role == "user":
        return _user(payload.get("content"), at)
    if item == "message" and role == "assistant":
        text = text_of(payload.get("content"))
        return [Turn(role="assistant", text=text, at=at)] if text else []
    if item in _TOOL_CALLS:
        name = payload.get("name") or ("web_search" if item == "web_search_call" else item)
        return [Turn(role="assistant", at=at, tools=[str(name)])]
    if item in _TOOL_OUTPUTS:
        return [Turn(role="tool", text=_output(payload), at=at, error=_error(payload))]
    return []


def _user(content: Any, at: Any) -> list[Turn]:
    """The person's words of one user message; the person's ``!`` commands as tool turns;
    everything else Codex injected dropped."""
    blocks = [content] if isinstance(content, str) else content or []
    words: list[str] = []
    turns: list[Turn] = []
    for block in blocks:
        text = text_of([block]) if isinstance(block, dict) else str(block)
        if text.lstrip().lower().startswith("<user_shell_command>"):
            turns.append(Turn(role="tool", text=text, at=at, tools=["shell"]))
        elif text and not is_injected(text):
            words.append(text)
    if words:
        turns.append(Turn(role="user", text="\n".join(words), at=at))
    return turns


def _output(payload: dict[str, Any]) -> str:
    output = payload.get("output")
    if isinstance(output, dict):
        return str(output.get("content", ""))
    if isinstance(output, list):
        return text_of(output)
    return str(output or "")


def _error(payload: dict[str, Any]) -> str | None:
    """Codex reports a failed command through its exit code inside the output JSON."""
    text = _output(payload)
    try:
        meta = json.loads(text).get("metadata", {})
    except (json.JSONDecodeError, AttributeError):
        return None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return f"exit code {code}" if code not in (None, 0) else None
