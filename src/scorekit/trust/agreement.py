"""How well a scorer's scores agree with human labels, each figure with a bootstrap interval.

Given one score and one human label per item (a label is binary, 0 or 1, or graded in
``[0, 1]``; a graded label counts as positive from 0.5 up), :func:`agreement` reports:

* **balanced accuracy** at the scorer's threshold (an item is predicted positive when its
  score is at or above it): ``(TP / P + TN / N) / 2``, the mean of the two recalls, which a
  scorer cannot raise by always saying one label (Brodersen et al., 2010);
* **Cohen's κ** at the same threshold: ``(p_o − p_e) / (1 − p_e)``, with ``p_o`` the observed
  agreement and ``p_e`` the agreement expected from the two margins (Cohen, 1960);
* **AUROC** of the score: the probability that a positive item outscores a negative one, ties
  counting one half (the Mann–Whitney statistic over ``P · N``; Hanley & McNeil, 1982);
* the **confusion table** at the threshold, and the **threshold that maximises balanced
  accuracy** (the lowest of the tied best, among the scores seen);
* for graded labels, **Pearson's r** and **Spearman's ρ** (Pearson's r of the mid-ranks).

Each figure has a 95 % percentile bootstrap interval over items (Efron & Tibshirani, 1993,
ch. 13), from :mod:`scorekit.trust.resampling`' multinomial resamples; a resample in which a
figure is undefined (no positive or no negative item) is left out of that figure's interval.
A figure that is undefined on the data itself is ``None``, and :attr:`Agreement.notes` says
why. Below :data:`MIN_LABELS` labelled items nothing is computed: :attr:`Agreement.not_enough`
says so ("not enough labels (n = 7, need 20)").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError
from scorekit.trust.resampling import Cells, cells_of, for_resampling, resampled_counts

__all__ = ["DEFAULT_RESAMPLES", "MIN_LABELS", "Agreement", "Interval", "agreement", "finite"]

MIN_LABELS = 20
"""The fewest labelled items an agreement is computed on. Below it a bootstrap interval of a
balanced accuracy spans most of ``[0, 1]`` (with 10 items of each label, ±0.2 or more), so a
figure would look more certain than it is."""

DEFAULT_RESAMPLES = 2_000
"""Bootstrap resamples per interval (the percentile interval's ends settle to about ±0.005)."""

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    """A figure and its 95 % bootstrap interval.

    Attributes:
        value: the figure on the data.
        low, high: the 2.5th and 97.5th percentiles of the figure over the resamples where it
            is defined (``value`` itself when none is).
    """

    value: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        """``{"value", "low", "high"}``."""
        return {"value": self.value, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class Agreement:
    """A scorer's agreement with human labels (see the module docstring for each figure).

    Attributes:
        n: labelled items.
        positives: items whose label is positive (``>= 0.5``).
        threshold: the score at or above which an item is predicted positive.
        graded: whether any label lies strictly between 0 and 1.
        balanced_accuracy, kappa, auroc, best_threshold: binary-label figures, or ``None``.
        pearson, spearman: graded-label figures (``None`` for binary labels).
        confusion: ``{"tp", "fp", "fn", "tn"}`` at the threshold.
        not_enough: why nothing was computed (fewer than the minimum), or ``None``.
        notes: why a figure is ``None``.
    """

    n: int
    positives: int
    threshold: float
    graded: bool
    balanced_accuracy: Interval | None = None
    kappa: Interval | None = None
    auroc: Interval | None = None
    best_threshold: Interval | None = None
    pearson: Interval | None = None
    spearman: Interval | None = None
    confusion: dict[str, int] = field(default_factory=dict)
    not_enough: str | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: the figures as ``{"value", "low", "high"}`` or ``None``."""

        def plain(x: Interval | None) -> dict[str, float] | None:
            return None if x is None else x.to_dict()

        return {
            "n": self.n,
            "positives": self.positives,
            "threshold": self.threshold,
            "graded": self.graded,
            "balanced_accuracy": plain(self.balanced_accuracy),
            "kappa": plain(self.kappa),
            "auroc": plain(self.auroc),
            "best_threshold": plain(self.best_threshold),
            "pearson": plain(self.pearson),
            "spearman": plain(self.spearman),
            "confusion": dict(self.confusion),
            "not_enough": self.not_enough,
            "notes": list(self.notes),
        }


def finite(values: Sequence[float], name: str) -> Floats:
    """``values`` as a float array, refused unless every one is a finite number.

    Raises:
        ConfigError: a value is not a number or not finite (``field=name``, its position said).
    """
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name}: every value must be a number ({exc})", field=name) from exc
    if array.ndim != 1:
        raise ConfigError(f"{name}: expected a flat list of numbers", field=name)
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ConfigError(
            f"{name}: value {int(bad[0])} is {float(array[bad[0]])}, not a finite number",
            field=name,
        )
    return array


# -- the figures, each computed for every row of a (resamples, K) count matrix --------------


@dataclass(frozen=True)
class _Table:
    """Cells sorted by score, the per-score sums the figures need, for each row of counts."""

    scores: Floats  # (J,) distinct scores, ascending
    pos: Floats  # (R, J) positive items per distinct score
    neg: Floats  # (R, J) negative items per distinct score

    @classmethod
    def of(cls, cells: Cells, counts: NDArray[np.int64]) -> _Table:
        score, label = cells.values[:, 0], cells.values[:, 1]
        starts = np.flatnonzero(np.r_[True, score[1:] != score[:-1]])
        positive = (label >= 0.5).astype(np.float64)
        weighted = counts.astype(np.float64)
        pos = np.add.reduceat(weighted * positive, starts, axis=1)
        neg = np.add.reduceat(weighted * (1.0 - positive), starts, axis=1)
        return cls(score[starts], pos, neg)

    def confusion(self, threshold: float) -> tuple[Floats, Floats, Floats, Floats]:
        at = int(np.searchsorted(self.scores, threshold, side="left"))
        tp, fp = self.pos[:, at:].sum(axis=1), self.neg[:, at:].sum(axis=1)
        return tp, fp, self.pos.sum(axis=1) - tp, self.neg.sum(axis=1) - fp

    def balanced_accuracy(self, threshold: float) -> Floats:
        tp, fp, fn, tn = self.confusion(threshold)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray((tp / (tp + fn) + tn / (tn + fp)) / 2.0)

    def kappa(self, threshold: float) -> Floats:
        tp, fp, fn, tn = self.confusion(threshold)
        n = tp + fp + fn + tn
        observed = (tp + tn) / n
        expected = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (observed - expected) / (1.0 - expected)
        return np.asarray(np.where(expected >= 1.0, np.nan, kappa))

    def auroc(self) -> Floats:
        p, q = self.pos.sum(axis=1), self.neg.sum(axis=1)
        above = p[:, None] - np.cumsum(self.pos, axis=1)  # positives scored strictly higher
        wins = (self.neg * (above + 0.5 * self.pos)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(wins / (p * q))

    def best_threshold(self) -> Floats:
        p, q = self.pos.sum(axis=1), self.neg.sum(axis=1)
        # threshold = the j-th score: items from j up are predicted positive
        tp = p[:, None] - np.cumsum(self.pos, axis=1) + self.pos
        tn = np.cumsum(self.neg, axis=1) - self.neg
        with np.errstate(divide="ignore", invalid="ignore"):
            ba = (tp / p[:, None] + tn / q[:, None]) / 2.0
        defined = (p > 0) & (q > 0)
        best = self.scores[np.argmax(np.where(np.isnan(ba), -1.0, ba), axis=1)]
        return np.asarray(np.where(defined, best, np.nan))


def _midranks(values: Floats, counts: Floats) -> Floats:
    """Per row of counts, each distinct value's mid-rank (values sorted ascending)."""
    ends = np.cumsum(counts, axis=1)
    return np.asarray(ends - (counts - 1.0) / 2.0)


def _pearson(x: Floats, y: Floats, weights: Floats) -> Floats:
    """Weighted Pearson r per row: ``x``, ``y`` are (R, K) or (K,), ``weights`` (R, K)."""
    n = weights.sum(axis=1)
    mx = (weights * x).sum(axis=1) / n
    my = (weights * y).sum(axis=1) / n
    dx, dy = x - mx[:, None], y - my[:, None]
    cov = (weights * dx * dy).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(
            cov / np.sqrt((weights * dx * dx).sum(axis=1) * (weights * dy * dy).sum(axis=1))
        )


def _spearman(cells: Cells, counts: NDArray[np.int64]) -> Floats:
    score, label = cells.values[:, 0], cells.values[:, 1]
    weights = counts.astype(np.float64)
    ranks = []
    for column in (score, label):
        order = np.argsort(column, kind="stable")
        sorted_column = column[order]
        starts = np.flatnonzero(np.r_[True, sorted_column[1:] != sorted_column[:-1]])
        grouped = np.add.reduceat(weights[:, order], starts, axis=1)
        group_of = np.cumsum(np.r_[False, sorted_column[1:] != sorted_column[:-1]])
        rank_sorted = _midranks(sorted_column[starts], grouped)[:, group_of]
        rank = np.empty_like(rank_sorted)
        rank[:, order] = rank_sorted
        ranks.append(rank)
    return _pearson(ranks[0], ranks[1], weights)


def _interval(point: float, resampled: Floats) -> Interval | None:
    if math.isnan(point):
        return None
    defined = resampled[~np.isnan(resampled)]
    if defined.size == 0:
        return Interval(point, point, point)
    low, high = np.percentile(defined, [2.5, 97.5])
    return Interval(point, float(low), float(high))


def agreement(
    scores: Sequence[float],
    labels: Sequence[float],
    *,
    threshold: float = 0.5,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    min_labels: int = MIN_LABELS,
) -> Agreement:
    """Agreement between a scorer's scores and human labels of the same items.

    Args:
        scores: the scorer's scores, one per labelled item (finite numbers).
        labels: the human labels, in the same order: 0 or 1, or graded in ``[0, 1]``.
        threshold: the score at or above which an item is predicted positive (the scorer's
            pass threshold; 0.5 by default).
        resamples: bootstrap resamples per interval, ``>= 100``.
        seed: the resamples' seed: the same data and seed give the same intervals.
        min_labels: the fewest labelled items to compute anything on.

    Returns:
        The figures with their intervals (see the module docstring); with fewer than
        ``min_labels`` items, only ``n`` and :attr:`Agreement.not_enough`.

    Raises:
        ConfigError: the lists differ in length, a value is not a finite number, a label lies
            outside ``[0, 1]``, or ``resamples`` is below 100 (``field`` names the argument).

    Example:
        >>> result = agreement([0.9, 0.8, 0.2, 0.4] * 5, [1, 1, 0, 1] * 5, resamples=200)
        >>> result.balanced_accuracy.value, result.auroc.value
        (0.8333333333333333, 1.0)
    """
    x, y = finite(scores, "scores"), finite(labels, "labels")
    if x.size != y.size:
        raise ConfigError(
            f"scores and labels differ in length ({x.size} vs {y.size})", field="labels"
        )
    outside = np.flatnonzero((y < 0.0) | (y > 1.0))
    if outside.size:
        raise ConfigError(
            f"labels: value {int(outside[0])} is {y[outside[0]]}, outside [0, 1]", field="labels"
        )
    if resamples < 100:
        raise ConfigError(f"resamples must be at least 100, not {resamples}", field="resamples")
    if not math.isfinite(threshold):
        raise ConfigError(
            f"threshold must be a finite number, not {threshold!r}", field="threshold"
        )
    n, positives = int(x.size), int((y >= 0.5).sum())
    graded = bool(((y > 0.0) & (y < 1.0)).any())
    base = Agreement(n=n, positives=positives, threshold=float(threshold), graded=graded)
    if n < max(min_labels, 1):
        return replace(base, not_enough=f"not enough labels (n = {n}, need {max(min_labels, 1)})")
    exact = cells_of([x, y])
    point = _Table.of(exact, exact.counts[None, :])
    sampled_cells = for_resampling([x, y])
    counts = resampled_counts(sampled_cells, resamples, seed)
    boot = _Table.of(sampled_cells, counts)
    tp, fp, fn, tn = (int(v[0]) for v in point.confusion(threshold))
    notes = []
    if positives in (0, n):
        notes.append(
            f"balanced accuracy, κ, AUROC and the best threshold need both labels; all {n} "
            f"are {'positive' if positives else 'negative'}"
        )
    figures: dict[str, Interval | None] = {}
    if 0 < positives < n:
        figures = {
            "balanced_accuracy": _interval(
                float(point.balanced_accuracy(threshold)[0]), boot.balanced_accuracy(threshold)
            ),
            "kappa": _interval(float(point.kappa(threshold)[0]), boot.kappa(threshold)),
            "auroc": _interval(float(point.auroc()[0]), boot.auroc()),
            "best_threshold": _interval(float(point.best_threshold()[0]), boot.best_threshold()),
        }
    if graded:
        weights = exact.counts[None, :].astype(np.float64)
        figures["pearson"] = _interval(
            float(_pearson(exact.values[:, 0], exact.values[:, 1], weights)[0]),
            _pearson(sampled_cells.values[:, 0], sampled_cells.values[:, 1], counts.astype(float)),
        )
        figures["spearman"] = _interval(
            float(_spearman(exact, exact.counts[None, :])[0]), _spearman(sampled_cells, counts)
        )
        if figures["pearson"] is None:
            notes.append("Pearson's r and Spearman's ρ need scores and labels that vary")
    return replace(
        base,
        confusion={"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        notes=tuple(notes),
        balanced_accuracy=figures.get("balanced_accuracy"),
        kappa=figures.get("kappa"),
        auroc=figures.get("auroc"),
        best_threshold=figures.get("best_threshold"),
        pearson=figures.get("pearson"),
        spearman=figures.get("spearman"),
    )
