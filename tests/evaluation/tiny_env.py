"""A tiny evaluation environment written into a temp dir: three weeks, two agents."""

from __future__ import annotations

import datetime as dt
import json
import textwrap
from pathlib import Path

TZ = dt.timezone(dt.timedelta(hours=8))
FOLLOW_UP = "FOLLOWUP-SECRET: use teal from now on"

ENV = """\
name: tiny
utc_offset_hours: 8
budget_bytes: 1200
max_items: 5
agents:
  hermes: {profile: full, projects: null}
  coder: {profile: working, projects: [alpha, beta]}
"""
REGISTRY = """\
projects:
  - {id: alpha, name: Alpha, paths: [/code/alpha], kind: research, status: active}
  - {id: beta, name: Beta, paths: [/code/beta], kind: research, status: active}
"""


def _card(
    cid: str,
    project: str,
    typ: str,
    created: str,
    conclusion: str,
    body: str,
    supersedes: str | None = None,
) -> str:
    sup = f"supersedes: [{supersedes}]\n" if supersedes else ""
    return textwrap.dedent(f"""\
        ---
        id: {cid}
        type: {typ}
        project: {project}
        conclusion: "{conclusion}"
        created: {created}
        {sup}---

        {body}
        """).replace("\n        ", "\n")


def write_tiny_env(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "env.yaml").write_text(ENV, encoding="utf-8")
    first = root / "history" / "01_2026-01-01_start"
    (first / "global" / "cards").mkdir(parents=True)
    (first / "projects" / "alpha" / "cards").mkdir(parents=True)
    (first / "projects" / "beta" / "cards").mkdir(parents=True)
    (first / "registry.yaml").write_text(REGISTRY, encoding="utf-8")
    (first / "global/cards/amber.md").write_text(
        _card(
            "amber",
            "global",
            "preference",
            "2026-01-01",
            "Charts use the amber colour palette.",
            "画图用 amber 配色。",
        ),
        encoding="utf-8",
    )
    (first / "projects/alpha/cards/alpha-env.md").write_text(
        _card(
            "alpha-env",
            "alpha",
            "convention",
            "2026-01-01",
            "Alpha sets up its environment with uv sync and Python 3.11.",
            "Run uv sync, then uv run pytest.",
        ),
        encoding="utf-8",
    )
    (first / "projects/beta/cards/beta-env.md").write_text(
        _card(
            "beta-env",
            "beta",
            "convention",
            "2026-01-01",
            "Beta sets up its environment with conda env create.",
            "conda activate beta.",
        ),
        encoding="utf-8",
    )
    second = root / "history" / "02_2026-01-07_teal"
    (second / "global" / "cards").mkdir(parents=True)
    (second / "global/cards/teal.md").write_text(
        _card(
            "teal",
            "global",
            "preference",
            "2026-01-07",
            "Charts use the teal colour palette; amber is no longer used.",
            "改成 teal 配色。",
            supersedes="amber",
        ),
        encoding="utf-8",
    )
    probes = []
    sessions = [
        (
            "dev",
            "2026-01-05 10:00",
            "coder",
            "/code/alpha",
            [
                ("set up the environment for this repo", True, ["alpha-env"], ["beta-env"]),
                ("rename foo to bar", False, [], []),
            ],
        ),
        (
            "dev",
            "2026-01-06 10:00",
            "hermes",
            None,
            [
                ("make a chart of the results, colour palette as usual", True, ["amber"], []),
                ("thanks", False, [], []),
            ],
        ),
        (
            "dev",
            "2026-01-12 10:00",
            "coder",
            "/code/beta",
            [
                ("set up the environment for this repo", True, ["beta-env"], ["alpha-env"]),
                ("fix the failing test", False, [], []),
            ],
        ),
        (
            "dev",
            "2026-01-13 09:00",
            "hermes",
            None,
            [
                ("chart the numbers with the usual colour palette", True, ["teal"], ["amber"]),
                ("good night", False, [], []),
            ],
        ),
        (
            "test",
            "2026-01-19 10:00",
            "coder",
            "/code/alpha",
            [
                ("set up the environment for this repo", True, ["alpha-env"], ["beta-env"]),
                ("add a docstring", False, [], []),
            ],
        ),
        (
            "test",
            "2026-01-20 10:00",
            "hermes",
            None,
            [
                ("plot a chart with my colour palette", True, ["teal"], ["amber"]),
                ("ok", False, [], []),
            ],
        ),
    ]
    for n, (split, start, agent, cwd, turns) in enumerate(sessions, 1):
        at = dt.datetime.strptime(start, "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
        for i, (prompt, needs, nec, harm) in enumerate(turns):
            probes.append(
                {
                    "id": f"t{n}-{i + 1}",
                    "session_id": f"s{n}",
                    "agent": agent,
                    "profile": "full" if agent == "hermes" else "working",
                    "timestamp": (at + dt.timedelta(minutes=3 * i)).isoformat(),
                    "prompt": prompt,
                    "previous_turn": turns[i - 1][0] if i else None,
                    "cwd": cwd,
                    "turn": i + 1,
                    "split": split,
                    "tags": [] if needs else ["routine"],
                    "follow_ups": [FOLLOW_UP, *[t[0] for t in turns[i + 1 :]]],
                    "gold": {"needs_memory": needs, "necessary": nec, "harmful": harm},
                }
            )
    (root / "probes.jsonl").write_text(
        "\n".join(json.dumps(p, ensure_ascii=False) for p in probes) + "\n", encoding="utf-8"
    )
    return root
