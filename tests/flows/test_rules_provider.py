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
        ("周报一律用中文写。", CardType.convention),
        ("Use snake_case for file names instead of camelCase.", CardType.convention),
    ]
    assert facts[1].quote == "以后周报一律用中文写。"
    kept, dropped = verify(facts, digest)  # verbatim by construction
    assert len(kept) == 3 and dropped == []
    assert distill(_digest("Always use tabs.", role="assistant")) == []


def test_a_retracted_statement_is_dropped() -> None:
    digest = _digest(
        "Always use 4-space indentation in YAML files.",
        "Actually forget that, keep whatever the file already uses.",
        "以后日志都用英文写。",
        "算了，刚才说的日志那条不用记。",
        "Never force-push the release branch.",
    )
    assert [f.quote for f in distill(digest)] == ["Never force-push the release branch."]


def test_a_turn_holding_a_secret_yields_only_the_secret_sentence() -> None:
    key = "Always use the key sk-proj-abcdefghijklmnopqrstuv."
    digest = _digest(f"{key}\nNever paste it anywhere else.")
    assert [f.quote for f in distill(digest)] == [key]


def test_fact_shapes_naming_the_project_need_no_cue_and_types_follow_content() -> None:
    digest = _digest(
        "We chose LanceDB over Chroma for atlas because it stores plain files.",
        "The atlas reranker raised recall@10 from 0.61 to 0.74.",
        "The dip in the atlas loss curve was an artifact of the warmup restart.",
        "The atlas raw data lives in /data/atlas/raw and is read-only.",
        "Branch names in atlas follow the pattern ada/<issue>-<slug>.",
        "atlas 选择用 DuckDB 而不是 SQLite，因为要跑分析查询。",
        "The reranker raised recall@10 from 0.61 to 0.74.",  # names no project
        "SQLite in WAL mode lets readers run concurrently with one writer.",
    )
    digest.project = "atlas"
    assert [f.type for f in distill(digest)] == [
        CardType.decision,
        CardType.result,
        CardType.result,
        CardType.fact,
        CardType.convention,
        CardType.decision,
    ]


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


def test_judge_decides_by_subject_across_wording() -> None:
    commits = _neighbour(
        "commits", "Commit messages start with an imperative verb and carry no type prefix."
    )
    friday = _neighbour("friday", "Never run database migrations on Friday afternoons.")
    weekly = _neighbour("weekly", "周报用中文写，技术名词保留英文。")
    fix_quote = "Commit messages use Conventional Commits prefixes like feat: from now on."
    fix = judge(
        _candidate("Commit messages use Conventional Commits prefixes like feat:.").model_copy(
            update={
                "fact": Fact(
                    statement="Commit messages use Conventional Commits prefixes like feat:.",
                    type=CardType.convention,
                    confidence=0.9,
                    quote=fix_quote,
                )
            }
        ),
        [friday, commits],
    )
    assert (fix.action, fix.target) == ("supersede", "commits")
    same = judge(_candidate("Don't do migrations on a Friday afternoon, it ends badly."), [friday])
    assert (same.action, same.target) == ("merge", "friday")
    zh = judge(_candidate("周报还是中文写，技术词用英文就行。"), [friday, weekly])
    assert (zh.action, zh.target) == ("merge", "weekly")
    docker = _neighbour("docker", "Docker images are tagged with the git short sha.")
    semver = judge(
        _candidate("Tag Docker images with the semantic version, not the commit sha.", True),
        [docker],
    )
    assert (semver.action, semver.target) == ("supersede", "docker")
    other = judge(_candidate("Commit messages are written in English."), [commits, friday])
    assert other.action == "promote"


def test_judge_never_merges_a_statement_into_the_card_it_contradicts() -> None:
    """An old "in amber" met the live "teal (not amber any more)" card: it is no evidence
    for teal, and without a correction cue it does not overturn it either."""
    teal = _neighbour("teal", "Mark unverified entries in teal (not amber any more).")
    old = judge(_candidate("Always mark unverified entries in amber."), [teal])
    assert old.action == "reject" and "contradicts teal" in old.reason
    again = judge(_candidate("Mark unverified entries in teal, not amber."), [teal])
    assert (again.action, again.target) == ("merge", "teal")


def test_guard_needs_a_real_neighbour_and_a_stronger_source() -> None:
    amber = _neighbour("amber", "Always mark unverified entries in amber.", confidence=0.95)
    wants = Decision(action="supersede", target="amber", reason="newer")
    assert guard(_candidate("Teal.", by_user=True), wants, [amber]).action == "supersede"
    weak = guard(_candidate("Teal.", by_user=False, confidence=0.6), wants, [amber])
    assert weak.action == "reject" and "stronger" in weak.reason
    ghost = guard(_candidate("Teal."), Decision(action="merge", target="nope", reason="x"), [amber])
    assert ghost.action == "reject"
