"""Digest: the part of a session worth distilling, small enough for one prompt.

Keeps the user's words whole (quotes must be found in them), the assistant's final answer
to each user turn, the tools used and the classes of errors hit; drops tool output.
"""

from __future__ import annotations

import datetime as dt
import re

from pydantic import BaseModel, Field

from flows.capture.ledger import Pending
from memory_repo.attribution import Attribution, attribute
from memory_repo.models import GLOBAL, Registry
from memory_repo.transcripts.transcript import Transcript

_ERROR_CLASS = re.compile(r"\b([A-Z][A-Za-z]+(?:Error|Exception)|exit code \d+|timed? ?out)\b")


class DigestTurn(BaseModel):
    n: int
    role: str
    text: str
    at: dt.datetime | None = None


class Digest(BaseModel):
    """``project`` is the session's project (``memory_repo.attribution``), or global when
    none was found; ``how`` says how it was found (cwd, symlink, worktree, repo_root,
    named, personal, none) and ``why`` in words; ``project_names`` are its names."""

    key: str
    agent: str
    session: str
    cwd: str | None = None
    project: str = GLOBAL
    project_names: list[str] = Field(default_factory=list)
    how: str = "none"
    why: str = ""
    turns: list[DigestTurn] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)

    def render(self) -> str:
        """The prompt form: one block per turn, labelled so the model can cite its source."""
        lines = [f"agent: {self.agent}", f"project ({self.how}): {self.project}"]
        if self.tools:
            lines.append("tools used: " + ", ".join(self.tools))
        if self.errors:
            lines.append("errors hit: " + ", ".join(self.errors))
        lines.append("")
        lines += [f"[{t.role} {t.n}]\n{t.text}\n" for t in self.turns]
        return "\n".join(lines)


def is_personal(agent: str, source: str | None, personal_agents: list[str]) -> bool:
    """An agent (or agent:source) the settings name as a personal agent."""
    return agent in personal_agents or (
        source is not None and f"{agent}:{source}" in personal_agents
    )


def attribution(t: Transcript, registry: Registry, personal_agents: list[str]) -> Attribution:
    """The session's project by the one rule, on the person's own words in the whole
    session (a later part of a grown session is filed like its start)."""
    words = "\n".join(turn.text for turn in t.turns if turn.role == "user")
    return attribute(
        registry,
        cwd=t.cwd,
        repo_root=t.repo_root,
        words=words,
        personal=is_personal(t.agent, t.source, personal_agents),
    )


def digest(item: Pending, registry: Registry, personal_agents: list[str] | None = None) -> Digest:
    t = item.transcript
    filed = attribution(t, registry, personal_agents or [])
    project = registry.get(filed.project) if filed.project else None
    out = Digest(
        key=t.key,
        agent=t.agent,
        session=t.session_id,
        cwd=t.cwd,
        project=project.id if project else GLOBAL,
        project_names=project.names if project else [],
        how=filed.how,
        why=filed.why,
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
