"""Seeded simulated judges with a known bias and noise (the trust tests' known truth)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]

POSITIVE_RATE = 0.6
"""The true share of positive labels of the binary simulations."""

FALSE_NEGATIVE, FALSE_POSITIVE = 0.1, 0.3
"""The binary judge's flip rates: it calls 10 % of positives negative, 30 % of negatives
positive, so its mean is 0.6 · 0.9 + 0.4 · 0.3 = 0.66, biased by +0.06."""


def case_data(seed: int, n: int, big_n: int, kind: str) -> tuple[Floats, Floats, Floats]:
    """Labels of ``n`` items, the judge's scores of them, its scores of ``big_n`` more.

    ``kind``: ``"binary"`` (labels 0/1, the judge flips them at the rates above) or
    ``"graded"`` (labels uniform on [0, 1] at 2 decimals, the judge ``0.7·y + 0.2`` plus
    normal noise of sd 0.15, clipped, at 2 decimals).
    """
    rng = np.random.default_rng(seed)
    total = n + big_n
    if kind == "binary":
        truth = (rng.random(total) < POSITIVE_RATE).astype(float)
        flip = rng.random(total) < np.where(truth == 1.0, FALSE_NEGATIVE, FALSE_POSITIVE)
        judge = np.where(flip, 1.0 - truth, truth)
    else:
        truth = np.round(rng.random(total), 2)
        judge = np.clip(np.round(truth * 0.7 + 0.2 + rng.normal(0, 0.15, total), 2), 0, 1)
    return truth[:n], judge[:n], judge[n:]
