"""Distil: atomic facts from a digest, through the LLM when configured, else the rules.

Both providers' statements pass ``card_text.clean_statement``: a model that answers
with filler ("Remember, ...") or the raw quote as the conclusion yields the same clean
L0 as the rules provider; a decision or pitfall the model filed as a preference gets the
type its content shows."""

from __future__ import annotations

from flows import llm, rules
from flows.card_text import clean_statement
from flows.digest import Digest
from flows.facts import Fact, FactList
from memory_repo.models import GLOBAL, CardType, Registry
from memory_repo.settings import Settings


def distill(digest: Digest, settings: Settings, registry: Registry) -> list[Fact]:
    if not llm.enabled(settings):
        return rules.distill(digest)
    header = f"project ids: {', '.join(sorted(registry.ids)) or '(none)'}\n"
    answer = llm.ask(settings, "distill", header + digest.render(), FactList)
    known = registry.ids | {GLOBAL}
    return [
        f.model_copy(
            update={
                "statement": clean_statement(f.statement),
                "type": _type(f),
                "project": f.project if f.project in known else digest.project,
            }
        )
        for f in answer.facts
    ]


def _type(fact: Fact) -> CardType:
    """The model's type, unless it filed a choice with a reason or a "never X, it breaks
    Y" under a taste: the content's shape wins there (``rules.type_of``)."""
    shaped = rules.type_of(fact.quote)
    if fact.type in (CardType.preference, CardType.fact) and shaped in (
        CardType.decision,
        CardType.pitfall,
    ):
        return shaped
    return fact.type
