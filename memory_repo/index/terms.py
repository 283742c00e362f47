"""BM25 terms: the shared tokeniser's output with English words reduced to their stems.

Stemming lets "painted" find "painting" (LoCoMo BM25 recall@10 0.583 -> 0.604, see
docs/index.md). Only plain ASCII words are stemmed: identifiers (``parse_table``),
numbers and Chinese words pass through unchanged. Index and query both go through here.
"""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer

from memory_repo.index.tokenize import tokens

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word) if word.isascii() and word.isalpha() else word


def bm25_terms(text: str) -> str:
    """Space-joined terms, as stored in the index's ``tokens`` column."""
    return " ".join(_stem(t) for t in tokens(text))
