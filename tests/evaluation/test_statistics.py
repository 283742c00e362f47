"""Bootstrap coverage on a known distribution, and kappa on a hand-computed example."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.harness.agreement import cohen_kappa
from evaluation.harness.metrics import bootstrap_sums, percentile_ci


def test_clustered_bootstrap_ci_covers_the_true_mean_at_about_95_percent() -> None:
    rng = np.random.default_rng(0)
    true_p, covered, reps = 0.3, 0, 200
    for rep in range(reps):
        sizes = rng.integers(2, 7, size=40)  # 40 sessions of 2..6 turns
        hits = rng.binomial(sizes, true_p)
        matrix = np.stack([hits, sizes], axis=1).astype(float)
        sums = bootstrap_sums(matrix, resamples=2000, seed=rep)
        lo, hi = percentile_ci(sums[:, 0] / sums[:, 1])
        covered += lo <= true_p <= hi
    assert 0.9 <= covered / reps <= 0.99


def test_bootstrap_resamples_whole_sessions() -> None:
    matrix = np.array([[3.0, 3.0], [0.0, 1.0]])  # session sums only ever appear whole
    sums = bootstrap_sums(matrix, resamples=500, seed=1)
    assert set(map(tuple, sums)) <= {(6.0, 6.0), (3.0, 4.0), (0.0, 2.0)}


def test_kappa_matches_a_hand_computed_example() -> None:
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7-0.5)/(1-0.5) = 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        cohen_kappa(a, b[:-1])
