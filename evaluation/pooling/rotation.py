"""Does a calibration pooled from other users help the next one? Five rotations.

``python -m evaluation.pooling.rotation [--envs demo,webdev,labsci,dataeng,firmware]
[--out DIR]``

Each environment is one simulated user. Each shares its summary
(``share.environment_summary``: no text). For each user U, the calibration is pooled
from the other users' summaries only (``calibrate.calibrate``: the relevance model and
the bars), and U's own environment is replayed (every probe with gold labels, U's weekly
snapshots, its task state) twice: with the profiles as shipped and with the pooled
calibration (every profile in gate mode relevance with the pooled model and bars).
Nothing of U is in what U is measured with. With ``--out`` the summaries, the pooled
report of all users and the rotation table are written there.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from evaluation.harness.environment import Environment
from evaluation.harness.snapshots import SnapshotStore
from evaluation.pooling.calibrate import calibrate, calibrated_profiles
from evaluation.pooling.pool import pool, render_report
from evaluation.pooling.share import environment_summary
from evaluation.pooling.summary import Summary, render_markdown
from evaluation.tuning.relevance_data import Candidates, environment_candidates
from evaluation.tuning.relevance_fit import ENVS, Replay
from memory_repo.index.embedders import CachedEmbedder, make_embedder
from memory_repo.settings import Settings
from profiles.model import GateMode, Profile, load_profiles
from recall_api.relevance import shipped_model

DEFAULT_ENVS = "demo,webdev,labsci,dataeng,firmware"
SHOWN = ("hit_rate", "silence", "routine_injection_rate", "harmful_rate", "composite")


def before_pooling(profiles: dict[str, Profile]) -> dict[str, Profile]:
    """The profiles as shipped before the five users' pooled calibration was folded into
    the defaults (2026-12-07): the personal profile in gate mode score at 0.4."""
    personal = profiles["personal"]
    gate = personal.gate.model_copy(update={"mode": GateMode.score, "threshold": 0.4})
    return {**profiles, "personal": personal.model_copy(update={"gate": gate})}


@dataclass
class User:
    """One simulated user: an environment, its snapshots and its candidates."""

    env: Environment
    store: SnapshotStore
    cands: list[Candidates]
    replay: Replay


def load_users(envs: list[str], work: Path) -> dict[str, User]:
    """The environments, indexed once; candidates depend on the profiles' scopes, which
    no baseline here changes."""
    settings = Settings()
    embedder = CachedEmbedder(make_embedder(settings), size=16384)
    out = {}
    for name in envs:
        env, store, cands = environment_candidates(
            ENVS / name, embedder, load_profiles(), work / name
        )
        out[name] = User(env, store, cands, Replay(env, store, settings))
    return out


def rotations(
    users: dict[str, User], baseline: dict[str, Profile] | None = None
) -> tuple[dict[str, Summary], dict[str, dict]]:
    """Every user's summary and each rotation's replay, the users on ``baseline``
    profiles (default: as shipped)."""
    settings = Settings()
    shipped = baseline or load_profiles()
    summaries: dict[str, Summary] = {}
    for name, user in users.items():
        for snapshot in user.store.all():  # what an earlier rotation left in the engines
            snapshot.engine.relevance = shipped_model()
        summaries[name] = environment_summary(user.env, user.store, user.cands, shipped, settings)
    table: dict[str, dict] = {}
    for held, user in users.items():
        cal = calibrate([s for n, s in summaries.items() if n != held], shipped)
        probes = [p for p in user.replay.probes() if p.gold is not None]
        before = user.replay.metrics(shipped_model(), shipped, probes)
        after = (
            user.replay.metrics(cal.model, calibrated_profiles(shipped, cal), probes)
            if cal.applies
            else before
        )
        table[held] = {
            "applies": cal.applies,
            "bars": cal.bars,
            "shipped": {g: {k: round(m[k], 4) for k in SHOWN} for g, m in before.items()},
            "pooled": {g: {k: round(m[k], 4) for k in SHOWN} for g, m in after.items()},
        }
        print(json.dumps({held: table[held]}), flush=True)
    return summaries, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", default=DEFAULT_ENVS)
    parser.add_argument("--out", default="")
    parser.add_argument(
        "--before-pooling",
        action="store_true",
        help="users on the profiles shipped before the pooled finding (personal in mode score)",
    )
    args = parser.parse_args()
    envs = args.envs.split(",")
    baseline = before_pooling(load_profiles()) if args.before_pooling else None
    with tempfile.TemporaryDirectory(prefix="rotation-") as tmp:
        summaries, table = rotations(load_users(envs, Path(tmp)), baseline)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for n, s in enumerate(summaries.values(), 1):
            (out / f"user-{n}.json").write_text(s.model_dump_json(indent=1), encoding="utf-8")
            (out / f"user-{n}.md").write_text(render_markdown(s), encoding="utf-8")
        report = pool(list(summaries.values()), baseline or load_profiles())
        (out / "pooled.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
        (out / "pooled.md").write_text(render_report(report), encoding="utf-8")
        (out / "rotations.json").write_text(json.dumps(table, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
