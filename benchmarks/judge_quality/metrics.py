"""Agreement figures of a judge's scores with binary human labels, and between two runs.

Pure functions on plain sequences (labels 1 = the positive class of the task, e.g. relevant,
faithful). Each returns ``None`` where the figure is undefined, never NaN.

* balanced accuracy = (TPR + TNR) / 2, TPR = TP / (TP + FN), TNR = TN / (TN + FP);
* Cohen's κ = (p_o − p_e) / (1 − p_e), p_o the observed agreement, p_e the chance agreement
  from the two marginals (Cohen 1960);
* AUROC = P(score of a random positive > score of a random negative), ties counting ½ (the
  Mann–Whitney U statistic divided by n_pos · n_neg);
* run-to-run agreement = the share of rows given the same predicted label by both runs.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["auroc", "balanced_accuracy", "cohen_kappa", "same_label_share"]


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
