"""One tokeniser for BM25, the gate's lexical support, and the write path's similarity.

Chinese is segmented with jieba (its dictionary ships in the wheel); identifiers keep
their whole form and also yield their parts (``parse_table`` -> ``parse_table``, ``parse``,
``table``); numbers lose thousands separators (``1,200`` -> ``1200``); full-width forms
are folded by NFKC. The same function runs at index and query time, so the two agree.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

import jieba

jieba.setLogLevel(logging.WARNING)

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_PIECE = re.compile(rf"[{_CJK}]+|[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9]")
_NUMBER_SEP = re.compile(r"(?<=\d),(?=\d{3}\b)")
_SUBWORD = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "she",
        "they",
        "them",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "not",
        "no",
        "so",
        "than",
        "too",
        "very",
        "just",
        "about",
        "into",
        "over",
        "under",
        "up",
        "down",
        "out",
        "what",
        "which",
        "who",
        "whom",
        "how",
        "why",
        "when",
        "where",
        "there",
        "here",
        "all",
        "any",
        "each",
        "please",
        "let",
        "lets",
        "get",
        "got",
        "make",
        "made",
        "use",
        "using",
        "used",
        "also",
        "again",
        "still",
        "some",
        "more",
        "most",
        "other",
        "的",
        "了",
        "是",
        "在",
        "和",
        "与",
        "或",
        "也",
        "就",
        "都",
        "而",
        "及",
        "着",
        "把",
        "被",
        "让",
        "给",
        "我",
        "你",
        "他",
        "她",
        "它",
        "我们",
        "你们",
        "他们",
        "这",
        "那",
        "这个",
        "那个",
        "一个",
        "吗",
        "呢",
        "吧",
        "啊",
        "呀",
        "么",
        "请",
        "一下",
        "什么",
        "怎么",
        "如何",
        "为什么",
        "哪",
        "哪里",
        "还",
        "又",
        "很",
        "再",
    ]
)


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return _NUMBER_SEP.sub("", text)


@lru_cache(maxsize=65536)
def _cjk_words(run: str) -> tuple[str, ...]:
    return tuple(w for w in jieba.cut_for_search(run) if w.strip())


def tokens(text: str, *, keep_stopwords: bool = False, parts: bool = True) -> list[str]:
    """Lower-cased terms in reading order; an identifier contributes itself and, with
    ``parts``, its pieces (for recall; overlap counts want each identifier once)."""
    out: list[str] = []
    for match in _PIECE.finditer(normalise(text)):
        piece = match.group(0)
        if "\u3400" <= piece[0] <= "\ufaff":
            out.extend(_cjk_words(piece))
            continue
        whole = piece.lower().strip(".-")
        out.append(whole)
        pieces = [p.lower() for p in _SUBWORD.findall(_CAMEL.sub(" ", piece))]
        if parts and len(pieces) > 1:
            out.extend(pieces)
    if keep_stopwords:
        return out
    return [t for t in out if t not in STOPWORDS]


def token_string(text: str) -> str:
    """Tokens joined by spaces: what a whitespace-tokenised full-text index stores."""
    return " ".join(tokens(text))


def content_words(text: str, *, parts: bool = True) -> set[str]:
    """Distinct non-stopword terms, for lexical-overlap checks (gate, judge)."""
    return {t for t in tokens(text, parts=parts) if len(t) > 1 or "\u3400" <= t <= "\ufaff"}
