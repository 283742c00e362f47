"""Digest: the part of a session worth distilling, small enough for one prompt.

Keeps the user's words whole (quotes must be found in them), the assistant's final answer
to each user turn, the tools used and the classes of errors hit; drops tool output.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from pydantic import BaseModel, Field

from flows.capture.ledger import Pending
from memory_repo.models import GLOBAL, Registry

_ERROR_CLASS = re.compile(r"\b([A-Z][A-Za-z]+(?:Error|Exception)|exit code \d+|timed? ?out)\b")


class DigestTurn(BaseModel):
    n: int
    role: str
    text: str
    at: dt.datetime | None = None


class Digest(BaseModel):
    key: str
    agent: str
    session: str
    cwd: str | None = None
    project: str = GLOBAL
    turns: list[DigestTurn] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)

    def render(self) -> str:
        """The prompt form: one block per turn, labelled so the model can cite its source."""
        lines = [f"agent: {self.agent}", f"project (from cwd): {self.project}"]
        if self.tools:
            lines.append("tools used: " + ", ".join(self.tools))
        if self.errors:
            lines.append("errors hit: " + ", ".join(self.errors))
        lines.append("")
        lines += [f"[{t.role} {t.n}]\n{t.text}\n" for t in self.turns]
        return "\n".join(lines)


def project_for(cwd: str | None, registry: Registry) -> str:
    """The registry project whose path is the longest prefix of ``cwd``; else global."""
    if not cwd:
        return GLOBAL
    here = Path(cwd).expanduser()
    best, best_len = GLOBAL, -1
    for project in registry.projects:
        for root in project.paths:
            root_path = Path(root).expanduser()
            if (here == root_path or root_path in here.parents) and len(root_path.parts) > best_len:
                best, best_len = project.id, len(root_path.parts)
    return best


def digest(item: Pending, registry: Registry) -> Digest:
    t = item.transcript
    out = Digest(
        key=t.key,
        agent=t.agent,
        session=t.session_id,
        cwd=t.cwd,
        project=project_for(t.cwd, registry),
    )
    turns = list(enumerate(t.turns))[item.start :]
    for pos, (n, turn) in enumerate(turns):
        for tool in turn.tools:
            if tool not in out.tools:
                out.tools.append(tool)
        if turn.error:
            found = _ERROR_CLASS.search(turn.error)
            label = found.group(1) if found else "error"
            if label not in out.errors:
                out.errors.append(label)
        if turn.role == "user" and turn.text.strip():
            out.turns.append(DigestTurn(n=n, role="user", text=turn.text, at=turn.at))
        elif turn.role == "assistant" and turn.text.strip() and _is_final(turns, pos):
            out.turns.append(DigestTurn(n=n, role="assistant", text=turn.text, at=turn.at))
    return out


def _is_final(turns: list, pos: int) -> bool:
    """The last assistant text before the next user turn (or the session's end)."""
    for _, later in turns[pos + 1 :]:
        if later.role == "user" and later.text.strip():
            return True
        if later.role == "assistant" and later.text.strip():
            return False
    return True
