"""What one connect or disconnect run would change: a list of file edits plus what to tell
the user. Built without touching the disk (beyond reading), so a dry run and a real run
share one plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

AGENTS = ("claude-code", "codex", "hermes", "pi", "openclaw")

# The recall profile `--issue` gives each agent (README, "Profiles"): coding agents get the
# quiet working dose, the main assistant and OpenClaw (a personal assistant) the full one.
DEFAULT_PROFILE = {
    "claude-code": "working",
    "codex": "working",
    "pi": "working",
    "hermes": "full",
    "openclaw": "full",
}

DEFAULT_URL = "http://127.0.0.1:8765"

# Owner read/write only: the mode of every file that holds a token.
SECRET_MODE = 0o600


class ConnectError(Exception):
    """A set-up that cannot be written safely (unparseable file, unsupported scope...);
    raised before anything is written. The message says what to do instead."""


@dataclass(frozen=True)
class FileEdit:
    """One file's change. ``before``/``after`` are the whole text, ``None`` when the file
    is absent (so ``after=None`` deletes it).

    ``secret``: the result holds a token, so it is written 0600. ``owned``: the file is
    dose-mem's own (a plugin file, a generated loader). ``backup``: a user file that holds
    nothing of dose-mem's yet is about to get it, so it is kept as ``.dose-mem.bak`` first
    (once: an existing backup is never overwritten); so a backup exists exactly when the
    user had the file before dose-mem first changed it. ``what``: one line for the report.
    """

    path: Path
    before: str | None
    after: str | None
    what: str
    secret: bool = False
    owned: bool = False
    backup: bool = False

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass
class Plan:
    """Everything one run does: the edits in order, then bytecode caches the agent made
    from dose-mem's files (``(folder, module stems)``: removed only if nothing else is in
    them), then directories to remove if empty by then; and lines for the user.
    ``warnings`` are things left alone on purpose (e.g. another notify program);
    ``next_steps`` what the user still has to do."""

    agent: str
    edits: list[FileEdit] = field(default_factory=list)
    caches: list[tuple[Path, set[str]]] = field(default_factory=list)
    remove_dirs: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)

    @property
    def changes(self) -> list[FileEdit]:
        return [e for e in self.edits if e.changed]


@dataclass(frozen=True)
class Target:
    """Where and with what to connect one agent.

    ``env`` is the environment the agents' homes are resolved from (their own variables,
    e.g. ``CODEX_HOME``); ``cwd`` the project directory for ``scope="project"``; ``home``
    the user's home directory. ``url`` and ``token`` are what the agent is given; they are
    empty for a disconnect. ``dose_home`` is dose-mem's home when it is not the default
    ``~/.dose-mem``: the stdio MCP server (``dose-mem mcp``) opens the memory there, so it
    goes into the server's env as ``DOSE_MEM_HOME``.
    """

    agent: str
    scope: str
    env: dict[str, str]
    cwd: Path
    home: Path
    url: str = DEFAULT_URL
    token: str = ""
    dose_home: str | None = None

    def server_env(self, token: str | None = None) -> dict[str, str]:
        """The env of dose-mem's stdio MCP server entry (``token`` in place of the real one)."""
        env = {"DOSE_MEM_URL": self.url, "DOSE_MEM_TOKEN": self.token if token is None else token}
        if self.dose_home:
            env["DOSE_MEM_HOME"] = self.dose_home
        return env
