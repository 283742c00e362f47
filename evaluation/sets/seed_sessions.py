"""``python -m evaluation.sets.seed_sessions [--json]``: the seed's whole-session dose measure,
reproduced (issue #34; docs/read-path.md, "The seed's session measure").

The seed said: "over 5 simulated 10-turn coding sessions, the working profile cut recalled
length by 79%". Here every session of ``envs/seed_sessions.yaml`` (coding sessions of 10
turns, Hermes sessions of 20+, written before anything was measured and not tuned on) is
replayed turn by turn through ``RecallEngine`` on the demo memory, built fresh, under both
the ``full`` and the ``working`` profile (so working/full compares like with like), and
under two conditions:

- ``before``: per-turn dose, the shipped profiles with ``kept_by`` emptied (every passing
  item is given on every turn, ``systems.per_turn``);
- ``after``: the shipped profiles (session-aware: an item the agent holds is held back).

Per (kind, profile, condition): bytes per session (sum of ``result.bytes``), items given,
items held back; then ``1 - working/full`` of bytes per session per kind and condition.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import yaml
from pydantic import BaseModel

from evaluation.harness.systems import per_turn
from memory_repo.demo import DEMO_TODAY, build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.settings import Settings
from profiles.model import Profile, load_profiles
from recall_api.engine import RecallEngine
from recall_api.models import Identity, RecallRequest

SESSIONS = Path(__file__).resolve().parents[1] / "envs" / "seed_sessions.yaml"
KINDS = ("coding", "assistant")
PROFILES = ("full", "working")
CONDITIONS = ("before", "after")


class Session(BaseModel):
    id: str
    agent: str
    cwd: str | None = None
    prompts: list[str]


class SessionSet(BaseModel):
    coding: list[Session]
    assistant: list[Session]


class Replay(BaseModel):
    """One session under one profile and condition."""

    session: str
    kind: str
    profile: str
    condition: str
    turns: int
    bytes: int
    given: int
    held: int
    recalled_turns: int


class Group(BaseModel):
    kind: str
    profile: str
    condition: str
    sessions: int
    turns: int
    total_bytes: int
    mean_bytes: float
    given: int
    held: int


def load_sessions(path: Path = SESSIONS) -> SessionSet:
    return SessionSet.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def replay(
    engine: RecallEngine, session: Session, kind: str, profile: str, condition: str
) -> Replay:
    """Every prompt of ``session`` in order, one session id per (profile, condition)."""
    identity = Identity(agent=session.agent, profile=profile, projects=None)
    sid = f"{session.id}-{profile}-{condition}"
    total = given = held = recalled = 0
    for turn, prompt in enumerate(session.prompts, start=1):
        request = RecallRequest(prompt=prompt, session_id=sid, turn=turn, cwd=session.cwd)
        result = engine.recall(identity, request)
        total += result.bytes
        given += len(result.items)
        held += len(result.held)
        recalled += bool(result.items)
    return Replay(
        session=session.id,
        kind=kind,
        profile=profile,
        condition=condition,
        turns=len(session.prompts),
        bytes=total,
        given=given,
        held=held,
        recalled_turns=recalled,
    )


def run(
    embedder: Embedder,
    sessions: SessionSet | None = None,
    profiles: dict[str, Profile] | None = None,
) -> list[Replay]:
    """Replay every session under both profiles and both conditions, demo memory fresh."""
    sessions = sessions or load_sessions()
    shipped = profiles or load_profiles()
    resent = {name: per_turn(p) for name, p in shipped.items()}
    out: list[Replay] = []
    with tempfile.TemporaryDirectory(prefix="seed-sessions-") as tmp:
        memory, index_dir = Path(tmp) / "memory", Path(tmp) / "index"
        build_demo(memory, DEMO_TODAY)
        rebuild(memory, index_dir, embedder)
        for condition, chosen in (("before", resent), ("after", shipped)):
            engine = RecallEngine(memory, index_dir, chosen, embedder, today=lambda: DEMO_TODAY)
            for kind in KINDS:
                for session in getattr(sessions, kind):
                    for profile in PROFILES:
                        out.append(replay(engine, session, kind, profile, condition))
    return out


def groups(replays: list[Replay]) -> list[Group]:
    out = []
    for kind in KINDS:
        for profile in PROFILES:
            for condition in CONDITIONS:
                mine = [
                    r
                    for r in replays
                    if (r.kind, r.profile, r.condition) == (kind, profile, condition)
                ]
                if not mine:
                    continue
                total = sum(r.bytes for r in mine)
                out.append(
                    Group(
                        kind=kind,
                        profile=profile,
                        condition=condition,
                        sessions=len(mine),
                        turns=sum(r.turns for r in mine),
                        total_bytes=total,
                        mean_bytes=round(total / len(mine), 1),
                        given=sum(r.given for r in mine),
                        held=sum(r.held for r in mine),
                    )
                )
    return out


def cuts(table: list[Group]) -> dict[str, dict[str, float | None]]:
    """``1 - working/full`` of bytes per session, per kind and condition."""
    by = {(g.kind, g.profile, g.condition): g for g in table}
    out: dict[str, dict[str, float | None]] = {}
    for kind in KINDS:
        out[kind] = {}
        for condition in CONDITIONS:
            full = by.get((kind, "full", condition))
            working = by.get((kind, "working", condition))
            if full is None or working is None or full.mean_bytes == 0:
                out[kind][condition] = None
            else:
                out[kind][condition] = round(1 - working.mean_bytes / full.mean_bytes, 4)
    return out


def markdown(table: list[Group]) -> str:
    lines = [
        "| sessions | profile | dose | n | turns | bytes total | bytes / session "
        "| items given | items held back |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for g in table:
        dose = "per-turn (before)" if g.condition == "before" else "session-aware (after)"
        lines.append(
            f"| {g.kind} | {g.profile} | {dose} | {g.sessions} | {g.turns} | {g.total_bytes} "
            f"| {g.mean_bytes:.0f} | {g.given} | {g.held} |"
        )
    lines += [
        "",
        "| sessions | working vs full, bytes per session: before | after |",
        "|---|---|---|",
    ]
    for kind, by_condition in cuts(table).items():
        cells = [_pct(by_condition[c]) for c in CONDITIONS]
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pct(cut: float | None) -> str:
    return "n/a" if cut is None else f"{-cut:+.0%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    replays = run(make_embedder(Settings()))
    table = groups(replays)
    if args.json:
        print(
            json.dumps(
                {
                    "replays": [r.model_dump() for r in replays],
                    "groups": [g.model_dump() for g in table],
                    "cuts": cuts(table),
                },
                indent=1,
            )
        )
    else:
        print(markdown(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
