"""Score histograms for the report: the bins of a :class:`~scorekit.summary.Histogram`.

The binning itself is :func:`scorekit.summary.bin_scores` (equal-width bins over a fixed range),
the one used by :meth:`ScoreSummary.histogram <scorekit.summary.ScoreSummary.histogram>` and
kept in a run's stored totals; this module turns it into the bins the template draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorekit.summary import DEFAULT_BINS, Histogram, bin_scores

__all__ = ["Bin", "bins_of", "histogram"]


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


def bins_of(found: Histogram) -> list[Bin]:
    """Return the bins of a histogram in ascending order."""
    return [Bin(found.edges[i], found.edges[i + 1], count) for i, count in enumerate(found.counts)]


def histogram(scores: Sequence[float], *, bins: int = DEFAULT_BINS, low: float = 0.0) -> list[Bin]:
    """Count scores in ``bins`` equal-width bins from ``low`` to ``max(1, max(scores))``.

    Scores are usually in [0, 1]; a scorer with ``scale > 1`` widens the range to its
    largest score. Scores below ``low`` fall in the first bin (see
    :func:`scorekit.summary.bin_scores`).

    Args:
        scores: finite scores.
        bins: number of bins, >= 1.
        low: the lower edge of the first bin.

    Returns:
        ``bins`` bins in ascending order; their counts add up to ``len(scores)``.

    Raises:
        ConfigError: ``bins < 1`` (also a ``ValueError``).

    Example:
        >>> [b.count for b in histogram([0.0, 0.05, 0.5, 1.0], bins=2)]
        [2, 2]
        >>> [b.count for b in histogram([0.3, 0.6, 0.7])][3:8]
        [1, 0, 0, 1, 1]
    """
    return bins_of(bin_scores(scores, bins=bins, low=low))
