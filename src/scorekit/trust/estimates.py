"""A run's mean with an honest interval: prediction-powered from a labelled slice, else bootstrap.

**Prediction-powered inference** (PPI++: Angelopoulos, Duchi & Zrnic, "PPI++: Efficient
Prediction-Powered Inference", 2023, arXiv:2311.01453, the mean with power tuning). With
human labels ``Y`` on ``n`` items, the judge's scores ``Ŷ`` on the same items and ``Ŷᵘ`` on the
``N`` items without labels, the estimate of the mean human label is

    θ̂ = mean(λ·Ŷᵘ) + mean(Y − λ·Ŷ)

which is unbiased for any fixed ``λ``: the labelled slice measures the judge's bias and removes
it. ``λ = clip((1/n)·Σ (Y − Ȳ)(Ŷ − Ŷ̄) / ((1 + n/N)·Var(Ŷ ∪ Ŷᵘ)), 0, 1)`` minimises the
variance (``λ = 0``: the labels' own mean, which a judge that tells nothing falls back to;
``λ = 1``: the original PPI). The 95 % interval is ``θ̂ ± z·√(σ²(λŶᵘ)/N + σ²(Y − λŶ)/n)``
(population standard deviations, ``z`` the normal quantile). This is the same computation as
``ppi_py.ppi_mean_ci`` (``lam=None``, ``alpha=0.05``); ``tests/trust/test_estimates.py``
checks it against that package's figures on fixed data. We wrote these ten lines instead of
depending on ``ppi-python``, which brings numba, statsmodels, scikit-learn and gdown.

Without labels, :func:`bootstrap_mean` gives the judge's raw mean with a 95 % percentile
bootstrap interval over items: it covers the judge's mean, not the humans', however biased
the judge is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

from scorekit.errors import ConfigError
from scorekit.summary import ScoreSummary
from scorekit.trust.agreement import DEFAULT_RESAMPLES, MIN_LABELS, finite
from scorekit.trust.resampling import for_resampling, resampled_counts

__all__ = ["MeanEstimate", "bootstrap_mean", "ppi_mean", "with_mean_interval"]

Z95 = NormalDist().inv_cdf(0.975)
"""The normal quantile of a two-sided 95 % interval (1.959963984540054)."""


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its 95 % interval.

    Attributes:
        method: ``"ppi"`` (the human-label mean, prediction-powered), ``"labels"`` (every
            item labelled: the labels' own mean, bootstrap interval) or ``"bootstrap"`` (the
            judge's raw mean).
        mean: the estimate.
        low, high: the interval's ends.
        labelled: items with a human label (0 for ``"bootstrap"``).
        unlabelled: items with only the judge's score.
        raw_mean: the judge's mean over every item.
        power: PPI++'s ``λ`` in ``[0, 1]`` (``None`` for ``"bootstrap"``).
    """

    method: Literal["ppi", "labels", "bootstrap"]
    mean: float
    low: float
    high: float
    labelled: int
    unlabelled: int
    raw_mean: float
    power: float | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {
            "method": self.method,
            "mean": self.mean,
            "low": self.low,
            "high": self.high,
            "labelled": self.labelled,
            "unlabelled": self.unlabelled,
            "raw_mean": self.raw_mean,
            "power": self.power,
        }


def ppi_mean(
    labels: Sequence[float],
    judged: Sequence[float],
    judged_unlabelled: Sequence[float],
    *,
    min_labels: int = MIN_LABELS,
) -> MeanEstimate:
    """The prediction-powered estimate of the mean human label, with its 95 % interval.

    Args:
        labels: the human labels of the labelled items (finite numbers, e.g. 0/1).
        judged: the judge's scores of the same items, in the same order.
        judged_unlabelled: the judge's scores of the items without a label (at least one).
        min_labels: the fewest labelled items accepted.

    Returns:
        ``method="ppi"``; formula and source in the module docstring.

    Raises:
        ConfigError: lengths differ, a value is not finite, fewer than ``min_labels`` labels,
            or no unlabelled item (``field`` names the argument).

    Example:
        >>> est = ppi_mean([1, 0, 1, 1], [1, 1, 1, 1], [1, 1, 0, 1], min_labels=4)
        >>> round(est.mean, 4), est.power
        (0.75, 0.0)
    """
    y, yhat = finite(labels, "labels"), finite(judged, "judged")
    unlabelled = finite(judged_unlabelled, "judged_unlabelled")
    if y.size != yhat.size:
        raise ConfigError(
            f"labels and judged differ in length ({y.size} vs {yhat.size})", field="judged"
        )
    if y.size < min_labels:
        raise ConfigError(f"not enough labels (n = {y.size}, need {min_labels})", field="labels")
    if unlabelled.size == 0:
        raise ConfigError("no unlabelled item to estimate over", field="judged_unlabelled")
    n, big_n = y.size, unlabelled.size
    both = np.concatenate([yhat, unlabelled])
    spread = float(np.var(both, ddof=1)) if both.size > 1 else 0.0
    covariance = float(((y - y.mean()) * (yhat - yhat.mean())).sum() / n)
    power = 0.0 if spread == 0.0 else min(1.0, max(0.0, covariance / ((1 + n / big_n) * spread)))
    mean = float((power * unlabelled).mean() + (y - power * yhat).mean())
    error = math.sqrt(
        float(np.std(power * unlabelled)) ** 2 / big_n + float(np.std(y - power * yhat)) ** 2 / n
    )
    return MeanEstimate(
        method="ppi",
        mean=mean,
        low=mean - Z95 * error,
        high=mean + Z95 * error,
        labelled=n,
        unlabelled=big_n,
        raw_mean=float(both.mean()),
        power=power,
    )


def bootstrap_mean(
    values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> MeanEstimate:
    """The mean of ``values`` with a 95 % percentile bootstrap interval over items.

    Args:
        values: the judge's scores (finite numbers, at least one).
        resamples: bootstrap resamples, ``>= 100``.
        seed: the resamples' seed.

    Raises:
        ConfigError: no value, a value that is not finite, or fewer than 100 resamples.

    Example:
        >>> est = bootstrap_mean([0.0, 1.0] * 50, resamples=1000)
        >>> est.mean, round(est.low, 2), round(est.high, 2)
        (0.5, 0.4, 0.6)
    """
    x = finite(values, "values")
    if x.size == 0:
        raise ConfigError("no value to average", field="values")
    if resamples < 100:
        raise ConfigError(f"resamples must be at least 100, not {resamples}", field="resamples")
    cells = for_resampling([x])
    means = resampled_counts(cells, resamples, seed) @ cells.values[:, 0] / x.size
    low, high = np.percentile(means, [2.5, 97.5])
    mean = float(x.mean())
    return MeanEstimate("bootstrap", mean, float(low), float(high), 0, int(x.size), mean)


def with_mean_interval(
    summary: ScoreSummary, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> ScoreSummary:
    """Set ``summary.mean_interval`` to :func:`bootstrap_mean`'s interval of its ``ok`` scores.

    Every run's summary gets it, labels or not: the interval over items says how far the mean
    would move on another sample of items like these (it covers the judge's mean, not the
    humans'; the labelled slice's corrected mean is :func:`ppi_mean`). Fixed resamples and seed,
    so that the run loop, the store's totals and a summary read again from the rows agree.

    Args:
        summary: a summary holding its scores; one with fewer than two ``ok`` scores, or read
            back without its scores, is left as it is (an interval of one score says nothing).
        resamples: bootstrap resamples, ``>= 100``.
        seed: the resamples' seed.

    Returns:
        ``summary`` itself.

    Example:
        >>> from scorekit.summary import ScoreSummary
        >>> s = ScoreSummary("s", {"ok": 4}, [0.0, 1.0, 1.0, 1.0])
        >>> with_mean_interval(s).mean_interval
        (0.25, 1.0)
    """
    if summary.has_scores and len(summary.scores) >= 2:
        with np.errstate(over="ignore", invalid="ignore"):  # scores near the float maximum
            found = bootstrap_mean(summary.scores, resamples=resamples, seed=seed)
        if math.isfinite(found.low) and math.isfinite(found.high):  # never an infinite bound
            summary.mean_interval = (found.low, found.high)
    return summary
