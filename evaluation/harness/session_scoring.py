"""Turns scored in the context of their session: what the agent already held.

An agent that keeps its injections (``Profile.kept_by``: Claude Code, Codex, Hermes, Pi)
has, on every turn, each item given on an earlier turn of the same session, in the text
it was given (docs/read-path.md, "Session-aware dose"). So a system that injects such an
item again in that same text gives the agent nothing new: the copy is a *repeat*, scored
neutral. A memory need is met when a useful item is injected or held. An item given in
another text (the card was edited, or rendered at another level) is new.

The evaluation's probes are turns sampled from sessions, with no compaction or clear
between them, so nothing is reset; an item given on a turn that is not a probe is not
known, which makes the held set smaller than an agent's (never larger).

Held items are labelled by ``label_held`` (the gold labels, ``judges.gold_labels``); the
LLM judge sees only what was injected, so under it a held item counts for nothing.

For an agent that does not keep injections nothing is held: every metric equals its
per-turn counterpart (``evaluation/harness/metrics.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from evaluation.harness.judges import Label, Verdict
from evaluation.harness.metrics import TurnRecord, turn_record
from evaluation.harness.probes import Probe
from evaluation.harness.systems import Injection

Keeps = Callable[[Probe], bool]
LabelHeld = Callable[[Probe, list[str]], dict[str, Label]]


def score_turns(
    system: str,
    probes: Iterable[Probe],
    answers: dict[str, Injection],
    verdicts: dict[str, Verdict],
    keeps: Keeps | None = None,
    label_held: LabelHeld | None = None,
) -> list[TurnRecord]:
    """One record per probe, walked in time order per session (the order
    ``run.answer_all`` answered them), each knowing what its agent held before it.

    ``keeps(probe)``: whether the probe's agent keeps injections (None: no agent does,
    the per-turn scoring); ``label_held(probe, ids)``: the held items' labels on this
    turn (None: unlabelled). The records come back in time order.
    """
    held: dict[str, dict[str, str]] = {}  # session -> item id -> text given
    counted: dict[str, set[str]] = {}  # session -> useful items counted already
    out: list[TurnRecord] = []
    for probe in sorted(probes, key=lambda p: (p.timestamp, p.id)):
        injection = answers[probe.id]
        first = probe.session_id not in counted
        mine = held.setdefault(probe.session_id, {})
        seen = counted.setdefault(probe.session_id, set())
        verdict = verdicts[probe.id]
        if label_held is not None and mine:
            labels = {**label_held(probe, list(mine)), **verdict.labels}
            verdict = verdict.model_copy(update={"labels": labels})
        record = turn_record(system, probe, injection, verdict, held=list(mine))
        record.first_turn = first
        repeats = [i for i in injection.items if mine.get(i.id) == i.text]
        record.repeats = [i.id for i in repeats]
        record.repeat_bytes = sum(i.bytes for i in repeats)
        useful = record.useful_ids
        record.distinct_useful = len(useful - seen)
        seen |= useful
        if keeps is not None and keeps(probe):
            mine.update({i.id: i.text for i in injection.items})
        out.append(record)
    return out
