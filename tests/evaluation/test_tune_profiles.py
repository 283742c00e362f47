"""Profiles that learn: a simulated week of a coding agent's logged traffic, in which
first-turn recalls stay below the working threshold and the agent then searches and
reads the uv card, gets a proposal that would have injected it; the routine prompts of
the week stay within the working profile's limit and the bundled evaluation's composite
does not fall. Applying the proposal and rolling it back are both commits, and the
recall service follows each."""

from __future__ import annotations

import datetime as dt

import git
import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
from typer.testing import CliRunner

from dose_mem.cli.main import app
from evaluation.tuning.tune_profiles import tune_profiles
from memory_repo.demo import DEMO_IDS
from memory_repo.recall_log import RecallLog, read_entries
from memory_repo.settings import Settings
from profiles.model import load_profiles
from profiles.proposals import load_run
from recall_api.deps import Services
from recall_api.models import Identity, RecallRequest
from recall_api.services import build_services
from recall_api.tokens import TokenStore, tokens_path
from tests.conftest import make_demo_home
from tests.recall.test_routine_prompts import PROMPTS as ROUTINE

UV = DEMO_IDS["uv"]
TABLEKIT = "/home/demo/code/tablekit"
AGENT = "claude-code"
# First prompts of sessions that needed the uv card, and that the working gate let pass
# quietly (checked below, before anything is tuned).
MISSED = [
    "prepare the environment before running the tests",
    "create the environment for tablekit",
    "set up the dev environment",
    "get the environment ready",
    "my environment is missing packages",
    "the environment cannot find pytest",
    "recreate the environment, imports fail",
]
LATER = ["run the tests", "commit this", "now fix the lint errors"]


class Clock:
    def __init__(self, start: dt.datetime) -> None:
        self.at = start

    def __call__(self) -> dt.datetime:
        self.at += dt.timedelta(minutes=1)
        return self.at


def recall(services: Services, who: Identity, prompt: str, session: str, turn: int) -> list[str]:
    request = RecallRequest(prompt=prompt, session_id=session, turn=turn, cwd=TABLEKIT)
    return [i.id for i in services.engine.recall(who, request).items]


def simulate_week(services: Services, settings: Settings, who: Identity) -> int:
    """Seven days of sessions: each day one or two that missed the uv card (the agent
    searches, then reads it), and about seven routine ones. Returns the misses."""
    now = dt.datetime.now(dt.UTC)
    clock = Clock(now - dt.timedelta(days=7))
    log = RecallLog(settings.recall_log_path, days=30, max_mb=64, prompts="text", now=clock)
    services.engine.recall_log = log
    misses = 0
    routine = iter(ROUTINE)
    for day in range(7):
        clock.at = now - dt.timedelta(days=7 - day, hours=-1)
        for n in range(1 + day % 2):
            prompt = MISSED[(day + n) % len(MISSED)]
            session = f"miss-{day}-{n}"
            assert recall(services, who, prompt, session, 1) == []
            hits = services.engine.search(who, "python environment uv", cwd=TABLEKIT)
            assert UV in [h.item_id for h in hits]
            services.engine.read(who, UV)
            misses += 1
            for turn, later in enumerate(LATER, 2):
                recall(services, who, later, session, turn)
        for n in range(7):
            prompt = next(routine, None)
            if prompt is None:
                break
            recall(services, who, prompt, f"routine-{day}-{n}", 1)
            recall(services, who, LATER[n % len(LATER)], f"routine-{day}-{n}", 2)
    log.close()
    return misses


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return make_demo_home(tmp_path_factory, "tune-home")


def test_a_week_of_misses_teaches_the_working_profile(home: Settings, harness: None) -> None:
    TokenStore(tokens_path(home)).issue(AGENT, "working", ["tablekit", "tabsense"])
    services = build_services(home)
    who = Identity(agent=AGENT, profile="working", projects=["tablekit", "tabsense"])
    misses = simulate_week(services, home, who)
    entries = read_entries(home.recall_log_path)
    assert sum(e.kind == "read" for e in entries) == misses

    run_id = tune_profiles(home=str(home.home))

    run = load_run(home.state_path)
    assert run is not None and run.run_id == run_id
    [proposal] = run.proposals
    assert proposal.agent == AGENT and proposal.path == f"profiles/{AGENT}.yaml"
    assert proposal.misses == misses
    assert proposal.before.misses_served == 0
    assert proposal.after.misses_served == misses, proposal.change
    limit = load_profiles()["working"].routine_limit
    assert proposal.after.routine_injection_rate <= limit
    assert proposal.before.eval_composite is not None
    assert proposal.after.eval_composite is not None
    assert proposal.after.eval_composite >= proposal.before.eval_composite
    assert proposal.eval_agents == [AGENT] and proposal.eval_probes > 0
    assert f"+++ b/profiles/{AGENT}.yaml" in proposal.diff
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["tune-profiles"]))
        )
    assert found and proposal.change in str(found[-1].data)

    repo = git.Repo(home.memory_path)
    head = repo.head.commit.hexsha
    runner = CliRunner()
    applied = runner.invoke(app, ["--home", str(home.home), "profiles", "apply"])
    assert applied.exit_code == 0, applied.output
    assert repo.head.commit.parents[0].hexsha == head
    assert f"Dose-Mem-Run: {run_id}" in str(repo.head.commit.message)
    assert (home.memory_path / proposal.path).read_text("utf-8") == proposal.text
    assert UV in recall(services, who, MISSED[0], "after-apply", 1), "the service honours it"
    again = runner.invoke(app, ["--home", str(home.home), "profiles", "apply"])
    assert again.exit_code == 1 and "nothing applied" in again.output

    applied_sha = repo.head.commit.hexsha
    rolled = runner.invoke(app, ["--home", str(home.home), "rollback", run_id])
    assert rolled.exit_code == 0, rolled.output
    assert repo.head.commit.parents[0].hexsha == applied_sha
    assert not (home.memory_path / proposal.path).exists()
    assert recall(services, who, MISSED[0], "after-rollback", 1) == []
