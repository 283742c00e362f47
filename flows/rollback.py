"""Undo a landed ingest run: revert its commit (a new commit; history is kept) and reindex."""

from __future__ import annotations

import re
from pathlib import Path

from flows.append import find_run_commit
from flows.reindex import refresh_index
from memory_repo import history
from memory_repo.errors import DoseMemError
from memory_repo.index.embedders import make_embedder
from memory_repo.ingest_runs import ROLLBACK_TRAILER
from memory_repo.settings import Settings


class UnknownRun(DoseMemError):
    """No commit in the memory repository names this run."""


def rollback(settings: Settings, run_id: str) -> str:
    """Returns the sha of the revert commit."""
    root = settings.memory_path
    sha = find_run_commit(root, run_id)
    if sha is None:
        raise UnknownRun(f"no commit of ingest run {run_id!r} in {root} (it wrote nothing?)")
    reverted = history.revert(
        root, sha, f"Roll back ingest run {run_id}\n\n{ROLLBACK_TRAILER}: {run_id}\n"
    )
    refresh_index(settings, make_embedder(settings))
    return reverted


def rolled_back_runs(root: Path) -> set[str]:
    """Ids of every run a ``rollback`` reverted (from the revert commits' trailers)."""
    repo = history.open_repo(root)
    if not repo.head.is_valid():
        return set()
    out = repo.git.log("--format=%B", "--fixed-strings", f"--grep={ROLLBACK_TRAILER}: ")
    return set(re.findall(rf"^{ROLLBACK_TRAILER}: (\S+)$", out, re.MULTILINE))
