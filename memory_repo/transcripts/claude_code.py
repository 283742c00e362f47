"""Claude Code: ``~/.claude/projects/<cwd-slug>/<session-uuid>.jsonl``.

Each line has ``type`` (user | assistant | summary | system ...), ``sessionId``, ``cwd``,
``timestamp`` and ``message`` {role, content}; content is a string or blocks of
``text`` / ``tool_use`` {name} / ``tool_result`` {is_error, content}. Tool results travel
as ``user`` lines, so they become tool turns, never the user's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from memory_repo.transcripts.records import parse_time, read_jsonl, text_of
from memory_repo.transcripts.transcript import Transcript, Turn, finish

AGENT = "claude_code"


def read(path: Path) -> Transcript:
    transcript = Transcript(session_id=path.stem, agent=AGENT, path=str(path))
    for line in read_jsonl(path):
        if line.get("sessionId"):
            transcript.session_id = str(line["sessionId"])
        transcript.cwd = line.get("cwd") or transcript.cwd
        if line.get("type") not in ("user", "assistant") or line.get("isMeta"):
            continue
        message = line.get("message") or {}
        at = parse_time(line.get("timestamp"))
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            errors = [
                text_of(b.get("content")) or "tool error" for b in results if b.get("is_error")
            ]
            transcript.turns.append(
                Turn(
                    role="tool",
                    text="\n".join(text_of(b.get("content")) for b in results),
                    at=at,
                    error=errors[0][:200] if errors else None,
                )
            )
            continue
        tools = [
            str(b.get("name"))
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "tool_use"
        ]
        role = "user" if line["type"] == "user" else "assistant"
        text = text_of(content, ("text",))
        if text or tools:
            transcript.turns.append(Turn(role=role, text=text, at=at, tools=tools))
    return finish(transcript)


def discover(root: Path) -> Iterator[Path]:
    yield from sorted(root.glob("*/*.jsonl"))
