"""A pooled calibration as proposals that ``dose-mem profiles apply`` commits.

One proposal per agent holding a live token: its override (``profiles/<agent>.yaml``)
with the gate in mode relevance at the pooled bars (a coding profile also searching on
later turns, as ``systems.in_relevance_mode`` sets), merged over what the override held;
and one for the pooled model itself (``profiles/relevance-model.json``, which
``relevance.RepoModel`` reads). ``profiles apply`` lands them as one commit carrying the
run trailer, so ``dose-mem rollback <run id>`` gives back the shipped model and bars.
"""

from __future__ import annotations

import datetime as dt
import json

from evaluation.pooling.calibrate import Calibration, calibrated_profiles
from evaluation.tuning.profile_apply import file_sha256
from evaluation.tuning.profile_tuner import diff, render_override
from memory_repo.settings import Settings
from profiles.model import Profile, load_profiles
from profiles.overrides import merge, override_rel, read_override
from profiles.proposals import Measure, Proposal, TuneRun, save_run
from recall_api.relevance import REPO_MODEL
from recall_api.tokens import TokenStore

MODEL_AGENT = "*"


def _gate_override(profile: Profile) -> dict:
    gate = profile.gate.model_dump(
        mode="json", include={"mode", "threshold", "new_subject", "min_l0_overlap", "cue_relief"}
    )
    return {"profile": profile.name, "triggers": [str(t) for t in profile.triggers], "gate": gate}


def propose(
    settings: Settings, calibration: Calibration, now: dt.datetime | None = None
) -> TuneRun:
    """Store the calibration as the latest proposal run (``<state>/tune/latest.json``)."""
    now = now or dt.datetime.now(dt.UTC)
    run = TuneRun(run_id=f"pool-{now:%Y%m%dT%H%M%SZ}", at=now, since=now)
    root = settings.memory_path
    profiles = load_profiles(settings.profiles_path)
    tuned = calibrated_profiles(profiles, calibration)
    tokens = TokenStore(settings.state_path / "tokens.json").list()
    agents = sorted(
        {(t.agent, t.profile) for t in tokens if not t.revoked and not getattr(t, "admin", False)}
    )
    for agent, name in agents:
        if name not in calibration.bars:
            continue
        rel = override_rel(agent)
        path = root / rel
        old = path.read_text("utf-8") if path.exists() else ""
        current = read_override(path) if path.exists() else {}
        if current and current.get("profile") != name:
            current = {}
        override = merge(current, _gate_override(tuned[name]))
        text = render_override(override, agent)
        run.proposals.append(
            Proposal(
                agent=agent,
                profile=name,
                change=f"pooled calibration: gate {override['gate']}",
                path=rel,
                override=override,
                text=text,
                diff=diff(old, text, rel),
                base_sha256=file_sha256(path),
                before=Measure(),
                after=Measure(),
                misses=0,
                routine=0,
                routine_limit=profiles[name].routine_limit,
            )
        )
    if not calibration.applies:
        save_run(settings.state_path, run)
        return run
    model_path = root / REPO_MODEL
    old = model_path.read_text("utf-8") if model_path.exists() else ""
    text = json.dumps(calibration.model.model_dump(), indent=1) + "\n"
    run.proposals.append(
        Proposal(
            agent=MODEL_AGENT,
            profile="relevance",
            change=f"pooled relevance model ({calibration.users} users, {calibration.turns} turns)",
            path=REPO_MODEL,
            override={},
            text=text,
            diff=diff(old, text, REPO_MODEL),
            base_sha256=file_sha256(model_path),
            before=Measure(),
            after=Measure(),
            misses=0,
            routine=0,
            routine_limit=0.0,
        )
    )
    save_run(settings.state_path, run)
    return run
