"""Paired comparison: the null's false positives, a real change found, McNemar exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scorekit.errors import ConfigError
from scorekit.trust import mcnemar, paired_comparison


def _null_pair(seed: int, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Two runs that differ by noise only: each item's two scores in random order."""
    rng = np.random.default_rng(seed)
    a = np.round(rng.random(n), 2)
    b = np.clip(np.round(a + rng.normal(0, 0.1, n), 2), 0, 1)
    swap = rng.random(n) < 0.5
    return np.where(swap, b, a), np.where(swap, a, b)


def test_the_false_positive_rate_under_the_null_is_at_most_six_percent() -> None:
    rejected = interval_rejected = 0
    for seed in range(1000):
        a, b = _null_pair(seed)
        result = paired_comparison(a, b, resamples=999, seed=seed)
        rejected += result.p_value <= 0.05
        interval_rejected += result.verdict != "no detectable difference"
    assert rejected <= 60
    assert rejected == 48  # the seeded figure itself
    assert interval_rejected <= 80  # the percentile interval is a little liberal at n = 40


def test_a_real_improvement_is_found_and_its_interval_holds_it() -> None:
    rng = np.random.default_rng(9)
    a = rng.random(200)
    b = np.clip(a + 0.05 + rng.normal(0, 0.1, 200), 0, 1)
    result = paired_comparison(a, b, threshold=0.5)
    assert result.verdict == "B higher"
    assert result.difference.value == pytest.approx((b - a).mean())
    assert result.difference.low > 0 and result.p_value < 0.001
    assert result.mean_b - result.mean_a == pytest.approx(result.difference.value)
    assert result.mcnemar is not None
    assert result.mcnemar.only_b == int(((b >= 0.5) & (a < 0.5)).sum())
    reverse = paired_comparison(b, a)
    assert reverse.verdict == "B lower"


def test_no_change_at_all() -> None:
    result = paired_comparison([0.3, 0.7] * 10, [0.3, 0.7] * 10, threshold=0.5)
    assert result.difference.value == 0.0 and result.p_value == 1.0
    assert result.verdict == "no detectable difference"
    assert result.mcnemar is not None and result.mcnemar.p_value == 1.0


def test_mcnemar_is_the_exact_binomial() -> None:
    assert mcnemar(1, 9).p_value == 22 / 1024
    assert mcnemar(5, 5).p_value == 1.0
    assert mcnemar(0, 0).p_value == 1.0
    # above 1,000 flips the log-space sum, against the integers
    exact = 2 * sum(math.comb(1100, i) for i in range(501)) / 2**1100
    assert mcnemar(500, 600).p_value == pytest.approx(exact, rel=1e-9)


def test_many_items_use_cell_draws_and_keep_the_mean() -> None:
    rng = np.random.default_rng(1)
    a = rng.random(100_000)
    b = a + rng.normal(0.001, 0.05, 100_000)
    result = paired_comparison(a, b, resamples=1000)
    assert result.difference.value == pytest.approx((b - a).mean(), abs=1e-12)
    half = (result.difference.high - result.difference.low) / 2
    assert half == pytest.approx(1.96 * (b - a).std() / np.sqrt(100_000), rel=0.15)


def test_bad_input_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="differ in length") as caught:
        paired_comparison([0.1], [0.1, 0.2])
    assert caught.value.field == "run_b"
    with pytest.raises(ConfigError, match="no paired item") as empty:
        paired_comparison([], [])
    assert empty.value.field == "run_a"
