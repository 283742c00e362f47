"""The LLM rubric judge: blind, shuffled, and held to its quotes.

Per probe the judge sees the turn, the previous turn, what the person said next (the
follow-ups, which no system ever saw), the preference corrections known at that moment, and
the distinct injections of all systems as anonymous candidates in a seeded random order;
never a system name or a score. Every label must quote its candidate item or a follow-up;
a label whose quote is not found there is dropped (the item counts as neutral). An item
that states a superseded version of a corrected preference can not be useful: a judge that
calls it useful is overruled to harmful.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter

from pydantic import BaseModel, Field

from evaluation.harness.agreement import cohen_kappa
from evaluation.harness.judges import USEFUL, Label, Verdict, gold_verdict
from evaluation.harness.probes import Probe
from evaluation.harness.systems import Injection
from flows import llm
from memory_repo.layers import l0
from memory_repo.models import Item
from memory_repo.settings import Settings

SYSTEM_PROMPT = """You judge what a memory system injected before an AI agent answered a person.
You see the person's turn, the turn before it, what the person said next (follow-ups), known
preference corrections, and anonymous candidates (A, B, ...) each with numbered items.
Decide whether this turn needed the person's memory at all (needs_memory). Then label every
candidate item: necessary (the agent needed it to do this turn right), helpful, neutral, or
harmful (it would mislead: another project's fact, an outdated or superseded preference).
For every label give `quote`: a short verbatim passage copied from that item or from a
follow-up that justifies the label. Labels without a verbatim quote are discarded."""


class ItemLabel(BaseModel):
    candidate: str = Field(description="candidate letter, e.g. A")
    item: int = Field(ge=1, description="1-based item number within the candidate")
    label: Label
    quote: str


class JudgeAnswer(BaseModel):
    needs_memory: bool
    labels: list[ItemLabel] = Field(default_factory=list)


class Correction(BaseModel):
    old_id: str
    old: str
    new: str


class JudgeStats(BaseModel):
    calls: int = 0
    labels: int = 0
    dropped_unquoted: int = 0
    overruled_old_version: int = 0


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def corrections_at(items: dict[str, Item], probe: Probe) -> list[Correction]:
    """Preferences corrected on or before the probe's day (the newest card supersedes)."""
    day = probe.timestamp.date()
    return [
        Correction(old_id=old, old=l0(items[old]), new=l0(item))
        for item in items.values()
        if item.created <= day
        for old in item.supersedes
        if old in items
    ]


def candidates_for(
    probe: Probe, answers: dict[str, Injection], seed: int
) -> list[tuple[str, Injection]]:
    """Distinct non-empty injections, lettered in a seeded shuffle; which system gave which
    is not kept, so it can not reach the judge."""
    by_key: dict[tuple[str, ...], Injection] = {}
    for injection in answers.values():
        if injection.items:
            by_key.setdefault(tuple(injection.ids), injection)
    keys = sorted(by_key)
    random.Random(f"{seed}:{probe.id}").shuffle(keys)
    return [(chr(ord("A") + i), by_key[key]) for i, key in enumerate(keys)]


def render_request(
    probe: Probe, candidates: list[tuple[str, Injection]], corrections: list[Correction]
) -> str:
    lines = [f"Turn: {probe.prompt}", f"Previous turn: {probe.previous_turn or '(none)'}"]
    lines.append("Follow-ups (what the person said next):")
    lines += [f"  - {f}" for f in probe.follow_ups] or ["  (none)"]
    lines.append("Preference corrections known at this time:")
    lines += [f"  - OLD: {c.old}  ->  NEW: {c.new}" for c in corrections] or ["  (none)"]
    lines.append("Candidates:")
    for letter, injection in candidates:
        lines.append(f"[{letter}]")
        lines += [f"  {n}. {item.text}" for n, item in enumerate(injection.items, 1)]
    if not candidates:
        lines.append("  (every system stayed silent; only decide needs_memory)")
    return "\n".join(lines)


class LLMJudge:
    def __init__(
        self, settings: Settings, items: dict[str, Item], seed: int = 7, model: str | None = None
    ) -> None:
        self.settings = settings
        self.items = items
        self.seed = seed
        self.model = model or settings.llm_model
        self.stats = JudgeStats()
        self.client = llm.client(settings)

    def ask(self, content: str) -> JudgeAnswer:
        self.stats.calls += 1
        return self.client.chat.completions.create(
            model=self.model,
            response_model=JudgeAnswer,
            temperature=0,
            max_retries=self.settings.llm_max_retries,
            messages=[
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": content},
            ],
        )

    def judge_probe(self, probe: Probe, answers: dict[str, Injection]) -> dict[str, Verdict]:
        candidates = candidates_for(probe, answers, self.seed)
        corrections = corrections_at(self.items, probe)
        answer = self.ask(render_request(probe, candidates, corrections))
        by_letter = dict(candidates)
        old_ids = {c.old_id for c in corrections}
        follow = [_fold(f) for f in probe.follow_ups]
        labels: dict[str, Label] = {}
        for mark in answer.labels:
            injection = by_letter.get(mark.candidate.strip().upper())
            if injection is None or mark.item > len(injection.items):
                continue
            self.stats.labels += 1
            item = injection.items[mark.item - 1]
            quote = _fold(mark.quote)
            if not quote or not (quote in _fold(item.text) or any(quote in f for f in follow)):
                self.stats.dropped_unquoted += 1
                continue
            label = mark.label
            if item.id in old_ids and label in USEFUL:
                self.stats.overruled_old_version += 1
                label = Label.harmful
            labels[item.id] = label
        verdicts = {}
        for system, injection in answers.items():
            mine = {i: labels.get(i, Label.neutral) for i in injection.ids}
            verdicts[system] = Verdict(needs_memory=answer.needs_memory, labels=mine)
        return verdicts

    def __call__(
        self, probes: list[Probe], answers: dict[str, dict[str, Injection]]
    ) -> dict[str, dict[str, Verdict]]:
        out: dict[str, dict[str, Verdict]] = {name: {} for name in answers}
        for probe in probes:
            per_probe = self.judge_probe(probe, {n: a[probe.id] for n, a in answers.items()})
            for name, verdict in per_probe.items():
                out[name][probe.id] = verdict
        return out


def sample_ids(probes: list[Probe], share: float = 0.2, seed: int = 11) -> list[str]:
    ids = sorted(p.id for p in probes)
    k = max(1, round(share * len(ids)))
    return sorted(random.Random(seed).sample(ids, k))


def paired_labels(
    a: dict[str, dict[str, Verdict]], b: dict[str, dict[str, Verdict]], ids: list[str]
) -> tuple[list[str], list[str]]:
    """Item labels plus each turn's needs-memory call, paired across two judges."""
    left: list[str] = []
    right: list[str] = []
    for system in sorted(a):
        for pid in ids:
            va, vb = a[system][pid], b[system][pid]
            left.append(f"needs:{va.needs_memory}")
            right.append(f"needs:{vb.needs_memory}")
            for item in sorted(va.labels):
                left.append(va.labels[item].value)
                right.append(vb.labels.get(item, Label.neutral).value)
    return left, right


def agreement(
    first: dict[str, dict[str, Verdict]],
    probes: list[Probe],
    answers: dict[str, dict[str, Injection]],
    second: LLMJudge | None,
    share: float = 0.2,
) -> dict[str, float | int | str]:
    """Kappa on a sampled share of probes: against gold labels when present, and against a
    second model when one is given."""
    ids = sample_ids(probes, share)
    chosen = [p for p in probes if p.id in ids]
    out: dict[str, float | int | str] = {"sampled_probes": len(ids)}
    if all(p.gold is not None for p in chosen):
        gold = {
            name: {p.id: gold_verdict(p, a[p.id]) for p in chosen} for name, a in answers.items()
        }
        left, right = paired_labels(first, gold, ids)
        out["kappa_llm_vs_gold"] = round(cohen_kappa(left, right), 4)
    if second is not None:
        other = second(chosen, answers)
        left, right = paired_labels(first, other, ids)
        out["kappa_llm_vs_second_model"] = round(cohen_kappa(left, right), 4)
        out["second_model"] = second.model
    out["label_mix"] = str(
        dict(
            Counter(
                v.value
                for per in first.values()
                for verdict in per.values()
                for v in verdict.labels.values()
            )
        )
    )
    return out
