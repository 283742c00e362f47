"""An evaluation environment: a memory with history, the agents that use it, and probes.

Layout of an environment directory (a nested ``.git`` can not be committed into this
repository, so the memory's history is stored as the file trees of its commits and the git
repository is created from them at load time):

```
env.yaml                         name, shared budget, agents (profile + allowed projects),
                                 optionally ``memory:`` a real memory repo (then no history/)
history/<NN>_<YYYY-MM-DD>_<slug>/  one commit each, in NN order, dated that day 18:00 in
                                 the environment's time zone; its files are written over
                                 the tree of the commit before (cards are append-only, so
                                 an overlay is all a history needs)
probes.jsonl                     one ``Probe`` per line
task_events.jsonl                optional: timestamped reports to task state, one per line
                                 (``evaluation/harness/task_feed.py``)
```

A probe is answered against the last commit strictly before the Monday 00:00 that starts
its ISO week: the weekly snapshot a person would have had when that week began. Task
state is live instead: a probe sees every task event strictly before its own time.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluation.harness.probes import Probe, load_probes, week_start
from evaluation.harness.task_feed import TASK_EVENTS_FILE, RegistryAt, TaskFeed, load_task_feed
from memory_repo.errors import DoseMemError
from memory_repo.history import commit, history, init_repo, memory_as_of
from memory_repo.store import load_memory
from recall_api.models import Identity

ENV_FILE = "env.yaml"
HISTORY_DIR = "history"
PROBES_FILE = "probes.jsonl"
COMMIT_HOUR = 18


class AgentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: str
    projects: list[str] | None = None


class EnvSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    utc_offset_hours: float = 0.0
    memory: Path | None = Field(
        default=None,
        description="An existing memory git repo to evaluate (e.g. the user's "
        "own); relative paths are from the environment directory. Without it, history/ is used.",
    )
    budget_bytes: int = Field(default=1200, gt=0)
    max_items: int = Field(default=5, gt=0)
    agents: dict[str, AgentSpec]

    @property
    def tz(self) -> dt.timezone:
        return dt.timezone(dt.timedelta(hours=self.utc_offset_hours))

    def identity(self, agent: str) -> Identity:
        spec = self.agents[agent]
        return Identity(
            agent=agent, profile=spec.profile, projects=spec.projects, token_id=f"eval-{agent}"
        )


class Commit(BaseModel):
    sha: str
    at: dt.datetime
    message: str


class Environment(BaseModel):
    """A loaded environment whose memory history lives in a real git repository at ``repo``."""

    root: Path
    spec: EnvSpec
    probes: list[Probe]
    repo: Path
    commits: list[Commit]
    tasks: TaskFeed | None = None

    def snapshot_for(self, probe: Probe) -> Commit | None:
        return snapshot_before(self.commits, week_start(probe.timestamp))

    def snapshots(self) -> dict[str, Commit | None]:
        """Probe id -> the commit it is answered against."""
        return {p.id: self.snapshot_for(p) for p in self.probes}


class EnvironmentLoadError(DoseMemError):
    """An environment directory that can not be loaded; names the file and the reason."""


def load_env_spec(root: Path) -> EnvSpec:
    path = root / ENV_FILE
    try:
        return EnvSpec.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise EnvironmentLoadError(f"{path}: {str(exc).splitlines()[0]}") from exc


def load_environment(root: Path, workdir: Path) -> Environment:
    """Read the spec and probes, and build the memory's git history under ``workdir``."""
    root = Path(root)
    spec = load_env_spec(root)
    probes = load_probes(root / PROBES_FILE)
    check_agents(probes, spec, root)
    if spec.memory is not None:
        repo = (root / spec.memory.expanduser()).resolve()
        commits = [Commit(sha=c.sha, at=c.date, message=c.message) for c in history(repo)]
    else:
        repo = workdir / "memory"
        commits = build_history(root / HISTORY_DIR, repo, spec.tz)
    tasks = None
    if (root / TASK_EVENTS_FILE).is_file():
        identities = {name: spec.identity(name) for name in spec.agents}
        registry_at = RegistryAt(repo, [(c.sha, c.at) for c in commits], workdir / "registries")
        tasks = load_task_feed(root / TASK_EVENTS_FILE, identities, registry_at)
    check_task_keys(probes, tasks, root)
    env = Environment(root=root, spec=spec, probes=probes, repo=repo, commits=commits, tasks=tasks)
    check_gold_ids(env)
    return env


def check_agents(probes: list[Probe], spec: EnvSpec, root: Path) -> None:
    """Every probe's agent is one of ``env.yaml``'s, and its profile is that agent's."""
    unknown = sorted({p.agent for p in probes} - set(spec.agents))
    if unknown:
        raise EnvironmentLoadError(f"{root / PROBES_FILE}: agents not in {ENV_FILE}: {unknown}")
    for probe in probes:
        expected = spec.agents[probe.agent].profile
        if probe.profile != expected:
            raise EnvironmentLoadError(
                f"{root / PROBES_FILE}: probe {probe.id} has profile {probe.profile!r}, but "
                f"{ENV_FILE} gives agent {probe.agent!r} the profile {expected!r}"
            )


def check_gold_ids(env: Environment) -> None:
    """Every item id a probe's gold names (necessary, helpful, harmful) is an item of the
    snapshot that probe is answered against: an id in no commit is unknown, one that only a
    later commit adds was not yet committed. Either is an error naming the probe."""
    ids_at: dict[str | None, set[str]] = {None: set()}

    def ids(sha: str | None) -> set[str]:
        if sha not in ids_at:
            with memory_as_of(env.repo, sha) as tree:
                ids_at[sha] = set(load_memory(tree).items) if tree else set()
        return ids_at[sha]

    last = env.commits[-1].sha if env.commits else None
    for probe in env.probes:
        if probe.gold is None:
            continue
        named = {*probe.gold.necessary, *probe.gold.helpful, *probe.gold.harmful}
        snap = env.snapshot_for(probe)
        missing = sorted(named - ids(snap.sha if snap else None))
        if not missing:
            continue
        later = [i for i in missing if i in ids(last)]
        unknown = [i for i in missing if i not in later]
        where = f"its snapshot {snap.sha[:10]}" if snap else "its week (no commit yet)"
        why = [f"not yet committed at {where}: {later}"] if later else []
        why += [f"in no commit of the memory: {unknown}"] if unknown else []
        raise EnvironmentLoadError(
            f"{env.root / PROBES_FILE}: probe {probe.id} names items {'; '.join(why)}"
        )


def check_task_keys(probes: list[Probe], tasks: TaskFeed | None, root: Path) -> None:
    """Every task key a probe names must name a task of the feed."""
    known = set(tasks.keys) if tasks else set()
    for probe in probes:
        if probe.gold is None:
            continue
        wanted = {*(probe.gold.necessary_tasks or []), *(probe.gold.harmful_tasks or [])}
        if wanted - known:
            raise EnvironmentLoadError(
                f"{root / PROBES_FILE}: probe {probe.id} names tasks no line of "
                f"{TASK_EVENTS_FILE} started: {sorted(wanted - known)}"
            )


def history_steps(history: Path) -> list[tuple[Path, dt.date, str]]:
    """The commit folders in order, with their date and message."""
    steps = []
    for folder in sorted(p for p in history.iterdir() if p.is_dir()):
        parts = folder.name.split("_", 2)
        if len(parts) != 3:
            raise EnvironmentLoadError(f"{folder}: expected <NN>_<YYYY-MM-DD>_<slug>")
        try:
            day = dt.date.fromisoformat(parts[1])
        except ValueError as exc:
            raise EnvironmentLoadError(f"{folder}: bad date {parts[1]!r}") from exc
        steps.append((folder, day, parts[2].replace("-", " ")))
    return steps


def build_history(history: Path, dest: Path, tz: dt.timezone) -> list[Commit]:
    """Create a git repository at ``dest`` with one dated commit per history folder."""
    if dest.exists():
        shutil.rmtree(dest)
    init_repo(dest)
    commits: list[Commit] = []
    for folder, day, message in history_steps(history):
        shutil.copytree(folder, dest, dirs_exist_ok=True)
        written = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
        at = dt.datetime.combine(day, dt.time(COMMIT_HOUR), tzinfo=tz)
        sha = commit(dest, written, message, when=at)
        commits.append(Commit(sha=sha, at=at, message=message))
    return commits


def snapshot_before(commits: list[Commit], moment: dt.datetime) -> Commit | None:
    """The last commit strictly before ``moment`` (None if the memory did not exist yet)."""
    earlier = [c for c in commits if c.at < moment]
    return max(earlier, key=lambda c: c.at) if earlier else None
