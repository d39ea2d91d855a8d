"""Aggregate metrics over scorer results: agreement with labels (Pearson, Spearman).

Metrics are kept apart from scoring: a scorer gives one value per item; these functions compare
many values with human labels. Per-scorer summaries live in :mod:`scorekit.summary`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError
from scorekit.summary import ScoreSummary

__all__ = ["AGREEMENT_KEY", "ScorerSummary", "agreement", "pearson", "rank", "spearman"]

AGREEMENT_KEY = "agreement"
"""The key of a stored run's config that holds its ``--correlate`` figures."""


ScorerSummary = ScoreSummary
"""Old name of :class:`scorekit.summary.ScoreSummary`, kept while callers move to it."""


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


def agreement(
    scorer_ids: Sequence[str], pairs: Mapping[str, Sequence[tuple[float, float]]], column: str
) -> dict[str, Any]:
    """Each scorer's agreement with a human label, as JSON data (stored with the run).

    Args:
        scorer_ids: the scorers, in run order.
        pairs: scorer id → (score, label) pairs.
        column: the label's field name.

    Returns:
        ``{"column": column, "scorers": {scorer id: {"pairs": n, "pearson": r, "spearman":
        rho}}}``, a correlation ``None`` with fewer than two pairs or a constant sequence.
    """
    found: dict[str, dict[str, Any]] = {}
    for scorer_id in scorer_ids:
        got = pairs.get(scorer_id, ())
        scores, labels = [p[0] for p in got], [p[1] for p in got]
        enough = len(got) >= 2
        found[scorer_id] = {
            "pairs": len(got),
            "pearson": pearson(scores, labels) if enough else None,
            "spearman": spearman(scores, labels) if enough else None,
        }
    return {"column": column, "scorers": found}
