"""Pi coding agent (badlogic/pi-mono): ``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``.

Format from ``packages/coding-agent/docs/session.md``: the first line is the header
``{type: "session", id, timestamp, cwd, provider, modelId}``; then
``{type: "message", timestamp, message}`` where message.role is ``user`` (content string
or blocks), ``assistant`` (blocks of ``text`` / ``toolCall`` {name} / ``thinking``),
``toolResult`` {toolName, content, isError} or ``bashExecution`` {command, exitCode}.
Other entry types (model_change, thinking_level_change ...) carry no words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from memory_repo.transcripts.records import parse_time, read_jsonl, text_of
from memory_repo.transcripts.transcript import Transcript, Turn, finish

AGENT = "pi"


def read(path: Path) -> Transcript:
    transcript = Transcript(session_id=path.stem.split("_", 1)[-1], agent=AGENT, path=str(path))
    for line in read_jsonl(path):
        if line.get("type") == "session":
            transcript.session_id = str(line.get("id") or transcript.session_id)
            transcript.cwd = line.get("cwd")
            transcript.started = parse_time(line.get("timestamp"))
            continue
        if line.get("type") != "message" or not isinstance(line.get("message"), dict):
            continue
        message = line["message"]
        at = parse_time(line.get("timestamp")) or parse_time(message.get("timestamp"))
        role = message.get("role")
        content = message.get("content")
        if role in ("user", "assistant"):
            blocks = content if isinstance(content, list) else []
            tools = [
                str(b.get("name"))
                for b in blocks
                if isinstance(b, dict) and b.get("type") == "toolCall"
            ]
            text = text_of(content, ("text",))
            if text or tools:
                transcript.turns.append(Turn(role=role, text=text, at=at, tools=tools))
        elif role == "toolResult":
            text = text_of(content, ("text",))
            error = (text[:200] or "tool error") if message.get("isError") else None
            transcript.turns.append(
                Turn(
                    role="tool",
                    text=text,
                    at=at,
                    error=error,
                    tools=[str(message.get("toolName") or "tool")],
                )
            )
        elif role == "bashExecution":
            code = message.get("exitCode")
            transcript.turns.append(
                Turn(
                    role="tool",
                    text=str(message.get("output", "")),
                    at=at,
                    tools=["bash"],
                    error=f"exit code {code}" if code not in (None, 0) else None,
                )
            )
    return finish(transcript)


def discover(root: Path) -> Iterator[Path]:
    yield from sorted(root.glob("*/*.jsonl"))
