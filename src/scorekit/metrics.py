"""Aggregate metrics over scorer results: per-scorer summaries and agreement with labels.

Metrics are kept apart from scoring: a scorer gives one value per item; these functions turn many
values into a summary.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scorekit.errors import ConfigError
from scorekit.results import ScorerRunResult, Status

__all__ = ["ScorerSummary", "pearson", "rank", "spearman"]


@dataclass
class ScorerSummary:
    """Running summary of one scorer's results over a run.

    Only ``ok`` results contribute scores; ``skipped`` and ``error`` results are counted.

    Attributes:
        scorer_id: the scorer's id.
        counts: results per status.
        scores: the scores of ``ok`` results, in arrival order.
    """

    scorer_id: str
    counts: dict[Status, int] = field(default_factory=lambda: {"ok": 0, "skipped": 0, "error": 0})
    scores: list[float] = field(default_factory=list)

    def add(self, result: ScorerRunResult) -> None:
        """Count one result (and keep its score when it is ``ok``)."""
        self.counts[result.status] += 1
        if result.status == "ok" and result.score is not None:
            self.scores.append(result.score)

    @property
    def total(self) -> int:
        """Results counted, whatever their status."""
        return sum(self.counts.values())

    @property
    def mean(self) -> float | None:
        """Mean score of ``ok`` results (Mastra ``runEvals`` scores); ``None`` if none."""
        return math.fsum(self.scores) / len(self.scores) if self.scores else None

    @property
    def median(self) -> float | None:
        """Median score of ``ok`` results, ``None`` when there are none."""
        return statistics.median(self.scores) if self.scores else None

    @property
    def minimum(self) -> float | None:
        """Lowest score of ``ok`` results, ``None`` when there are none."""
        return min(self.scores) if self.scores else None

    @property
    def maximum(self) -> float | None:
        """Highest score of ``ok`` results, ``None`` when there are none."""
        return max(self.scores) if self.scores else None


def _check_pairs(x: Sequence[float], y: Sequence[float]) -> None:
    if len(x) != len(y):
        raise ConfigError(f"need equally long sequences, got {len(x)} and {len(y)}", field="y")
    if len(x) < 2:
        raise ConfigError("a correlation needs at least two pairs", field="x")


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's correlation coefficient r of two equally long sequences.

    Returns:
        r in [-1, 1], or ``None`` when either sequence is constant (r is undefined).

    Raises:
        ConfigError: the lengths differ or there are fewer than two pairs.
    """
    _check_pairs(x, y)
    mean_x, mean_y = math.fsum(x) / len(x), math.fsum(y) / len(y)
    dx = [v - mean_x for v in x]
    dy = [v - mean_y for v in y]
    sxx, syy = math.fsum(d * d for d in dx), math.fsum(d * d for d in dy)
    if sxx == 0 or syy == 0:
        return None
    r = math.fsum(a * b for a, b in zip(dx, dy, strict=True)) / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def rank(values: Iterable[float]) -> list[float]:
    """Ranks starting at 1, ties sharing their mean rank (as ``scipy.stats.rankdata``)."""
    items = list(values)
    order = sorted(range(len(items)), key=items.__getitem__)
    ranks = [0.0] * len(items)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and items[order[end + 1]] == items[order[start]]:
            end += 1
        shared = (start + end) / 2 + 1
        for position in range(start, end + 1):
            ranks[order[position]] = shared
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation: Pearson's r of the tie-averaged ranks.

    Returns:
        rho in [-1, 1], or ``None`` when either sequence is constant.

    Raises:
        ConfigError: the lengths differ or there are fewer than two pairs.
    """
    _check_pairs(x, y)
    return pearson(rank(x), rank(y))
