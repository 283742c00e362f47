"""The offline ``rules`` provider: distil and judge with no model at all.

It extracts only what the user said explicitly (a preference, convention, pitfall or
correction carrying a cue word, in English or Chinese) and quotes the user's sentence as
is, so its quotes are verbatim by construction. It judges by word overlap with the
neighbours: a near-duplicate is merged, the same subject with a correction cue supersedes.
"""

from __future__ import annotations

import re

from flows.digest import Digest
from flows.facts import Candidate, Decision, Fact, Neighbour
from memory_repo.index.tokenize import content_words
from memory_repo.models import CardType
from memory_repo.text import sentences

_I = re.IGNORECASE
CUE = re.compile(
    r"\b(always|never|from now on|going forward|by default|every time|whenever|instead|"
    r"prefer|rather than|don'?t|do not|avoid|make sure|remember to|no longer|stop using|"
    r"switch to)\b|"
    r"一律|以后|不要|别再|换成|改成|总是|永远|每次|默认|记住|统一|优先|不再|改用|务必|习惯",
    _I,
)
CORRECTION = re.compile(
    r"\b(instead|rather than|no longer|not .{1,30} anymore|switch to|change (it )?to|"
    r"actually)\b|换成|改成|不再|而不是|改用|改为",
    _I,
)
_PITFALL = re.compile(r"\b(never|don'?t|do not|avoid)\b|不要|别再|避免|小心", _I)
_TROUBLE = re.compile(
    r"\b(error|fail|fails|break|breaks|crash|bug|hang|corrupt)|出错|报错|失败|崩溃", _I
)
_CONVENTION = re.compile(
    r"\b(naming|name|format|commit|branch|convention|style|indent|prefix|suffix|layout)|"
    r"命名|格式|规范|风格|提交|缩进",
    _I,
)
_HABIT = re.compile(
    r"\b(every (morning|evening|day|week)|each (morning|week)|weekly|daily)\b|每天|每周|每晚", _I
)
_QUESTION = re.compile(r"[?？]\s*$|^\s*(can|could|would|will|do|does|is|are) you\b", _I)
_LEAD = re.compile(r"^\s*(ok(ay)?|also|and|so|btw|by the way|好的|另外|还有)[,，:：\s]+", _I)
CUE_WORDS = frozenset(
    {
        "always",
        "never",
        "now",
        "going",
        "forward",
        "default",
        "every",
        "time",
        "whenever",
        "instead",
        "prefer",
        "rather",
        "don't",
        "dont",
        "avoid",
        "make",
        "sure",
        "remember",
        "longer",
        "stop",
        "switch",
        "use",
        "using",
        "please",
        "mark",
        "一律",
        "以后",
        "不要",
        "别再",
        "换成",
        "改成",
        "总是",
        "永远",
        "每次",
        "默认",
        "记住",
        "统一",
        "优先",
        "不再",
        "改用",
        "务必",
        "习惯",
        "用",
    }
)
NEAR_DUPLICATE = 0.75
SAME_SUBJECT = 0.3


def distill(digest: Digest) -> list[Fact]:
    facts: list[Fact] = []
    for turn in digest.turns:
        if turn.role != "user":
            continue
        for line in turn.text.splitlines():
            for sentence in sentences(line):
                if _QUESTION.search(sentence) or not CUE.search(sentence):
                    continue
                statement = _LEAD.sub("", sentence).strip()
                facts.append(
                    Fact(
                        statement=statement[:1].upper() + statement[1:],
                        type=_type_of(sentence),
                        project=digest.project,
                        confidence=0.9,
                        quote=sentence,
                    )
                )
    return facts


def _type_of(sentence: str) -> CardType:
    if _PITFALL.search(sentence) and _TROUBLE.search(sentence):
        return CardType.pitfall
    if _HABIT.search(sentence):
        return CardType.habit
    if _CONVENTION.search(sentence):
        return CardType.convention
    return CardType.preference


def subject(text: str) -> set[str]:
    """What a statement is about: its content words without the cue words."""
    return {w for w in content_words(text) if w not in CUE_WORDS}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def judge(candidate: Candidate, neighbours: list[Neighbour]) -> Decision:
    words = subject(candidate.fact.statement)
    scored = sorted(
        ((jaccard(words, subject(n.l0)), n) for n in neighbours),
        key=lambda pair: (-pair[0], -pair[1].cosine),
    )
    if not scored:
        return Decision(action="promote", reason="no existing card on this subject")
    sim, best = scored[0]
    new_words = words - subject(best.l0)
    if candidate.correction and sim >= SAME_SUBJECT and new_words:
        return Decision(
            action="supersede",
            target=best.id,
            reason=f"same subject as {best.id} (overlap {sim:.2f}) with a correction "
            f"cue in the user's words",
        )
    if sim >= NEAR_DUPLICATE or (sim >= 0.5 and best.cosine >= 0.9):
        return Decision(
            action="merge",
            target=best.id,
            reason=f"near-duplicate of {best.id} (overlap {sim:.2f})",
        )
    return Decision(action="promote", reason=f"new subject (best overlap {sim:.2f})")
