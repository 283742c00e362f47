"""Whether a candidate is injected: its evidence against the profile's bar.

One rule for the service, the inspector's dry run and the evaluation, in the profile's
``gate.mode`` (``profiles.model.GateMode``):

- ``score`` (the shipped profiles): the evidence score (``evidence.score``), candidates
  in retrieval order; with ``min_l0_overlap`` the item's L0 line must also share a word
  with the prompt (the working profile's headline rule);
- ``relevance``: the relevance model's probability (``relevance.py``), candidates
  ordered by it, so the item cap keeps the most relevant cards.

In both modes the bar is ``gate.threshold`` on a turn a trigger opened, and the higher
``gate.new_subject`` on a later turn that only the ``new_subject`` trigger lets search; a
memory cue lowers it by ``cue_relief`` (the person asked for memory); an item of another
project than the one the prompt is about raises it by ``other_project_margin``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from memory_repo.index.hits import Hit
from memory_repo.models import GLOBAL
from profiles.model import GateMode, Profile, Trigger
from recall_api.evidence import Prompt, l0_overlap, score
from recall_api.relevance import Context, RelevanceModel, judge


@dataclass(frozen=True)
class Judged:
    """One candidate as the gate saw it: its score (a relevance in mode ``relevance``)
    against its bar, and whether its headline is on topic (mode ``score`` only)."""

    hit: Hit
    score: float
    bar: float
    headline: bool = True

    @property
    def passed(self) -> bool:
        return self.score >= self.bar and self.headline


def bar(profile: Profile, hit: Hit, *, cued: bool, project: str | None, trigger: str) -> float:
    """What this hit must reach on a turn opened by ``trigger``."""
    gate = profile.gate
    value = gate.new_subject if trigger == Trigger.new_subject else gate.threshold
    if cued:
        value -= gate.cue_relief
    if project is not None and hit.project not in (project, GLOBAL):
        value += gate.other_project_margin
    return value


def decide(
    prompt: Prompt,
    hits: list[Hit],
    profile: Profile,
    model: RelevanceModel,
    *,
    cued: bool,
    project: str | None,
    trigger: str,
) -> Iterator[Judged]:
    """The hits judged in the order assembly takes them (it takes those that passed).

    Lazy in mode ``score``: assembly stops pulling at the profile's item cap, so the hits
    after it are never segmented (most of the gate's cost). Mode ``relevance`` must see
    every candidate to order them, so it judges all before yielding the first.
    """

    def need(hit: Hit) -> float:
        return bar(profile, hit, cued=cued, project=project, trigger=trigger)

    if profile.gate.mode == GateMode.relevance:
        ranked = judge(prompt, hits, Context(cued=cued, project=project), model)
        yield from (Judged(hit, p, need(hit)) for hit, p in ranked)
        return
    least = profile.gate.min_l0_overlap
    for hit in hits:
        on_topic = not least or l0_overlap(prompt, hit) >= least
        yield Judged(hit, score(prompt, hit), need(hit), headline=on_topic)
