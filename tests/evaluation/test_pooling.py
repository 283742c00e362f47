"""Evaluation across users without their data (#32): every environment shares a summary
with no text in it, the summaries pool into one report, and a calibration pooled from
the other users is measured on each user's own replay.

The five environments are five simulated users of different worlds (evaluation/envs;
dataeng and firmware were written for this, by helpers who never saw the gate). The
privacy check searches every summary and the pooled report for each environment's
cards, prompts, ids, paths and their 3-word (3-character) runs.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import git
import numpy as np
import pytest
from typer.testing import CliRunner

from dose_mem.cli.main import app
from evaluation.harness.metrics import COLUMNS, metrics_from_sums
from evaluation.pooling.calibrate import TOLERANCE, calibrate
from evaluation.pooling.pool import PoolReport, pool, render_report
from evaluation.pooling.privacy import leaks, source_strings
from evaluation.pooling.propose import propose
from evaluation.pooling.rotation import User, before_pooling, load_users, rotations
from evaluation.pooling.share import share_log
from evaluation.pooling.summary import (
    MIN_BUCKET,
    Summary,
    VocabularyError,
    check_vocabulary,
    render_markdown,
)
from evaluation.tuning.profile_apply import apply_proposals
from evaluation.tuning.relevance_fit import ENVS
from flows.rollback import rollback
from memory_repo.demo import DEMO_IDS
from memory_repo.recall_log import RecallLog
from profiles.model import load_profiles
from recall_api.engine import RecallEngine
from recall_api.models import Identity, RecallRequest
from recall_api.relevance import REPO_MODEL, shipped_model
from recall_api.tokens import TokenStore, tokens_path
from tests.conftest import make_demo_home

USERS = ["demo", "webdev", "labsci", "dataeng", "firmware"]
HAN = range(0x3400, 0xA000)


@pytest.fixture(scope="module")
def users(tmp_path_factory: pytest.TempPathFactory) -> dict[str, User]:
    return load_users(USERS, tmp_path_factory.mktemp("users"))


@pytest.fixture(scope="module")
def world(users: dict[str, User]) -> tuple[dict[str, Summary], dict, PoolReport]:
    """Five users on the profiles shipped before their pooled calibration was folded into
    the defaults (the personal profile in gate mode score): the must-show's setting."""
    baseline = before_pooling(load_profiles())
    summaries, table = rotations(users, baseline)
    return summaries, table, pool(list(summaries.values()), baseline)


def shared_files(world: tuple[dict[str, Summary], dict, PoolReport]) -> dict[str, str]:
    summaries, _, report = world
    files = {f"{n}.json": s.model_dump_json(indent=1) for n, s in summaries.items()}
    files |= {f"{n}.md": render_markdown(s) for n, s in summaries.items()}
    files["pooled.json"] = report.model_dump_json(indent=1)
    files["pooled.md"] = render_report(report)
    return files


def test_no_source_string_reaches_a_summary_or_the_pooled_report(world) -> None:
    strings = [s for name in USERS for s in source_strings(ENVS / name)]
    assert len(strings) > 10_000
    for name, text in shared_files(world).items():
        assert leaks(text, strings) == [], name
        assert not any(ord(ch) in HAN for ch in text), name


def test_the_privacy_check_finds_what_it_looks_for(world) -> None:
    summaries, _, _ = world
    text = summaries["webdev"].model_dump_json()
    probes = [json.loads(x) for x in (ENVS / "webdev" / "probes.jsonl").read_text().splitlines()]
    strings = source_strings(ENVS / "webdev")
    english = next(p["prompt"] for p in probes if len(p["prompt"].split()) > 5)
    chinese = next(p["prompt"] for p in probes if any(ord(c) in HAN for c in p["prompt"]))
    card = probes[0]["gold"]["necessary"][0]
    assert leaks(text + " ".join(english.split()[1:4]), strings)
    assert leaks(text + chinese[-4:], strings)
    assert card in leaks(f"{text} {card}", strings)
    assert leaks(text + probes[0]["cwd"], strings)


def test_small_buckets_are_suppressed_and_named(world) -> None:
    summaries, _, _ = world
    turns = COLUMNS.index("turns")
    suppressed = 0
    for s in summaries.values():
        for b in s.buckets:
            if b.sums is None:
                suppressed += 1
                assert f"bucket {b.profile}/{b.lang}/{b.kind}" in s.suppressed
            else:
                assert b.sums[turns] >= MIN_BUCKET
        for h in s.histograms:
            assert all(c is None or c >= MIN_BUCKET for c in h.counts)
        assert set(s.manifest) == set(Summary.model_fields)
    assert suppressed > 0


def test_a_summary_with_free_text_is_refused(world, tmp_path: Path) -> None:
    summaries, _, _ = world
    bad = summaries["labsci"].model_copy(deep=True)
    bad.turns[0].lang = "plate 3 mask export"
    with pytest.raises(VocabularyError, match="plate 3"):
        check_vocabulary(bad)
    path = tmp_path / "bad.json"
    path.write_text(bad.model_dump_json(), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["--home", str(tmp_path / "home"), "eval", "pool", str(path), "--out", str(tmp_path)]
    )
    assert result.exit_code == 2 and "bad.json: not a dose-mem summary" in result.output


def test_the_pooled_metrics_are_the_users_sums_with_user_clustered_intervals(world) -> None:
    summaries, _, report = world
    assert report.users == len(USERS)
    for profile, metrics in report.metrics.items():
        sums = [
            np.asarray(s.profiles[profile]) for s in summaries.values() if s.profiles.get(profile)
        ]
        total = metrics_from_sums(np.sum(sums, axis=0))
        own = [float(metrics_from_sums(v)["composite"]) for v in sums]
        c = metrics["composite"]
        assert c.value == pytest.approx(float(total["composite"]), abs=1e-4)
        assert c.ci[0] <= c.value <= c.ci[1]
        assert c.spread == pytest.approx((min(own), float(np.median(own)), max(own)), abs=1e-4)
        assert c.users == len(sums)
    langs = {f.value for f in report.failures if f.by == "language"}
    assert {"en->en", "zh->zh"} <= langs
    assert all(1 <= f.users <= report.users and f.served <= f.memory_turns for f in report.failures)


def test_a_calibration_pooled_from_four_users_helps_the_fifth(world) -> None:
    """On each of the five rotations, the pooled model and bars (fitted without the user)
    raise the user's composite over the profiles the users have, and keep the coding
    agents' routine injection within the working profile's limit."""
    _, table, _ = world
    limit = load_profiles()["working"].routine_limit
    for user, row in table.items():
        before, after = row["shipped"]["all"], row["pooled"]["all"]
        assert row["applies"], user
        assert after["composite"] > before["composite"], user
        assert row["pooled"]["working"]["routine_injection_rate"] <= limit, user
        assert after["harmful_rate"] <= max(before["harmful_rate"], 0.01), user


def test_on_todays_defaults_a_pooled_calibration_costs_no_user_more_than_a_tie(
    users: dict[str, User], world: tuple[dict[str, Summary], dict, PoolReport]
) -> None:
    """With the pooled finding shipped (personal in mode relevance), what is left for a
    calibration is within the width of a tie (``calibrate.TOLERANCE``) either way, and
    routine injection stays within the limit."""
    _, table = rotations(users)
    limit = load_profiles()["working"].routine_limit
    for user, row in table.items():
        before, after = row["shipped"]["all"], row["pooled"]["all"]
        assert after["composite"] >= before["composite"] - TOLERANCE, user
        assert row["pooled"]["working"]["routine_injection_rate"] <= limit, user


def test_the_calibration_is_applied_and_undone_as_one_run(
    world, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Only the profiles the pooled users gain on change (here: personal; the working
    profile's agent keeps its profile), and the model file lands in the same commit."""
    summaries, _, _ = world
    home = make_demo_home(tmp_path_factory, "pool-home")
    store = TokenStore(tokens_path(home))
    store.issue("pi", "working", ["tablekit"])
    store.issue("calendar", "personal", ["life"])
    others = [s for n, s in summaries.items() if n != "demo"]
    calibration = calibrate(others, before_pooling(load_profiles()))
    assert set(calibration.bars) == {"personal"} and set(calibration.kept) == {"full", "working"}

    run = propose(home, calibration)

    assert sorted(p.agent for p in run.proposals) == ["*", "calendar"]
    repo = git.Repo(home.memory_path)
    sha, applied = apply_proposals(home)
    assert sorted(applied) == ["*", "calendar"]
    assert f"Dose-Mem-Run: {run.run_id}" in str(repo.head.commit.message)
    engine = RecallEngine(home.memory_path, home.index_path, load_profiles())
    assert engine.relevance.weights == calibration.model.weights
    calendar = Identity(agent="calendar", profile="personal", projects=["life"])
    assert engine.profile(calendar).gate.mode == "relevance"
    assert engine.profile(calendar).gate.threshold == calibration.bars["personal"]["threshold"]
    pi = Identity(agent="pi", profile="working", projects=["tablekit"])
    assert engine.profile(pi) == load_profiles()["working"]

    rollback(home, run.run_id)

    assert repo.head.commit.parents[0].hexsha == sha
    assert not (home.memory_path / REPO_MODEL).exists()
    assert engine.relevance.weights == shipped_model().weights
    assert engine.profile(calendar) == load_profiles()["personal"]


def test_a_broken_repo_model_is_ignored(tmp_path: Path) -> None:
    from recall_api.relevance import RepoModel

    model = RepoModel(tmp_path, shipped_model())
    (tmp_path / "profiles").mkdir()
    (tmp_path / REPO_MODEL).write_text("{not json", encoding="utf-8")
    assert model.current() is shipped_model()


def test_a_recall_log_shares_its_signals_without_its_prompts(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    home = make_demo_home(tmp_path_factory, "share-log")
    profiles = load_profiles()
    now = dt.datetime.now(dt.UTC)
    at = [now - dt.timedelta(hours=2)]

    def clock() -> dt.datetime:
        at[0] += dt.timedelta(seconds=30)
        return at[0]

    log = RecallLog(home.recall_log_path, days=30, max_mb=64, prompts="text", now=clock)
    engine = RecallEngine(home.memory_path, home.index_path, profiles, recall_log=log)
    who = Identity(agent="claude-code", profile="working", projects=None)
    uv = DEMO_IDS["uv"]
    quiet = ["get the environment ready", "recreate the environment, imports fail"]
    for n, prompt in enumerate(quiet * 3):
        request = RecallRequest(
            prompt=prompt, session_id=f"s{n}", turn=1, cwd="/home/demo/code/tablekit"
        )
        engine.recall(who, request)
        if n % 2 == 0:  # the agent looked for it: a miss
            engine.search(who, "python environment uv", cwd="/home/demo/code/tablekit")
            engine.read(who, uv)
    for n in range(6):
        request = RecallRequest(
            prompt=f"run the tests {n}", session_id=f"r{n}", turn=1, cwd="/home/demo/code/tablekit"
        )
        engine.recall(who, request)
    log.close()

    summary = share_log(home, 7, engine=engine, profiles=profiles, now=now)

    assert summary.source == "recall_log"
    kinds = [t.kind for t in summary.turns]
    assert kinds.count("memory") == 3 and kinds.count("quiet") == 9
    assert all(1 in t.labels for t in summary.turns if t.kind == "memory")
    [signals] = summary.signals
    assert signals.profile == "working" and signals.recalls == 12 and signals.misses is None
    text = summary.model_dump_json() + render_markdown(summary)
    assert leaks(text, [*quiet, uv, "run the tests 1", "/home/demo/code/tablekit"]) == []
    check_vocabulary(summary)


def test_share_and_pool_from_the_command_line(tmp_path: Path, tiny_env: Path) -> None:
    runner = CliRunner()
    home = ["--home", str(tmp_path / "home")]
    out = tmp_path / "tiny.json"
    result = runner.invoke(app, [*home, "eval", "share", str(tiny_env), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.with_suffix(".md").read_text(encoding="utf-8").startswith("# Evaluation")
    assert leaks(out.read_text(encoding="utf-8"), source_strings(tiny_env)) == []
    result = runner.invoke(
        app, [*home, "eval", "pool", str(out), str(out), "--out", str(tmp_path / "p")]
    )
    assert result.exit_code == 0, result.output
    report = PoolReport.model_validate_json((tmp_path / "p" / "pooled.json").read_bytes())
    assert report.users == 2 and report.calibration.users == 2
    missing = runner.invoke(app, [*home, "eval", "share", str(tmp_path), "--out", str(out)])
    assert missing.exit_code == 2 and "no env.yaml" in missing.output
