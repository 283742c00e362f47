"""Judges turn (probe, injection) into a verdict: did the turn need memory, and what was
each injected item worth? The gold judge reads the labels stored with the probe.

Labels: ``necessary`` and ``helpful`` items are useful; ``harmful`` items would mislead
(a superseded preference, another project's fact); anything else is ``neutral``. Injected
tasks are named ``task:<key>`` (``evaluation.harness.task_feed``), and the gold's
``necessary_tasks`` / ``harmful_tasks`` keys label them the same way.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from evaluation.harness.probes import Probe
from evaluation.harness.systems import Injection


class Label(StrEnum):
    necessary = "necessary"
    helpful = "helpful"
    neutral = "neutral"
    harmful = "harmful"


USEFUL = frozenset({Label.necessary, Label.helpful})


class Verdict(BaseModel):
    needs_memory: bool
    labels: dict[str, Label] = Field(default_factory=dict)


def gold_verdict(probe: Probe, injection: Injection) -> Verdict:
    if probe.gold is None:
        raise ValueError(f"probe {probe.id} has no gold labels; use --judge llm")
    return Verdict(needs_memory=probe.gold.needs_memory, labels=gold_labels(probe, injection.ids))


def gold_labels(probe: Probe, ids: list[str]) -> dict[str, Label]:
    """Each of ``ids`` labelled by the probe's gold (one it does not name is neutral)."""
    if probe.gold is None:
        raise ValueError(f"probe {probe.id} has no gold labels; use --judge llm")
    gold = probe.gold
    harmful = {*gold.harmful, *gold.task_names(gold.harmful_tasks or [])}
    necessary = {*gold.necessary, *gold.task_names(gold.necessary_tasks or [])}
    labels: dict[str, Label] = {}
    for item_id in ids:
        if item_id in harmful:
            labels[item_id] = Label.harmful
        elif item_id in necessary:
            labels[item_id] = Label.necessary
        elif item_id in gold.helpful:
            labels[item_id] = Label.helpful
        else:
            labels[item_id] = Label.neutral
    return labels
