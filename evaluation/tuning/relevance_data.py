"""Labelled candidates for the relevance model: each prompt's candidates exactly as recall
sees them (``RecallEngine.candidates``: the token's and profile's scope, the same search),
with their features and whether each helps.

Sources, each a *group* for leave-one-group-out:

- an evaluation environment (``evaluation/envs/<name>``): every probe with gold labels
  that is not a task-state question, answered against its weekly snapshot under its
  agent's profile; an item is positive when the gold names it necessary or helpful;
  every candidate of a turn that needs no memory is negative;
- ``demo`` also takes the bilingual set (``tests/data/bilingual_queries.jsonl``) and the
  two routine-prompt lists over the demo memory (``dose-mem init --demo``), which were
  written for that memory;
- LoCoMo (``../shared/benchmarks/locomo``, read in place): each conversation's turns
  as cards, each question's evidence turns positive; all of it one group, ``locomo``.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evaluation.harness.environment import Environment, load_environment
from evaluation.harness.probes import system_input
from evaluation.harness.snapshots import SnapshotStore
from evaluation.harness.systems import recall_request
from evaluation.sets.bilingual import load_queries
from evaluation.sets.locomo import card_id, load_conversation, write_memory
from memory_repo.demo import build_demo
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.models import GLOBAL
from profiles.model import Profile
from recall_api.engine import CANDIDATES, RecallEngine
from recall_api.evidence import read_prompt
from recall_api.models import Identity, RecallRequest
from recall_api.relevance import Context, features

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
ROUTINE_LISTS = ("routine_prompts.txt", "routine_prompts_zh.txt")
ROUTINE_CWD = "/home/demo/code/tablekit"  # the demo's tablekit checkout (memory_repo/demo.py)


@dataclass
class Candidates:
    """One prompt's candidates: features (n, F), labels, and what the prompt was."""

    group: str
    key: str
    ids: list[str]
    x: np.ndarray
    y: np.ndarray
    meta: dict[str, object] = field(default_factory=dict)


def _labelled(
    group: str,
    key: str,
    engine: RecallEngine,
    identity: Identity,
    request: RecallRequest,
    profile: Profile,
    useful: set[str],
    meta: dict[str, object],
) -> Candidates:
    prompt, hits, context = engine.candidates(identity, request, profile)
    ids = [h.item_id for h in hits]
    return Candidates(
        group=group,
        key=key,
        ids=ids,
        x=features(prompt, hits, context),
        y=np.array([i in useful for i in ids], dtype=np.float64),
        meta=meta,
    )


def environment_candidates(
    env_dir: Path, embedder: Embedder, profiles: dict[str, Profile], workdir: Path
) -> tuple[Environment, SnapshotStore, list[Candidates]]:
    """Every card probe's candidates; the store is returned for replays of the same env."""
    env = load_environment(env_dir, workdir / "repo")
    store = SnapshotStore(env, workdir, embedder, profiles)
    out: list[Candidates] = []
    for probe in sorted(env.probes, key=lambda p: (p.timestamp, p.id)):
        gold = probe.gold
        commit = env.snapshot_for(probe)
        if gold is None or gold.is_task_probe or commit is None:
            continue
        snapshot = store.get(commit)
        snapshot.set_day(probe.timestamp)
        out.append(
            _labelled(
                env.spec.name,
                probe.id,
                snapshot.engine,
                env.spec.identity(probe.agent),
                recall_request(system_input(probe)),
                profiles[probe.profile],
                gold.useful,
                {
                    "split": probe.split.value,
                    "routine": "routine" in probe.tags,
                    "needs_memory": gold.needs_memory,
                    "profile": probe.profile,
                    "turn": probe.turn,
                    "harmful": list(gold.harmful),
                },
            )
        )
    return env, store, out


def demo_candidates(
    embedder: Embedder, profiles: dict[str, Profile], workdir: Path
) -> list[Candidates]:
    """The bilingual set (full profile, the query's project) and the routine lists
    (working profile in the tablekit checkout) over the demo memory."""
    today = dt.date.today()
    memory, index_dir = workdir / "demo-memory", workdir / "demo-index"
    build_demo(memory, today)
    rebuild(memory, index_dir, embedder)
    engine = RecallEngine(memory, index_dir, profiles, embedder, today=lambda: today)
    hermes = Identity(agent="hermes", profile="full", projects=None)
    coder = Identity(agent="claude-code", profile="working", projects=None)
    out = [
        _labelled(
            "demo",
            q.id,
            engine,
            hermes,
            RecallRequest(prompt=q.query, session_id=q.id, turn=1, project=q.project),
            profiles["full"],
            set(q.expected),
            {"split": "bilingual", "routine": False, "needs_memory": True, "profile": "full"},
        )
        for q in load_queries()
    ]
    for name in ROUTINE_LISTS:
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(x for x in lines if x.strip() and not x.startswith("#")):
            out.append(
                _labelled(
                    "demo",
                    f"{name}:{n}",
                    engine,
                    coder,
                    RecallRequest(prompt=line, session_id=f"r{n}", turn=1, cwd=ROUTINE_CWD),
                    profiles["working"],
                    set(),
                    {"split": "routine", "routine": True, "needs_memory": False},
                )
            )
    return out


def locomo_candidates(
    files: list[Path], embedder: Embedder, k: int = CANDIDATES
) -> list[Candidates]:
    """Each question's top ``k`` turns of its own conversation (hybrid search, as recall
    searches), evidence turns positive; ``meta['conversation']`` names the file."""
    scope = Prefilter(clauses=[ScopeClause(projects=[GLOBAL])])
    out: list[Candidates] = []
    for path in files:
        conversation = load_conversation(path)
        with tempfile.TemporaryDirectory(prefix="locomo-fit-") as tmp:
            root, index_dir = Path(tmp) / "memory", Path(tmp) / "index"
            write_memory(root, conversation)
            rebuild(root, index_dir, embedder)
            index = Index.open(index_dir, embedder)
            for n, question in enumerate(conversation.questions):
                hits = index.search(question.question, scope, k=k)
                prompt = read_prompt(question.question, index.parts, None)
                wanted = {card_id(e) for e in question.evidence}
                ids = [h.item_id for h in hits]
                out.append(
                    Candidates(
                        group="locomo",
                        key=f"{conversation.name}:{n}",
                        ids=ids,
                        x=features(prompt, hits, Context()),
                        y=np.array([i in wanted for i in ids], dtype=np.float64),
                        meta={
                            "conversation": conversation.name,
                            "wanted": len(wanted),
                            "needs_memory": True,
                        },
                    )
                )
    return out
