"""BM25 terms: the shared tokeniser's output with English words reduced to their stems.

Stemming lets "painted" find "painting" (its effect on LoCoMo is measured in
docs/index.md). Only plain ASCII words are stemmed: identifiers (``parse_table``),
numbers and Chinese words pass through unchanged. Index and query both go through here.
"""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer

from memory_repo.index.tokenize import tokens

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a plain ASCII word; any other term unchanged."""
    return _STEMMER.stemWord(word) if word.isascii() and word.isalpha() else word


def plural_stem(word: str) -> str:
    """A plain ASCII word without a plural ``s`` ('environments' -> 'environment', 'pdfs' ->
    'pdf'); any other term unchanged. The gate's lexical support (recall_api/gate.py)
    stems this lightly on purpose: Snowball there lets 'merging' support 'merged', and the
    working profile speaks on more routine prompts (measured in docs/read-path.md)."""
    if word.isascii() and len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def bm25_terms(text: str) -> str:
    """Space-joined terms, as stored in the index's ``tokens`` column."""
    return " ".join(stem(t) for t in tokens(text))
