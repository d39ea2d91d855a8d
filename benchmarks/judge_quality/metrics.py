"""Agreement figures of a judge's scores with binary human labels, and between two runs.

Pure functions on plain sequences (labels 1 = the positive class of the task, e.g. relevant,
faithful). Each returns ``None`` where the figure is undefined, never NaN.

* balanced accuracy = (TPR + TNR) / 2, TPR = TP / (TP + FN), TNR = TN / (TN + FP);
* Cohen's κ = (p_o − p_e) / (1 − p_e), p_o the observed agreement, p_e the chance agreement
  from the two marginals (Cohen 1960);
* AUROC = P(score of a random positive > score of a random negative), ties counting ½ (the
  Mann–Whitney U statistic divided by n_pos · n_neg);
* run-to-run agreement = the share of rows given the same predicted label by both runs;
* the AUROC difference of two scores on the same rows, with a paired bootstrap interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

__all__ = [
    "auroc",
    "balanced_accuracy",
    "cohen_kappa",
    "paired_auroc_difference",
    "same_label_share",
]


def _split(labels: Sequence[int], values: Sequence[float]) -> tuple[list[float], list[float]]:
    if len(labels) != len(values):
        raise ValueError(f"labels and values differ in length: {len(labels)} != {len(values)}")
    pos = [v for y, v in zip(labels, values, strict=True) if y == 1]
    neg = [v for y, v in zip(labels, values, strict=True) if y == 0]
    return pos, neg


def balanced_accuracy(labels: Sequence[int], predictions: Sequence[int]) -> float | None:
    """Mean of the true-positive and true-negative rates, in [0, 1].

    Args:
        labels: human labels, 0 or 1.
        predictions: predicted labels, 0 or 1, as long as ``labels``.

    Returns:
        The figure, or ``None`` when either class is absent from ``labels``.

    Raises:
        ValueError: the sequences differ in length.
    """
    pos, neg = _split(labels, predictions)
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(1 - p for p in neg) / len(neg)) / 2


def cohen_kappa(labels: Sequence[int], predictions: Sequence[int]) -> float | None:
    """Cohen's κ of two binary raters, in [-1, 1].

    Returns:
        κ, or ``None`` for no rows or when the chance agreement is 1 (both raters constant
        and equal: κ is undefined).

    Raises:
        ValueError: the sequences differ in length.
    """
    if len(labels) != len(predictions):
        raise ValueError(f"labels and predictions differ: {len(labels)} != {len(predictions)}")
    n = len(labels)
    if n == 0:
        return None
    observed = sum(1 for y, p in zip(labels, predictions, strict=True) if y == p) / n
    p_label, p_pred = sum(labels) / n, sum(predictions) / n
    chance = p_label * p_pred + (1 - p_label) * (1 - p_pred)
    if chance == 1:
        return None
    return (observed - chance) / (1 - chance)


def auroc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve of ``scores`` for ``labels``, ties counting half, in [0, 1].

    Returns:
        The area, or ``None`` when either class is absent.

    Raises:
        ValueError: the sequences differ in length.
    """
    pos, neg = _split(labels, scores)
    if not pos or not neg:
        return None
    wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def same_label_share(first: Sequence[int | None], second: Sequence[int | None]) -> float | None:
    """Share of rows whose predicted label is the same in two runs, in [0, 1].

    Args:
        first, second: per-row predicted labels of the two runs, aligned; ``None`` for a row
            that run did not score (error or skipped): such rows are left out.

    Returns:
        The share, or ``None`` when no row was scored by both runs.

    Raises:
        ValueError: the sequences differ in length.
    """
    if len(first) != len(second):
        raise ValueError(f"the runs differ in length: {len(first)} != {len(second)}")
    both = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    if not both:
        return None
    return sum(1 for a, b in both if a == b) / len(both)


def paired_auroc_difference(
    labels: Sequence[int],
    first: Sequence[float],
    second: Sequence[float],
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float] | None:
    """AUROC of ``first`` minus AUROC of ``second`` on the same rows, with a 95 % interval.

    The interval is the paired percentile bootstrap: rows are resampled with replacement
    (``random.Random(seed)``), both scores of a row always together, and the 2.5th and 97.5th
    percentiles of the resampled differences are reported (Efron & Tibshirani, *An
    Introduction to the Bootstrap*, 1993, ch. 13). Resamples that lose a class are drawn again.

    Returns:
        ``(difference, low, high)``, or ``None`` when either class is absent.

    Raises:
        ValueError: the sequences differ in length.
    """
    if not len(labels) == len(first) == len(second):
        raise ValueError("labels and both scores must be aligned row by row")
    observed_a, observed_b = auroc(labels, first), auroc(labels, second)
    if observed_a is None or observed_b is None:
        return None
    rng = random.Random(seed)
    n = len(labels)
    differences = []
    while len(differences) < resamples:
        picks = [rng.randrange(n) for _ in range(n)]
        ys = [labels[i] for i in picks]
        a = auroc(ys, [first[i] for i in picks])
        b = auroc(ys, [second[i] for i in picks])
        if a is not None and b is not None:
            differences.append(a - b)
    differences.sort()
    low = differences[int(0.025 * (resamples - 1))]
    high = differences[math.ceil(0.975 * (resamples - 1))]
    return observed_a - observed_b, low, high
