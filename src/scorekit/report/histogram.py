"""Score histograms for the report: equal-width bins over a fixed range."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Bin", "histogram"]


@dataclass(frozen=True)
class Bin:
    """One histogram bin ``[low, high)`` (the last bin also holds ``high``).

    Attributes:
        low: the lower edge.
        high: the upper edge.
        count: scores in the bin, >= 0.
    """

    low: float
    high: float
    count: int


def histogram(scores: Sequence[float], *, bins: int = 10, low: float = 0.0) -> list[Bin]:
    """Count scores in ``bins`` equal-width bins from ``low`` to ``max(1, max(scores))``.

    Scores are usually in [0, 1]; a scorer with ``scale > 1`` widens the range to its
    largest score. Scores below ``low`` fall in the first bin.

    Args:
        scores: finite scores.
        bins: number of bins, >= 1.
        low: the lower edge of the first bin.

    Returns:
        ``bins`` bins in ascending order; their counts add up to ``len(scores)``.

    Example:
        >>> [b.count for b in histogram([0.0, 0.05, 0.5, 1.0], bins=2)]
        [2, 2]
        >>> [b.count for b in histogram([0.3, 0.6, 0.7])][3:8]
        [1, 0, 0, 1, 1]
    """
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    high = max([1.0, *scores])
    width = (high - low) / bins
    counts = [0] * bins
    for score in scores:
        # round before flooring: 0.3 / 0.1 is 2.9999999999999996 in floating point, and 0.3
        # belongs in [0.3, 0.4)
        index = math.floor(round((score - low) / width, 9)) if width > 0 else 0
        counts[min(max(index, 0), bins - 1)] += 1
    return [Bin(low + i * width, low + (i + 1) * width, counts[i]) for i in range(bins)]
