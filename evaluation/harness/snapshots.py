"""Weekly snapshots of an environment's memory, each with its own index, built once.

Every system answering a probe of week w reads the same snapshot (the last commit before
that week began), so one export and one index per snapshot serve all systems and all
threshold settings; searches are memoised too, since tuning replays the same queries.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from evaluation.harness.environment import Commit, Environment
from memory_repo.history import export_tree
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import CachedEmbedder, Embedder
from memory_repo.index.hits import Hit
from memory_repo.index.query import Index, Mode
from memory_repo.index.scope import Prefilter
from memory_repo.store import Memory, load_memory
from profiles.model import Profile
from recall_api.engine import RecallEngine


class MemoIndex:
    """An ``Index`` whose searches are remembered by (query, filter, k, mode)."""

    def __init__(self, inner: Index) -> None:
        self._inner = inner
        self._seen: dict[tuple[str, str, int, str], list[Hit]] = {}

    def search(
        self, query: str, prefilter: Prefilter, k: int = 10, mode: Mode = "hybrid"
    ) -> list[Hit]:
        key = (query, prefilter.where(), k, mode)
        if key not in self._seen:
            self._seen[key] = self._inner.search(query, prefilter, k=k, mode=mode)
        return self._seen[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Snapshot:
    """One commit's memory as files, its index, and a recall engine over them.

    ``today`` is set to each probe's date before it is answered, so expiry is judged on the
    day the person spoke, not on the day the evaluation runs.
    """

    def __init__(
        self, commit: Commit, root: Path, embedder: Embedder, profiles: dict[str, Profile]
    ) -> None:
        self.commit = commit
        self.memory_dir = root / "memory"
        self.index_dir = root / "index"
        self.today = commit.at.date()
        self.memory: Memory = load_memory(self.memory_dir)
        rebuild(self.memory_dir, self.index_dir, embedder, reason="evaluation snapshot")
        self.engine = RecallEngine(
            self.memory_dir, self.index_dir, profiles, embedder, today=lambda: self.today
        )
        self.engine.index = MemoIndex(self.engine.index)  # type: ignore[assignment]
        self.index = self.engine.index

    def set_day(self, moment: dt.datetime) -> None:
        self.today = moment.date()


class SnapshotStore:
    """Snapshots by commit sha, created on first use under ``workdir``."""

    def __init__(
        self, env: Environment, workdir: Path, embedder: Embedder, profiles: dict[str, Profile]
    ) -> None:
        self.env = env
        self.workdir = workdir
        self.embedder = (
            embedder
            if isinstance(embedder, CachedEmbedder)
            else CachedEmbedder(embedder, size=8192)
        )
        self.profiles = profiles
        self._made: dict[str, Snapshot] = {}

    def get(self, commit: Commit) -> Snapshot:
        if commit.sha not in self._made:
            root = self.workdir / "snapshots" / commit.sha[:12]
            export_tree(self.env.repo, commit.sha, root / "memory")
            self._made[commit.sha] = Snapshot(commit, root, self.embedder, self.profiles)
        return self._made[commit.sha]

    def all(self) -> list[Snapshot]:
        return list(self._made.values())
