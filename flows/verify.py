"""Quote verification: a fact survives only if its quote is really in one turn of the session.

Allowed differences are exactly: whitespace (runs collapse, ends trimmed), full/half
width (NFKC) and the kind of quotation mark. Anything else (a paraphrase, a span spliced
from two turns, an invented sentence, a changed case or letter) is rejected.
"""

from __future__ import annotations

import re
import unicodedata

from flows.digest import Digest
from flows.facts import Candidate, Fact
from flows.rules import CORRECTION

_QUOTES = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "«": '"',
        "»": '"',
        "「": '"',
        "」": '"',
        "『": '"',
        "』": '"',
        "〝": '"',
        "〞": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "`": "'",
        "´": "'",
        "‹": "'",
        "›": "'",
    }
)
_SPACE = re.compile(r"\s+")
_CJK = r"\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}]) | (?=[{_CJK}])")
MIN_QUOTE_CHARS = 4


def canonical(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return _CJK_GAP.sub("", _SPACE.sub(" ", text).strip())


def find_quote(quote: str, turns: list[str]) -> int | None:
    """Index of the first turn holding the quote (after canonicalisation), else None."""
    needle = canonical(quote)
    if len(needle) < MIN_QUOTE_CHARS:
        return None
    for i, text in enumerate(turns):
        if needle in canonical(text):
            return i
    return None


def verify(facts: list[Fact], digest: Digest) -> tuple[list[Candidate], list[Fact]]:
    """Candidates whose quote was found, and the facts dropped because it was not."""
    texts = [t.text for t in digest.turns]
    kept: list[Candidate] = []
    dropped: list[Fact] = []
    for fact in facts:
        where = find_quote(fact.quote, texts)
        if where is None:
            dropped.append(fact)
            continue
        turn = digest.turns[where]
        kept.append(
            Candidate(
                fact=fact,
                agent=digest.agent,
                session=digest.session,
                at=turn.at,
                by_user=turn.role == "user",
                correction=bool(CORRECTION.search(fact.quote)),
            )
        )
    return kept, dropped
