"""Comparing a search leg with a library's on a shared, noisy machine.

Timing is interleaved, in rounds: each round runs every input through every backend
before the next input (the order of backends alternating from round to round), so load
from other processes falls on all of them alike; the summary is each backend's p50 and
p99 per round and their medians. Results are compared as top-k lists of (id, score).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

Ranked = list[tuple[str, float]]


def interleaved(
    runners: dict[str, Callable[[Any], object]], inputs: Sequence[Any], rounds: int
) -> dict[str, Any]:
    """``p50_ms_by_round``, ``p50_ms_median`` and ``p99_ms_median`` per runner name."""
    per_round: dict[str, list[tuple[float, float]]] = {name: [] for name in runners}
    for r in range(rounds):
        order = list(runners) if r % 2 == 0 else list(reversed(runners))
        times: dict[str, list[float]] = {name: [] for name in runners}
        for item in inputs:
            for name in order:
                start = time.perf_counter()
                runners[name](item)
                times[name].append((time.perf_counter() - start) * 1000)
        for name, t in times.items():
            t.sort()
            per_round[name].append((t[len(t) // 2], t[max(int(len(t) * 0.99) - 1, 0)]))

    def median(v: list[tuple[float, float]], at: int) -> float:
        return round(statistics.median(p[at] for p in v), 3)

    return {
        "p50_ms_by_round": {n: [round(p, 3) for p, _ in v] for n, v in per_round.items()},
        "p50_ms_median": {n: median(v, 0) for n, v in per_round.items()},
        "p99_ms_median": {n: median(v, 1) for n, v in per_round.items()},
    }


TIE = 0.02  # tantivy stores field lengths in one lossy byte, as Lucene does


def agreement(left: Ranked, right: Ranked) -> dict[str, float]:
    """How two top-k lists of (id, score) agree: the share of ids in both, and whether they
    are the same "within ties": every id in one list only scores within ``TIE`` (relative)
    of that list's last score, so it sits at the cut where the other may break a near-tie
    the other way."""
    k = max(len(left), len(right), 1)
    a, b = dict(left), dict(right)
    only = [(a[i], left[-1][1]) for i in a.keys() - b.keys()]
    only += [(b[i], right[-1][1]) for i in b.keys() - a.keys()]
    within = all(abs(score - last) <= TIE * max(abs(last), 1e-9) for score, last in only)
    return {"overlap": len(a.keys() & b.keys()) / k, "same_within_ties": float(within)}


def agreement_summary(pairs: list[tuple[Ranked, Ranked]], k: int) -> dict[str, float]:
    """Mean top-``k`` overlap and the share of queries whose lists agree within ties."""
    agreed = [agreement(left, right) for left, right in pairs]
    return {
        f"top{k}_overlap_mean": round(statistics.fmean(a["overlap"] for a in agreed), 4),
        f"top{k}_same_within_ties": round(
            statistics.fmean(a["same_within_ties"] for a in agreed), 4
        ),
    }


def vector_table(vectors: np.ndarray, projects: list[str]) -> pa.Table:
    """Index rows carrying only what the dense leg reads: row ``n`` holds ``vectors[n]``
    in project ``projects[n]``, item id ``i<n>``, a live fact with empty text."""
    count, dim = vectors.shape
    return pa.table(
        {
            "item_id": [f"i{n:06d}" for n in range(count)],
            "project": projects,
            "type": ["fact"] * count,
            "path": ["p.md"] * count,
            "l0": [""] * count,
            "l1": [""] * count,
            "heading": [""] * count,
            "text": [""] * count,
            "superseded": [False] * count,
            "archived": [False] * count,
            "expires": pa.array([None] * count, pa.date32()),
            "tokens": [""] * count,
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel()), dim
            ),
        }
    )
