"""The two search legs, each behind one small interface over the rows of one index version.

A leg ranks rows (numbered as the snapshot numbers them) and never sees anything but the
scope mask it is handed: the mask is computed once per query (``Snapshot.mask``) and
shared by both legs, so scope is applied before ranking, whatever the leg. Today
``Snapshot`` is the one implementation of both. Another one (a library's index) must
pass the same property tests, which are the contract:
``tests/index/test_snapshot_properties.py`` (exactly the admitted rows, Okapi BM25
scores, row ranges change nothing, the sign-bit preselection agrees with an exact scan)
and ``tests/index/test_lifecycle_reference.py``. The measured comparison with tantivy is
in docs/index.md ("Search legs: hand-written or a library").
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from memory_repo.index.vectors import Part

Ranked = list[tuple[int, float]]  # (row, score), best first
Runs = list[tuple[int, int]]  # [start, stop) row ranges


@runtime_checkable
class DenseLeg(Protocol):
    def dense(
        self, vector: np.ndarray, mask: np.ndarray, depth: int, part: Part | None = None
    ) -> Ranked:
        """(row, cosine) of the ``depth`` nearest rows where ``mask`` is true, best first;
        every admitted row when there are no more than ``depth``. With ``part``, only
        that embedder part's columns count."""
        ...


@runtime_checkable
class LexicalLeg(Protocol):
    def bm25(
        self, terms: list[str], mask: np.ndarray, depth: int, runs: Runs | None = None
    ) -> Ranked:
        """(row, score) of the ``depth`` best rows where ``mask`` is true and some term
        occurs, best first, ties by row; the score is Okapi BM25 (``BM25Params``) with a
        query term counted once per occurrence. ``runs``, row ranges that hold every
        admitted row, may narrow what is read but never changes the answer."""
        ...
