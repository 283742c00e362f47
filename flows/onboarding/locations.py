"""Where each agent keeps its memory, and which project a memory file belongs to.

The files per agent (docs/capture.md lists the sources field by field):

* ``claude_code``: ``<claude home>/CLAUDE.md`` and ``rules/*.md`` (user), ``CLAUDE.md``,
  ``.claude/CLAUDE.md``, ``CLAUDE.local.md`` and ``.claude/rules/*.md`` in each
  registered project's directory, and auto memory ``<claude home>/projects/<slug>/memory/*.md``.
* ``codex``: ``<codex home>/AGENTS.override.md`` and ``AGENTS.md`` (user), the same two
  in each registered project's directory, and ``<codex home>/memories/MEMORY.md``.
* ``hermes``: ``<hermes home>/memories/MEMORY.md`` and ``USER.md`` (``§``-delimited).
* ``openclaw``: ``<workspace>/MEMORY.md`` and the daily logs ``<workspace>/memory/YYYY-MM-DD.md``.

A file inside a registered project's directory belongs to that project (longest path
wins); a Claude Code auto-memory folder belongs to the project whose path gives its slug;
everything else is global.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from memory_repo.attribution import locate
from memory_repo.models import GLOBAL, Registry
from memory_repo.settings import Settings

AGENTS = ("claude_code", "codex", "hermes", "openclaw")
Kind = Literal["instructions", "memory", "daily"]
Format = Literal["markdown", "hermes"]
_DAILY = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")


class MemoryFile(BaseModel):
    """One file to import. ``by_user``: the person writes it (instructions), rather than
    the agent keeping it (memory, daily logs)."""

    path: Path
    agent: str
    kind: Kind
    format: Format = "markdown"
    project: str = GLOBAL

    @property
    def by_user(self) -> bool:
        return self.kind == "instructions"


def agent_id(name: str) -> str:
    """``claude-code`` and ``claude_code`` are the same agent; anything else is itself."""
    return name.strip().lower().replace("-", "_")


def claude_slug(path: str | Path) -> str:
    """Claude Code's folder name for a project: every non-alphanumeric character as ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(Path(path).expanduser()))


def project_of(path: Path, registry: Registry) -> str:
    return locate(registry, str(path.parent)).project or GLOBAL


def default_files(agent: str, settings: Settings, registry: Registry) -> list[MemoryFile]:
    """The agent's memory files that exist on this machine, in a stable order."""
    agent = agent_id(agent)
    found: list[MemoryFile] = []

    def add(path: Path, kind: Kind, fmt: Format = "markdown", project: str | None = None) -> None:
        path = path.expanduser()
        if path.is_file() and all(f.path != path for f in found):
            found.append(
                MemoryFile(
                    path=path,
                    agent=agent,
                    kind=kind,
                    format=fmt,
                    project=project if project is not None else project_of(path, registry),
                )
            )

    roots = [Path(root).expanduser() for p in registry.projects for root in p.paths]
    if agent == "claude_code":
        home = settings.import_claude_home
        add(home / "CLAUDE.md", "instructions", project=GLOBAL)
        for path in sorted((home / "rules").glob("*.md")):
            add(path, "instructions", project=GLOBAL)
        for root in roots:
            for name in ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"):
                add(root / name, "instructions")
            for path in sorted((root / ".claude" / "rules").glob("*.md")):
                add(path, "instructions")
        slugs = {claude_slug(root): locate(registry, str(root)).project or GLOBAL for root in roots}
        for folder in sorted((home / "projects").glob("*/memory")):
            for path in sorted(folder.glob("*.md")):
                add(path, "memory", project=slugs.get(folder.parent.name, GLOBAL))
    elif agent == "codex":
        home = settings.import_codex_home
        for name in ("AGENTS.override.md", "AGENTS.md"):
            add(home / name, "instructions", project=GLOBAL)
        for root in roots:
            for name in ("AGENTS.md", "AGENTS.override.md"):
                add(root / name, "instructions")
        add(home / "memories" / "MEMORY.md", "memory", project=GLOBAL)
    elif agent == "hermes":
        for name in ("USER.md", "MEMORY.md"):
            add(settings.import_hermes_home / "memories" / name, "memory", "hermes", GLOBAL)
    elif agent == "openclaw":
        workspace = settings.import_openclaw_workspace
        add(workspace / "MEMORY.md", "memory")
        for path in sorted((workspace / "memory").glob("*.md")):
            if _DAILY.match(path.name):
                add(path, "daily")
    return found


def given_files(agent: str, paths: list[str], registry: Registry) -> list[MemoryFile]:
    """Files named on the command line, read in ``agent``'s format; a file named like a
    daily log (``YYYY-MM-DD.md``) is task history, any other is the person's instructions
    unless it is one of the agents' own memory files by name."""
    agent = agent_id(agent)
    out = []
    for raw in paths:
        path = Path(raw).expanduser().absolute()
        if _DAILY.match(path.name):
            kind: Kind = "daily"
        elif path.name in ("MEMORY.md", "USER.md"):
            kind = "memory"
        else:
            kind = "instructions"
        out.append(
            MemoryFile(
                path=path,
                agent=agent,
                kind=kind,
                format="hermes" if agent == "hermes" else "markdown",
                project=project_of(path, registry),
            )
        )
    return out
