"""The offline rules provider: explicit cues in the user's words, judged by word overlap;
and the guard every judge's decisions pass through."""

from __future__ import annotations

import datetime as dt

from flows.digest import Digest, DigestTurn
from flows.facts import Candidate, Decision, Fact, Neighbour
from flows.judge import guard
from flows.rules import distill, judge
from flows.verify import verify
from memory_repo.models import CardType


def _digest(*texts: str, role: str = "user") -> Digest:
    return Digest(
        key="codex:s",
        agent="codex",
        session="s",
        turns=[DigestTurn(n=i, role=role, text=t) for i, t in enumerate(texts)],
    )


def test_only_explicit_cues_in_the_users_words_are_extracted() -> None:
    digest = _digest(
        "Please fix the failing test.\nNever commit generated files; they break the build.",
        "Can you always use tabs?",
        "以后周报一律用中文写。这个函数先放着。",
        "Use snake_case for file names instead of camelCase.",
    )
    facts = distill(digest)
    assert [(f.statement, f.type) for f in facts] == [
        ("Never commit generated files; they break the build.", CardType.pitfall),
        ("以后周报一律用中文写。", CardType.preference),
        ("Use snake_case for file names instead of camelCase.", CardType.convention),
    ]
    kept, dropped = verify(facts, digest)  # verbatim by construction
    assert len(kept) == 3 and dropped == []
    assert distill(_digest("Always use tabs.", role="assistant")) == []


def _candidate(
    statement: str, correction: bool = False, by_user: bool = True, confidence: float = 0.9
) -> Candidate:
    fact = Fact(
        statement=statement, type=CardType.preference, confidence=confidence, quote=statement
    )
    return Candidate(
        fact=fact,
        agent="codex",
        session="s",
        by_user=by_user,
        correction=correction,
        at=dt.datetime(2026, 11, 20, tzinfo=dt.UTC),
    )


def _neighbour(card_id: str, l0: str, confidence: float = 0.9) -> Neighbour:
    return Neighbour(
        id=card_id,
        l0=l0,
        type=CardType.preference,
        project="global",
        created=dt.date(2026, 11, 10),
        confidence=confidence,
    )


def test_judge_merges_near_duplicates_and_supersedes_corrections() -> None:
    amber = _neighbour("amber", "Always mark unverified entries in amber.")
    weekly = _neighbour("weekly", "以后周报一律用中文写。")
    dup = judge(_candidate("Mark unverified entries in amber, always."), [weekly, amber])
    assert (dup.action, dup.target) == ("merge", "amber")
    fix = judge(
        _candidate("Use teal instead of amber for unverified entries.", correction=True),
        [amber, weekly],
    )
    assert (fix.action, fix.target) == ("supersede", "amber")
    zh = judge(_candidate("以后周报改成英文写。", correction=True), [weekly])
    assert (zh.action, zh.target) == ("supersede", "weekly")
    assert judge(_candidate("Always pin exact versions."), [amber, weekly]).action == "promote"


def test_guard_needs_a_real_neighbour_and_a_stronger_source() -> None:
    amber = _neighbour("amber", "Always mark unverified entries in amber.", confidence=0.95)
    wants = Decision(action="supersede", target="amber", reason="newer")
    assert guard(_candidate("Teal.", by_user=True), wants, [amber]).action == "supersede"
    weak = guard(_candidate("Teal.", by_user=False, confidence=0.6), wants, [amber])
    assert weak.action == "reject" and "stronger" in weak.reason
    ghost = guard(_candidate("Teal."), Decision(action="merge", target="nope", reason="x"), [amber])
    assert ghost.action == "reject"
