"""The ``tune-profiles`` flow: learn each agent's dose from what it searched for.

Weekly (``prefect.yaml``): read the last ``days`` of the recall log, find each agent's
misses, used and unused items and routine recalls (``log_signals``), replay its logged
prompts under candidate changes (``profile_tuner``), check the best on the evaluation
environment (``profile_check``), and store the proposals in ``<state>/tune/latest.json``
(``profiles.proposals``) with a Markdown artifact of the diffs. Nothing changes until
``dose-mem profiles apply`` (or ``auto_apply``) commits them (``profile_apply``).
The flow lives in ``evaluation/`` because it runs the evaluation (docs/architecture.md).
"""

from __future__ import annotations

import datetime as dt
import tempfile
from functools import partial
from pathlib import Path

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from evaluation.harness.snapshots import MemoIndex
from evaluation.tuning.log_signals import AgentSignals, agent_signals
from evaluation.tuning.profile_apply import apply_proposals, file_sha256
from evaluation.tuning.profile_check import BUNDLED_ENV, EnvCheck
from evaluation.tuning.profile_tuner import candidates, choose, diff, render_override, replay
from memory_repo.index.embedders import make_embedder
from memory_repo.recall_log import joined, read_entries
from memory_repo.settings import Settings, get_settings
from profiles.model import Profile, ProfileError, load_profiles
from profiles.overrides import apply_override, override_rel, read_override
from profiles.proposals import AgentSummary, Proposal, TuneRun, save_run
from recall_api.engine import RecallEngine
from recall_api.models import Identity
from recall_api.tokens import TokenStore

ARTIFACT_KEY = "tune-profiles"


def identity_of(tokens: TokenStore, signals: AgentSignals) -> Identity:
    """The agent's newest live token's projects; without one, the projects its log shows."""
    live = [t for t in tokens.list() if t.agent == signals.agent and not t.revoked]
    if live:
        newest = max(live, key=lambda t: t.created)
        return Identity(agent=signals.agent, profile=newest.profile, projects=newest.projects)
    seen = sorted({o.entry.project for o in signals.outcomes if o.entry.project})
    return Identity(agent=signals.agent, profile=signals.profile, projects=seen)


def current_override(root: Path, agent: str, base: Profile) -> dict | None:
    path = root / override_rel(agent)
    if not path.exists():
        return None
    data = read_override(path)
    return data if data["profile"] == base.name else None


def tune(
    settings: Settings,
    env_dir: Path,
    *,
    days: float = 7.0,
    turns: int = 3,
    workdir: Path,
    now: dt.datetime | None = None,
) -> TuneRun:
    """One tuning pass over the log; writes nothing (the flow stores the result)."""
    now = now or dt.datetime.now(dt.UTC)
    since = now - dt.timedelta(days=days)
    run = TuneRun(run_id=f"tune-{now:%Y%m%dT%H%M%SZ}", at=now, since=since)
    pairs = joined(read_entries(settings.recall_log_path, since=since), turns)
    by_agent = agent_signals(pairs)
    if not by_agent:
        return run
    profiles = load_profiles(settings.profiles_path)
    engine = RecallEngine(
        settings.memory_path, settings.index_path, profiles, make_embedder(settings)
    )
    engine.index = MemoIndex(engine.index)  # type: ignore[assignment]
    tokens = TokenStore(settings.state_path / "tokens.json")
    check = EnvCheck(env_dir, settings, workdir)
    root = settings.memory_path
    for name in sorted(by_agent):
        signals = by_agent[name]
        summary = AgentSummary(
            agent=name,
            profile=signals.profile,
            recalls=len(signals.outcomes),
            misses=len(signals.misses),
            used=signals.used,
            unused_items=signals.unused_items,
            routine=signals.routine,
        )
        run.agents.append(summary)
        base = profiles.get(signals.profile)
        if base is None:
            summary.note = f"profile {signals.profile!r} is not configured"
            continue
        if not signals.misses and not summary.unused_items:
            summary.note = "no misses and no unused items: nothing to learn"
            continue
        try:
            layer = current_override(root, name, base)
        except ProfileError as exc:
            summary.note = f"override not readable, not tuned: {exc}"
            continue
        now_profile = apply_override(base, layer or {"profile": base.name})
        who = identity_of(tokens, signals)
        before = replay(engine, who, signals, now_profile)
        measured = [
            (c, replay(engine, who, signals, c.profile)) for c in candidates(base, layer, signals)
        ]
        agents = check.agents_for(name, base.name)
        baseline = check.composite(agents, now_profile)
        chosen = choose(
            before, measured, base.routine_limit, partial(check.composite, agents), baseline
        )
        if chosen is None:
            summary.note = "no change serves more within the routine limit and the evaluation"
            continue
        candidate, after = chosen
        rel = override_rel(name)
        old = (root / rel).read_text("utf-8") if (root / rel).exists() else ""
        text = render_override(candidate.override, name)
        run.proposals.append(
            Proposal(
                agent=name,
                profile=base.name,
                change=candidate.change,
                path=rel,
                override=candidate.override,
                text=text,
                diff=diff(old, text, rel),
                base_sha256=file_sha256(root / rel),
                before=before.model_copy(
                    update={"eval_composite": None if baseline != baseline else round(baseline, 4)}
                ),
                after=after,
                misses=len(signals.misses),
                routine=signals.routine,
                routine_limit=base.routine_limit,
                eval_agents=agents,
                eval_probes=len(check.probes(agents)),
            )
        )
    return run


def render(run: TuneRun) -> str:
    """The run as Markdown: one row per agent, then each proposal's diff."""
    lines = [
        f"# tune-profiles {run.run_id}",
        "",
        f"Recall log since {run.since:%Y-%m-%d %H:%M} UTC.",
        "",
        "| agent | profile | recalls | misses | used | unused items | routine | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {a.agent} | {a.profile} | {a.recalls} | {a.misses} | {a.used} | "
        f"{a.unused_items} | {a.routine} | {a.note} |"
        for a in run.agents
    ]
    for p in run.proposals:
        b, a = p.before, p.after
        lines += [
            "",
            f"## {p.agent}: {p.change}",
            "",
            "| | misses served | used kept | unused items | routine injection rate | "
            "eval composite |",
            "|---|---|---|---|---|---|",
            f"| now | {b.misses_served}/{p.misses} | {b.used_kept} | {b.unused_items} | "
            f"{b.routine_injection_rate:.3f} | {b.eval_composite} |",
            f"| proposed | {a.misses_served}/{p.misses} | {a.used_kept} | {a.unused_items} | "
            f"{a.routine_injection_rate:.3f} (limit {p.routine_limit}) | {a.eval_composite} |",
            "",
            f"Evaluation: {p.eval_probes} probes of {', '.join(p.eval_agents) or 'no agent'}.",
            "",
            "```diff",
            p.diff.rstrip("\n"),
            "```",
            "",
            f"Apply with `dose-mem profiles apply {p.agent}`.",
        ]
    if not run.proposals:
        lines += ["", "No change proposed."]
    return "\n".join(lines) + "\n"


@flow(name="tune-profiles")
def tune_profiles(
    home: str | None = None, eval_env: str | None = None, days: float = 7.0, turns: int = 3
) -> str:
    """Returns the run id; ``eval_env`` defaults to the bundled demo environment."""
    settings = get_settings(home=Path(home) if home else None)
    log = get_run_logger()
    with tempfile.TemporaryDirectory(prefix="dose-mem-tune-") as tmp:
        run = tune(
            settings,
            Path(eval_env) if eval_env else BUNDLED_ENV,
            days=days,
            turns=turns,
            workdir=Path(tmp),
        )
    path = save_run(settings.state_path, run)
    create_markdown_artifact(key=ARTIFACT_KEY, markdown=render(run), description=run.run_id)
    log.info("%d proposal(s) stored in %s", len(run.proposals), path)
    if settings.auto_apply and run.proposals:
        sha, agents = apply_proposals(settings)
        log.info("auto_apply: %s applied in commit %s", ", ".join(agents), sha[:12])
    return run.run_id
