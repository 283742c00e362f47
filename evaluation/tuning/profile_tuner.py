"""Replay an agent's logged recalls under candidate profiles and pick the one that serves.

Candidates change one thing of the agent's current profile (its shipped or user profile
refined by its override file): the gate's relevance bar (``gate.threshold``, a
probability on the same scale as the inspector shows: a few steps down, one up), the
later-turn bar ``gate.new_subject`` where that trigger is on, a cue word, a trigger, the
item cap. Each is replayed through ``RecallEngine.recall`` over
the current memory, in log order, with fresh session state, and measured
(``profiles.proposals.Measure``):

    value = misses served + used items still injected - UNUSED_WEIGHT x unused items

The chosen change has the highest value, above the current profile's, and keeps the
injection rate on routine recalls within the profile's ``routine_limit`` (or, when the
current profile is already above it, no higher than now). Ties go to fewer routine
injections, then fewer bytes. It must then keep the evaluation composite
(``profile_check.EnvCheck``); the next best is checked when it does not, up to
``EVAL_CHECKS`` candidates.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from evaluation.tuning.log_signals import AgentSignals
from memory_repo.index.tokenize import content_words
from profiles.model import Profile, Trigger
from profiles.overrides import apply_override, merge
from profiles.proposals import Measure
from recall_api.engine import RecallEngine
from recall_api.models import Identity, RecallRequest

# Four injected items nobody read cost as much as one miss served.
UNUSED_WEIGHT = 0.25
THRESHOLD_STEPS = (-0.15, -0.1, -0.05, 0.05)
# The later-turn bar (relevance on a turn only new_subject opened), for the same agents.
NEW_SUBJECT_STEPS = (-0.1, -0.05, 0.05)
CUE_WORDS = 3  # candidates: the missed prompts' commonest words no routine prompt has
EVAL_CHECKS = 3


@dataclass
class Candidate:
    change: str
    override: dict[str, Any]
    profile: Profile


def candidates(
    base: Profile, current: dict[str, Any] | None, agent: AgentSignals
) -> list[Candidate]:
    """One-step changes of the agent's current profile (``base`` + ``current`` override)."""
    layer = current or {"profile": base.name}
    now = apply_override(base, layer)
    changes: list[tuple[str, dict[str, Any]]] = []
    for step in THRESHOLD_STEPS:
        t = round(now.gate.threshold + step, 2)
        if 0.05 <= t <= 0.95:
            changes.append(
                (f"gate.threshold {now.gate.threshold} -> {t}", {"gate": {"threshold": t}})
            )
    if Trigger.new_subject in now.triggers:
        for step in NEW_SUBJECT_STEPS:
            t = round(now.gate.new_subject + step, 2)
            if 0.05 <= t <= 1.0:
                changes.append(
                    (
                        f"gate.new_subject {now.gate.new_subject} -> {t}",
                        {"gate": {"new_subject": t}},
                    )
                )
    for word in cue_words(agent, now):
        changes.append((f"cue word {word!r} added", {"cues": [*now.cues, word]}))
    for trigger in Trigger:
        if trigger not in now.triggers:
            triggers = [*(t.value for t in now.triggers), trigger.value]
            changes.append((f"trigger {trigger.value} added", {"triggers": triggers}))
    for cap in (now.max_items + 1, now.max_items - 1):
        if 1 <= cap <= 50:
            changes.append((f"max_items {now.max_items} -> {cap}", {"max_items": cap}))
    out = []
    for change, delta in changes:
        override = merge(layer, delta)
        out.append(Candidate(change, override, apply_override(base, override)))
    return out


def cue_words(agent: AgentSignals, profile: Profile) -> list[str]:
    """Words in at least two missed prompts and in no routine one, commonest first."""
    missed: Counter[str] = Counter()
    for miss in agent.misses:
        words: set[str] = set()
        for i in miss.recalls:
            words |= content_words(agent.outcomes[i].entry.prompt or "", parts=False)
        missed.update(words)
    routine: set[str] = set()
    for o in agent.outcomes:
        if o.routine:
            routine |= content_words(o.entry.prompt or "", parts=False)
    have = {c.casefold() for c in profile.cues}
    ranked = sorted(missed.items(), key=lambda kv: (-kv[1], kv[0]))
    return [
        w
        for w, n in ranked
        if n >= 2 and w not in routine and w.casefold() not in have and len(w) > 2
    ][:CUE_WORDS]


def replay(
    engine: RecallEngine, identity: Identity, agent: AgentSignals, profile: Profile
) -> Measure:
    """Every logged recall of ``agent`` again under ``profile``, in order, measured."""
    engine.forget_sessions()
    injected: list[set[str]] = []
    total_bytes = 0
    for o in agent.outcomes:
        e = o.entry
        request = RecallRequest(
            prompt=e.prompt or "",
            session_id=e.session or "replay",
            turn=e.turn or 1,
            cwd=e.cwd,
            project=e.project if e.project_how == "explicit" else None,
        )
        result = engine.recall(identity, request, profile)
        injected.append({i.id for i in result.items})
        total_bytes += result.bytes
    served = sum(any(injected[i] & m.wanted for i in m.recalls) for m in agent.misses)
    kept = sum(bool(o.used and injected[i] & o.used) for i, o in enumerate(agent.outcomes))
    unused = sum(len(injected[i] - o.used - o.wanted) for i, o in enumerate(agent.outcomes))
    routine = [bool(injected[i]) for i, o in enumerate(agent.outcomes) if o.routine]
    return Measure(
        misses_served=served,
        used_kept=kept,
        unused_items=unused,
        routine_injection_rate=round(sum(routine) / len(routine), 4) if routine else 0.0,
        injected_bytes=total_bytes,
        value=round(served + kept - UNUSED_WEIGHT * unused, 4),
    )


def ranked(
    before: Measure, measured: list[tuple[Candidate, Measure]], limit: float
) -> list[tuple[Candidate, Measure]]:
    """The candidates that beat ``before`` within the routine bound, best first."""
    bound = max(limit, before.routine_injection_rate)
    better = [
        (c, m) for c, m in measured if m.value > before.value and m.routine_injection_rate <= bound
    ]
    return sorted(
        better, key=lambda cm: (-cm[1].value, cm[1].routine_injection_rate, cm[1].injected_bytes)
    )


def choose(
    before: Measure,
    measured: list[tuple[Candidate, Measure]],
    limit: float,
    composite: Callable[[Profile], float],
    baseline: float,
) -> tuple[Candidate, Measure] | None:
    """The best candidate whose evaluation composite is not below ``baseline``."""
    for candidate, measure in ranked(before, measured, limit)[:EVAL_CHECKS]:
        score = composite(candidate.profile)
        if score != score or score >= baseline - 1e-9:  # nan: no probes to check on
            checked = measure.model_copy(
                update={"eval_composite": None if score != score else round(score, 4)}
            )
            return candidate, checked
    return None


def render_override(override: dict[str, Any], agent: str) -> str:
    head = (
        f"# Profile override for agent {agent}, written by tune-profiles "
        '(docs/read-path.md, "Profiles that learn").\n'
    )
    return head + yaml.safe_dump(override, allow_unicode=True, sort_keys=False)


def diff(old: str, new: str, path: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return "".join(lines)
