"""The paraphrase set: prompts a new user would type, over the demo memory of ``make up``.

``tests/data/paraphrases_demo.jsonl`` (written before any tuning, by someone who had not
seen the gate) holds prompts in English, Chinese and both, each with the agent that hears
it, its checkout, the cards that answer it and the ones that must not come (a superseded
version, another project's look-alike). Each prompt is a first turn of its own session,
answered by ``RecallEngine.recall`` under its agent's profile, as the demo tokens are
issued (``dose_mem/up.py``: every token sees every project its profile admits). A prompt
is *served* when an expected card is injected and nothing forbidden, superseded or of
another project than the prompt's is.

    python -m evaluation.sets.paraphrases [--json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel

from memory_repo.demo import DEMO_TODAY, build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.lifecycle import superseded_ids
from memory_repo.models import GLOBAL
from memory_repo.settings import Settings
from memory_repo.store import load_memory
from profiles.model import Profile, load_profiles
from recall_api.engine import RecallEngine
from recall_api.models import Identity, RecallRequest
from recall_api.scoping import resolve_project

SET = Path(__file__).resolve().parents[2] / "tests" / "data" / "paraphrases_demo.jsonl"


class Paraphrase(BaseModel):
    id: str
    prompt: str
    lang: str
    card_lang: str
    agent: str
    profile: str
    cwd: str | None = None
    project: str | None = None
    expected: list[str]
    forbidden: list[str] = []
    note: str = ""


class Outcome(BaseModel):
    id: str
    profile: str
    lang: str
    served: bool
    injected: list[str]
    wrong: list[str]


def load_set(path: Path = SET) -> list[Paraphrase]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Paraphrase.model_validate_json(line) for line in lines if line.strip()]


def run(
    embedder: Embedder,
    profiles: dict[str, Profile] | None = None,
    items: list[Paraphrase] | None = None,
    today: dt.date = DEMO_TODAY,
) -> list[Outcome]:
    profiles = profiles or load_profiles()
    items = items if items is not None else load_set()
    with tempfile.TemporaryDirectory(prefix="paraphrases-") as tmp:
        memory, index_dir = Path(tmp) / "memory", Path(tmp) / "index"
        build_demo(memory, today)
        rebuild(memory, index_dir, embedder)
        retired = superseded_ids(load_memory(memory).items.values())
        engine = RecallEngine(memory, index_dir, profiles, embedder, today=lambda: today)
        out = []
        for n, p in enumerate(items):
            identity = Identity(agent=p.agent, profile=p.profile, projects=None)
            request = RecallRequest(
                prompt=p.prompt, session_id=f"pp-{n}", turn=1, cwd=p.cwd, project=p.project
            )
            result = engine.recall(identity, request)
            at = resolve_project(
                engine.registry, project=p.project, cwd=p.cwd, prompt=p.prompt
            ).project
            injected = [i.id for i in result.items]
            wrong = [
                i.id
                for i in result.items
                if i.id in p.forbidden
                or i.id in retired
                or (at is not None and i.project not in (at, GLOBAL))
            ]
            served = bool(set(p.expected) & set(injected)) and not wrong
            out.append(
                Outcome(
                    id=p.id,
                    profile=p.profile,
                    lang=p.lang,
                    served=served,
                    injected=injected,
                    wrong=wrong,
                )
            )
        return out


def summary(outcomes: list[Outcome]) -> dict[str, dict[str, float | int]]:
    """Served share per profile and per prompt language, and over all."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[f"profile:{o.profile}"].append(o)
        groups[f"lang:{o.lang}"].append(o)
        groups["all"].append(o)
    return {
        g: {
            "prompts": len(v),
            "served": sum(o.served for o in v),
            "rate": round(sum(o.served for o in v) / len(v), 3),
            "wrong": sum(bool(o.wrong) for o in v),
        }
        for g, v in sorted(groups.items())
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="The demo paraphrase set, per profile.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    outcomes = run(make_embedder(Settings()))
    if args.json:
        print(
            json.dumps(
                {"summary": summary(outcomes), "outcomes": [o.model_dump() for o in outcomes]}
            )
        )
        return
    for group, row in summary(outcomes).items():
        served = f"{row['served']:>3}/{row['prompts']:<3}"
        print(f"{group:18} {served} {row['rate']:.3f}  wrong {row['wrong']}")
    for o in outcomes:
        if not o.served:
            print(f"  missed {o.id} ({o.profile}): injected {o.injected} wrong {o.wrong}")


if __name__ == "__main__":
    main()
