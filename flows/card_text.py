"""Card text an agent can use: the L0 statement and the readable id, for both providers.

``clean_statement`` turns what a person said (or what a model returned, quote or filler
included) into one self-contained statement of the lasting fact, in the same language:
no cue or filler lead ("Remember,", "Going forward,", 以后, 记住), no trailing cue
("from now on", "always", 记住), no first person where a plain rewrite removes it
("I prefer X" -> "Prefer X", "回答我的时候" -> "回答时"). It never translates and never
adds words, so the statement stays checkable against its quote.

``card_id`` is the type, up to five content words of the statement (Chinese through
pinyin, pypinyin) and a short hash of statement and session: readable and deterministic.
"""

from __future__ import annotations

import hashlib
import re

from pypinyin import lazy_pinyin

from memory_repo.index.tokenize import is_cjk, tokens

_I = re.IGNORECASE
_LEAD = re.compile(
    r"^\s*(ok(ay)?|also|and|so|btw|by the way|fyi|note|actually|remember( that|:|,)?|"
    r"always remember( that)?|please remember( that)?|going forward|from now on|in future|"
    r"for future reference|just so you know|keep in mind( that)?)\b[\s,:;，：-]*|"
    r"^\s*(好的|另外|还有|顺便说一下|顺便|注意|以后记住|记住|记得|以后|今后|从现在起|从今以后)"
    r"[\s,，:：]*",
    _I,
)
_TRAIL = re.compile(
    r"[\s,，;；]*(from now on|going forward|always|please|thanks|记住|记得|谢谢)\s*([.!。！]?)\s*$",
    _I,
)
_FIRST_PERSON = [
    (re.compile(r"^\s*(i|we)\s+(prefer|want|like|chose|decided|use|always|never)\b", _I), r"\2"),
    (re.compile(r"^\s*(i|we)('d| would) (like|prefer) (you )?(to )?", _I), ""),
    (re.compile(r"\s+unless i ask( for (one|it|them))?", _I), " unless asked"),
    (re.compile(r"\s+(for|to) me\b", _I), ""),
    (re.compile(r"(回答|回复|告诉|给)我的时候"), r"\1时"),
    (re.compile(r"(帮|给)我"), ""),
]
ID_WORDS = 5


def clean_statement(text: str) -> str:
    """One statement of the fact without cue, filler or first person (see module doc)."""
    out = " ".join(text.split())
    for _ in range(3):  # "Remember, going forward, ..." peels one lead at a time
        stripped = _LEAD.sub("", out, count=1)
        if stripped == out:
            break
        out = stripped
    out = _TRAIL.sub(r"\2", out).strip()
    for pattern, repl in _FIRST_PERSON:
        out = pattern.sub(repl, out).strip()
    if not out:
        return " ".join(text.split())
    if out[-1] not in ".!?。！？":
        out += "。" if is_cjk(out[-1]) else "."
    has_han = any(is_cjk(ch) for ch in out)
    return out[:1].upper() + out[1:] if out[:1].isascii() and not has_han else out


def id_words(statement: str) -> list[str]:
    """Content words of a statement as ASCII slugs (Chinese words through pinyin)."""
    out: list[str] = []
    for word in tokens(statement, parts=False):
        slug = "".join(lazy_pinyin(word)) if is_cjk(word) else word
        slug = re.sub(r"[^a-z0-9]+", "", slug.lower())
        if len(slug) > 1 and slug not in out:
            out.append(slug)
    return out


def card_id(card_type: str, statement: str, salt: str) -> str:
    digest = hashlib.sha256(f"{statement}\n{salt}".encode()).hexdigest()[:6]
    return "-".join([card_type, *id_words(statement)[:ID_WORDS], digest])
