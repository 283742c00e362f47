"""LoCoMo retrieval benchmark: evidence recall@k of hybrid, dense and BM25 retrieval.

Each dialog turn becomes a real card in a temporary memory repository, indexed by the
same ``rebuild`` and queried by the same ``Index.search`` the product uses, so the
numbers measure the shipped code path and its default fusion settings.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from memory_repo.cards import render_card
from memory_repo.index.build import rebuild
from memory_repo.index.embedders import Embedder
from memory_repo.index.query import Fusion, Index, Mode
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.models import GLOBAL, Card, CardType

MODES: tuple[Mode, ...] = ("hybrid", "dense", "bm25")
KS = (5, 10)
_DIA_ID = re.compile(r"D\d+:\d+")
_CREATED = dt.date(2023, 1, 1)


class Question(BaseModel):
    question: str
    evidence: list[str]
    category: int


class Conversation(BaseModel):
    name: str
    turns: dict[str, str]
    questions: list[Question]


class LocomoResult(BaseModel):
    questions: int
    systems: dict[str, dict[str, float]]


def load_conversation(path: Path) -> Conversation:
    """Turns as "{speaker}: {text} [image: caption]"; questions of categories 1-4 with
    evidence (category 5 is adversarial: its evidence is not what answers it)."""
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    turns: dict[str, str] = {}
    for key, value in data.items():
        if not re.fullmatch(r"session_\d+", key):
            continue
        for turn in value:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [image: {turn['blip_caption']}]"
            turns[turn["dia_id"]] = text
    questions = []
    for qa in data.get("qa", []):
        evidence = evidence_ids(qa.get("evidence") or [])
        if qa.get("category") in (1, 2, 3, 4) and evidence:
            questions.append(
                Question(question=qa["question"], evidence=evidence, category=qa["category"])
            )
    return Conversation(name=Path(path).stem, turns=turns, questions=questions)


def evidence_ids(raw: list[str]) -> list[str]:
    """Evidence entries are sometimes several ids in one string ("D8:6; D9:17")."""
    return list(dict.fromkeys(m for entry in raw for m in _DIA_ID.findall(str(entry))))


def card_id(dia_id: str) -> str:
    return dia_id.replace(":", "-")


def write_memory(root: Path, conversation: Conversation) -> None:
    """One global card per turn; the turn is the card's L0 so it is its whole document."""
    cards = root / "global" / "cards"
    cards.mkdir(parents=True, exist_ok=True)
    for dia_id, text in conversation.turns.items():
        card = Card(id=card_id(dia_id), type=CardType.fact, conclusion=text, created=_CREATED)
        (cards / f"{card.id}.md").write_text(render_card(card), encoding="utf-8")


def evaluate_conversation(
    conversation: Conversation, embedder: Embedder, fusion: Fusion | None = None
) -> dict[str, list[dict[int, float]]]:
    """Per mode, per question, recall at each k in ``KS``."""
    scope = Prefilter(clauses=[ScopeClause(projects=[GLOBAL])])
    out: dict[str, list[dict[int, float]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        root, index_dir = Path(tmp) / "memory", Path(tmp) / "index"
        write_memory(root, conversation)
        rebuild(root, index_dir, embedder)
        index = Index.open(index_dir, embedder, fusion)
        for question in conversation.questions:
            wanted = {card_id(e) for e in question.evidence}
            for mode in MODES:
                ranked = [h.item_id for h in index.search(question.question, scope, max(KS), mode)]
                out[mode].append({k: len(wanted & set(ranked[:k])) / len(wanted) for k in KS})
    return out


def evaluate(
    files: list[Path],
    embedder: Embedder,
    fusion: Fusion | None = None,
    progress: Callable[[str], None] | None = None,
) -> LocomoResult:
    """Recall@k averaged over every question of every file (each searched in its own
    conversation only)."""
    per_mode: dict[str, list[dict[int, float]]] = {mode: [] for mode in MODES}
    for path in files:
        conversation = load_conversation(path)
        if progress:
            progress(conversation.name)
        for mode, recalls in evaluate_conversation(conversation, embedder, fusion).items():
            per_mode[mode].extend(recalls)
    count = len(per_mode[MODES[0]])
    systems = {
        mode: {
            f"recall@{k}": round(sum(r[k] for r in recalls) / count, 4) if count else 0.0
            for k in KS
        }
        for mode, recalls in per_mode.items()
    }
    return LocomoResult(questions=count, systems=systems)
