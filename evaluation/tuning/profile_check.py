"""A proposed profile, checked on an evaluation environment before it is proposed.

The cheapest faithful check: only the probes of the environment's agent of the same
name (else of every agent with the same profile), all of them (dev and test: nothing is
tuned here, the change is only checked), each answered by the read path exactly as the
``dose-mem/shipped`` system answers it (the profile as given, no threshold tuning, task
state on), judged by the gold labels in session context (evaluation/harness/session_scoring.py).
The session composite of the changed profile must not fall below that of the current
one. The environment's history and its weekly snapshot
indexes are built once per run and shared by every agent and candidate.
"""

from __future__ import annotations

from pathlib import Path

from evaluation.harness.environment import Environment, load_environment
from evaluation.harness.metrics import point_estimates
from evaluation.harness.probes import Probe
from evaluation.harness.run import answer_all, gold_records
from evaluation.harness.snapshots import SnapshotStore
from evaluation.harness.systems import SHIPPED, DoseMem
from evaluation.harness.task_feed import TaskBoards, boards_for
from memory_repo.index.embedders import make_embedder
from memory_repo.settings import Settings
from profiles.model import Profile

BUNDLED_ENV = Path(__file__).parents[1] / "envs" / "demo"


class EnvCheck:
    """Composites on one environment; its snapshots are built on first use."""

    def __init__(self, env_dir: Path, settings: Settings, workdir: Path) -> None:
        self.env_dir = Path(env_dir)
        self.settings = settings
        self.workdir = Path(workdir)
        self._env: Environment | None = None
        self._store: SnapshotStore | None = None
        self._boards: TaskBoards | None = None

    def _open(self) -> tuple[Environment, SnapshotStore]:
        if self._env is None or self._store is None:
            self._env = load_environment(self.env_dir, self.workdir)
            self._store = SnapshotStore(self._env, self.workdir, make_embedder(self.settings), {})
            self._boards = boards_for(self._env.tasks, self.workdir / "task-boards", self.settings)
        return self._env, self._store

    def agents_for(self, agent: str, profile: str) -> list[str]:
        """The environment's agent of this name, else its agents with this profile."""
        env, _ = self._open()
        if agent in env.spec.agents:
            return [agent]
        return sorted(a for a, spec in env.spec.agents.items() if spec.profile == profile)

    def probes(self, agents: list[str]) -> list[Probe]:
        env, _ = self._open()
        return [p for p in env.probes if p.agent in agents and p.gold is not None]

    def composite(self, agents: list[str], profile: Profile) -> float:
        """The gold session composite of ``agents``' probes, each answered under
        ``profile`` (whose ``kept_by`` says whether the agent keeps its injections)."""
        env, store = self._open()
        probes = self.probes(agents)
        if not probes:
            return float("nan")
        profiles = {env.spec.agents[a].profile: profile for a in agents}
        system = DoseMem("tune-profiles", profiles, env.spec, shipped=True, tasks=self._boards)
        answers = answer_all(system, probes, env, store, lambda _g: SHIPPED)
        records = gold_records(system.name, probes, answers, lambda p: profile.keeps(p.agent))
        return point_estimates(records)["session_composite"]
