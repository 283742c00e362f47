"""Distil: atomic facts from a digest, through the LLM when configured, else the rules."""

from __future__ import annotations

from flows import llm, rules
from flows.digest import Digest
from flows.facts import Fact, FactList
from memory_repo.models import GLOBAL, Registry
from memory_repo.settings import Settings


def distill(digest: Digest, settings: Settings, registry: Registry) -> list[Fact]:
    if not llm.enabled(settings):
        return rules.distill(digest)
    header = f"project ids: {', '.join(sorted(registry.ids)) or '(none)'}\n"
    answer = llm.ask(settings, "distill", header + digest.render(), FactList)
    known = registry.ids | {GLOBAL}
    return [
        f if f.project in known else f.model_copy(update={"project": digest.project})
        for f in answer.facts
    ]
