"""The offline ``rules`` provider: distil and judge with no model at all.

It extracts only what the user said explicitly (a preference, convention, pitfall or
correction carrying a cue word, in English or Chinese) and quotes the user's sentence as
is, so its quotes are verbatim by construction. It judges by word overlap with the
neighbours: a near-duplicate is merged, the same subject with a correction cue supersedes.
"""

from __future__ import annotations

import re

from flows.card_text import clean_statement
from flows.digest import Digest
from flows.facts import Candidate, Decision, Fact, Neighbour
from memory_repo.attribution import mentions
from memory_repo.index.tokenize import content_words, tokens
from memory_repo.models import GLOBAL, CardType
from memory_repo.secrets import has_secret
from memory_repo.text import sentences

_I = re.IGNORECASE
CUE = re.compile(
    r"\b(always|never|from now on|going forward|by default|every time|whenever|instead|"
    r"prefer|rather than|don'?t|do not|avoid|make sure|remember to|no longer|stop using|"
    r"switch to)\b|"
    r"一律|以后|不要|别再|换成|改成|总是|永远|每次|默认|记住|统一|优先|不再|改用|务必|习惯|"
    r"(?<!是)还是(?!.*[吗呢?？])",
    _I,
)
CORRECTION = re.compile(
    r"\b(instead|rather than|no longer|not .{1,30} anymore|switch to|change (it )?to|"
    r"actually)\b|, not (the |a )?\w|换成|改成|不再|而不是|改用|改为",
    _I,
)
_NEGATION = re.compile(
    r"\b(never|don'?t|do not|avoid|no longer|stop)\b|不要|别再|别|避免|小心|不再|禁止", _I
)
_TROUBLE = re.compile(
    r"\b(error|fail|fails|break|breaks|broke|crash|crashes|bug|hang|hangs|corrupt|badly|slow)|"
    r"出错|报错|失败|崩溃|导致|原因是|低于|卡住",
    _I,
)
_CONVENTION = re.compile(
    r"\b(naming|names?|format|commit|branch|convention|style|indent|prefix|suffix|layout|"
    r"palette|pattern|template)|命名|格式|规范|风格|提交|缩进|统一|一律",
    _I,
)
_HABIT = re.compile(
    r"\b(every (morning|evening|day|week)|each (morning|week)|weekly|daily)\b|每天|每周|每晚", _I
)
# Fact shapes kept without a cue word when the sentence names the session's project.
_DECISION = re.compile(
    r"\b(chose|choose|decided|went with|picked|settled on|opted for)\b"
    r".*\b(because|since|so that)\b|"
    r"(选择|决定|选用|采用|选了).*(因为|由于|为了)",
    _I,
)
_RESULT = re.compile(
    r"\bfrom\s+[\d.]+%?\s+to\s+[\d.]+|"
    r"\b(raised|improved|reduced|dropped|increased|decreased|cut|lifted)\b.{0,40}\d|"
    r"从\s*[\d.]+%?\s*(降|升|提|增|减|涨)?(低|高|少|加|升)?到了?\s*[\d.]+|"
    r"(提升|降低|提高)了?\s*[\d.]+",
    _I,
)
_CAUSE = re.compile(
    r"\b(was|is|were|are) an artifact of\b|\bwas caused by\b|是由.{1,20}(引起|造成)的", _I
)
_LOCATION = re.compile(
    r"\b(lives?|is stored|are stored|is kept|are kept|sits?)\s+(in|at|under)\s+~?/[\w.-]+|"
    r"(放在|存放在|存在|位于)\s*~?/[\w.-]+",
    _I,
)
_NAMING = re.compile(
    r"\bnames?\b.{0,40}\b(follow|pattern|format)\b|\b(palette|naming convention)\b|"
    r"\b(all|every)\b.{0,30}\b(are|is) (stored|kept|written|named|formatted) (as|in)\b|"
    r"(命名|名字|名称|实验名).{0,10}(统一|用|按|格式)",
    _I,
)
_SHAPES = (_DECISION, _RESULT, _CAUSE, _LOCATION, _NAMING)
# "Actually forget that", "算了": the user takes back what they just said.
RETRACT = re.compile(
    r"\b(forget (that|it|what i said)|scratch that|never mind|ignore (that|what i just said)|"
    r"don'?t (remember|record|save) that)\b|^\s*算了|算了[，,]|不用记|别记|当我没说|刚才那条不算",
    _I,
)
_QUESTION = re.compile(r"[?？]\s*$|^\s*(can|could|would|will|do|does|is|are) you\b", _I)
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
    """Facts from the user's words: a sentence with a cue word, or one that names the
    session's project in a clear fact shape (a decision with its reason, a result with
    numbers, "X was an artifact of Y", a data location, a naming convention).

    A retraction ("actually forget that", "算了") drops the fact said just before it. In a
    turn that holds a secret only the sentences holding it are kept, so the pre-screen
    rejects them visibly; the turn's other sentences are about the secret ("never paste
    it anywhere else").
    """
    facts: list[Fact] = []
    for turn in digest.turns:
        if turn.role != "user":
            continue
        secret_turn = has_secret(turn.text)
        for line in turn.text.splitlines():
            for sentence in sentences(line):
                if secret_turn and not has_secret(sentence):
                    continue
                if RETRACT.search(sentence):
                    if facts:
                        facts.pop()
                    continue
                if _QUESTION.search(sentence) or not _worth(sentence, digest):
                    continue
                facts.append(
                    Fact(
                        statement=clean_statement(sentence),
                        type=type_of(sentence),
                        project=digest.project,
                        confidence=0.9,
                        quote=sentence,
                    )
                )
    return facts


def _worth(sentence: str, digest: Digest) -> bool:
    """A cue word, or a clear fact shape naming the session's project (any of its names)."""
    if CUE.search(sentence):
        return True
    names = [n for n in digest.project_names or [digest.project] if n != GLOBAL]
    named = any(mentions(sentence, name) for name in names)
    return named and any(shape.search(sentence) for shape in _SHAPES)


def type_of(sentence: str) -> CardType:
    """The type the content says: a choice with a reason is a decision, "never X, it
    breaks Y" a pitfall, numbers or a cause a result, a shared format a convention, a
    location a fact."""
    if _DECISION.search(sentence):
        return CardType.decision
    if _NEGATION.search(sentence) and _TROUBLE.search(sentence):
        return CardType.pitfall
    if _RESULT.search(sentence) or _CAUSE.search(sentence):
        return CardType.result
    if _CONVENTION.search(sentence) or _NAMING.search(sentence):
        return CardType.convention
    if _LOCATION.search(sentence):
        return CardType.fact
    if _HABIT.search(sentence):
        return CardType.habit
    return CardType.preference


def subject(text: str) -> set[str]:
    """What a statement is about: its content words without the cue words."""
    return {w for w in content_words(text) if w not in CUE_WORDS}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


_CHANGE = re.compile(
    r"\b(from now on|going forward|now|these days)\b|以后|今后|现在|从现在起|改", _I
)
SAME_RULE = 0.6


def stems(text: str) -> list[str]:
    """A statement's content words in order, cue words out, English plurals folded."""
    out: list[str] = []
    for word in tokens(text, parts=False):
        if word in CUE_WORDS or (len(word) < 2 and not word.isalpha()):
            continue
        if word.isascii() and len(word) > 4 and re.search(r"(x|ch|sh|ss)es$", word):
            word = word[:-2]
        elif word.isascii() and len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word not in out:
            out.append(word)
    return out


def _negative(text: str) -> bool:
    return bool(_NEGATION.search(text) or re.search(r"\b(no|not|without)\b|不|没有", text, _I))


def judge(candidate: Candidate, neighbours: list[Neighbour]) -> Decision:
    """Decide by subject, not overlap alone.

    The subject test: a neighbour is about the same thing when the candidate covers most
    of its words (``SAME_RULE``) or both open with the same two content words (the head
    of the statement: "commit messages ..."). Then a correction cue, or a change word
    ("from now on", 以后) with a shared attribute beyond the head and something new, is
    a contrary value: supersede. The same rule with the same polarity and no correction is
    a restatement: merge its evidence. A near-duplicate of the opposite polarity with no
    correction (an old "in amber" against "in teal, not amber any more") is never merged
    into the card it contradicts: it is rejected and the live card stands. Anything else
    is a new subject.
    """
    mine = stems(candidate.fact.statement)
    words = set(mine)
    if not neighbours:
        return Decision(action="promote", reason="no existing card on this subject")
    best: tuple[float, Neighbour] | None = None
    for n in neighbours:
        theirs = stems(n.l0)
        cover = len(words & set(theirs)) / len(theirs) if theirs else 0.0
        same_head = len(mine) >= 2 and set(mine[:2]) == set(theirs[:2])
        new_words = words - set(theirs)
        beyond = (words & set(theirs)) - set(mine[:2])
        quote = candidate.fact.quote
        if (candidate.correction and (cover >= SAME_SUBJECT or same_head) and new_words) or (
            same_head and beyond and new_words and _CHANGE.search(quote)
        ):
            return Decision(
                action="supersede",
                target=n.id,
                reason=f"same subject as {n.id} with a contrary value (cover {cover:.2f})",
            )
        same_polarity = _negative(candidate.fact.statement) == _negative(n.l0)
        if cover >= SAME_RULE and same_polarity and not candidate.correction:
            return Decision(
                action="merge",
                target=n.id,
                reason=f"restates {n.id} (cover {cover:.2f})",
            )
        sim = jaccard(subject(candidate.fact.statement), subject(n.l0))
        if sim >= NEAR_DUPLICATE or (sim >= 0.5 and n.cosine >= 0.9):
            if not same_polarity:  # "in amber" against "in teal (not amber any more)"
                return Decision(
                    action="reject",
                    reason=f"contradicts {n.id} without a correction; the live card stands",
                )
            return Decision(action="merge", target=n.id, reason=f"near-duplicate of {n.id}")
        if best is None or cover > best[0]:
            best = (cover, n)
    return Decision(
        action="promote",
        reason=f"new subject (best cover {best[0]:.2f})" if best else "new subject",
    )
