"""Judge: promote, merge, supersede or reject each candidate against its neighbours.

The LLM judges all candidates of a run in one batched call; the rules judge works one by
one. Either way the same guard runs last: a merge or supersede must name a real
neighbour, and a supersede needs a newer, stronger, verifiable source (the user's own
words, or a higher confidence) or it is turned into a rejection with that reason.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from flows import llm, rules
from flows.facts import Action, Candidate, Decision, Neighbour
from memory_repo.settings import Settings


class Judged(BaseModel):
    index: int
    action: Action
    target: str | None = None
    reason: str


class JudgedList(BaseModel):
    decisions: list[Judged] = Field(default_factory=list)


def judge(
    candidates: list[Candidate], neighbours: list[list[Neighbour]], settings: Settings
) -> list[Decision]:
    if not candidates:
        return []
    if llm.enabled(settings):
        raw = _ask(candidates, neighbours, settings)
    else:
        raw = [rules.judge(c, n) for c, n in zip(candidates, neighbours, strict=True)]
    return [guard(c, d, n) for c, d, n in zip(candidates, raw, neighbours, strict=True)]


def _ask(
    candidates: list[Candidate], neighbours: list[list[Neighbour]], settings: Settings
) -> list[Decision]:
    blocks = []
    for i, (c, near) in enumerate(zip(candidates, neighbours, strict=True)):
        lines = [
            f"## candidate {i}",
            f"statement: {c.fact.statement}",
            f"type: {c.fact.type}",
            f"subject: {c.fact.subject or '(not given)'}",
            f"quote: {c.fact.quote}",
            f"user words: {'yes' if c.by_user else 'no'}",
            f"session date: {c.at.date() if c.at else 'unknown'}",
            f"confidence: {c.fact.confidence}",
            "existing cards:",
        ]
        lines += [
            f"- {n.id} ({n.type}, created {n.created}, confidence {n.confidence}): {n.l0}"
            for n in near
        ] or ["- (none)"]
        blocks.append("\n".join(lines))
    answer = llm.ask(settings, "judge", "\n\n".join(blocks), JudgedList)
    by_index = {j.index: j for j in answer.decisions}
    return [
        Decision(action=by_index[i].action, target=by_index[i].target, reason=by_index[i].reason)
        if i in by_index
        else Decision(action="reject", reason="the judge gave no decision")
        for i in range(len(candidates))
    ]


def guard(candidate: Candidate, decision: Decision, neighbours: list[Neighbour]) -> Decision:
    if decision.action not in ("merge", "supersede"):
        return decision
    target = next((n for n in neighbours if n.id == decision.target), None)
    if target is None:
        return Decision(
            action="reject", reason=f"{decision.action} names {decision.target!r}, not a neighbour"
        )
    if decision.action == "merge":
        return decision
    newer = candidate.at is None or target.created is None or candidate.at.date() >= target.created
    stronger = candidate.by_user or candidate.fact.confidence > target.confidence
    if newer and stronger:
        return decision
    return Decision(
        action="reject",
        reason=f"supersede of {target.id} without a newer, stronger source ({decision.reason})",
    )
