"""How much a judge disagrees with itself: repeated trials of the same items.

With ``run_evals(trials=k)`` every item is scored ``k`` times by each scorer (the repeats are
sampled anew where the judge allows: :mod:`scorekit.judge.trial`). :func:`trial_summary`
reports, over the items scored ``ok`` in every trial:

* the **per-item spread**: the standard deviation of an item's ``k`` scores (population, the
  spread of these trials), its mean and maximum over the items;
* **self-consistency**: the share of items whose pass/fail label (score at or above the
  threshold) is the same in every trial;
* the run's **mean with a 95 % interval that includes the judge's own noise**: a two-stage
  (hierarchical) bootstrap that resamples the items, then each chosen item's trials, and takes
  the mean of the resampled items' mean scores (Davison & Hinkley, *Bootstrap Methods and
  their Application*, 1997, §3.8, the resampling of both stages), so the interval is at least
  as wide as the items' bootstrap alone whenever the trials disagree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.errors import ConfigError
from scorekit.trust.agreement import DEFAULT_RESAMPLES, Interval
from scorekit.trust.resampling import check_seed

__all__ = ["TrialSummary", "trial_summary"]

MAX_DRAWS = 20_000_000
"""The most single draws of the two-stage bootstrap (resamples × items × trials); above it the
resamples are fewer (and :attr:`TrialSummary.resamples` says how many)."""


@dataclass(frozen=True)
class TrialSummary:
    """One scorer's agreement with itself over repeated trials.

    Attributes:
        trials: scores per item (``k``).
        items: items scored ``ok`` in every trial (the others are left out).
        mean_spread: the mean over those items of each item's standard deviation.
        max_spread: the largest per-item standard deviation.
        self_consistency: the share of items with one pass/fail label in every trial.
        mean: the mean score with its 95 % two-stage bootstrap interval.
        threshold: the pass threshold of the labels.
        resamples: the bootstrap resamples used.
    """

    trials: int
    items: int
    mean_spread: float
    max_spread: float
    self_consistency: float
    mean: Interval
    threshold: float
    resamples: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {
            "trials": self.trials,
            "items": self.items,
            "mean_spread": self.mean_spread,
            "max_spread": self.max_spread,
            "self_consistency": self.self_consistency,
            "mean": self.mean.to_dict(),
            "threshold": self.threshold,
            "resamples": self.resamples,
        }


def trial_summary(
    scores: Mapping[str, Sequence[float | None]],
    *,
    threshold: float = 0.5,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> TrialSummary | None:
    """Summarise repeated trials of a scorer (see the module docstring).

    Args:
        scores: item id → its scores in trial order (``None`` for a trial not scored ``ok``);
            every item has the same number of trials, at least 2.
        threshold: a score at or above it passes (for self-consistency).
        resamples: bootstrap resamples, >= 100 (fewer when the draws would pass
            :data:`MAX_DRAWS`).
        seed: the resamples' seed.

    Returns:
        The summary, or ``None`` when no item was scored ``ok`` in every trial.

    Raises:
        ConfigError: not a mapping, items with different numbers of trials, fewer than 2
            trials, a score or the threshold not finite, or fewer than 100 resamples.

    Example:
        >>> found = trial_summary({"a": [1.0, 1.0], "b": [0.0, 1.0]}, resamples=100)
        >>> found.mean_spread, found.self_consistency, found.mean.value
        (0.25, 0.5, 0.75)
    """
    if not isinstance(scores, Mapping):
        raise ConfigError("scores must map item ids to their scores", field="scores")
    if not math.isfinite(threshold):
        raise ConfigError(
            f"threshold must be a finite number, not {threshold!r}", field="threshold"
        )
    rows = {item: list(scores[item]) for item in sorted(scores)}  # the same order, any input
    counts = {len(row) for row in rows.values()}
    if len(counts) > 1:
        raise ConfigError("every item needs the same number of trials", field="scores")
    if counts and min(counts) < 2:
        raise ConfigError("trials need at least 2 scores per item", field="scores")
    if resamples < 100:
        raise ConfigError(f"resamples must be at least 100, not {resamples}", field="resamples")
    complete = [row for row in rows.values() if all(v is not None for v in row)]
    if not complete:
        return None
    matrix = np.asarray(complete, dtype=np.float64)  # items × trials
    if not np.isfinite(matrix).all():
        raise ConfigError("every score must be a finite number (or None)", field="scores")
    n, k = matrix.shape
    spread = matrix.std(axis=1)
    passed = matrix >= threshold
    consistent = passed.all(axis=1) | (~passed).all(axis=1)
    rounds = max(100, min(resamples, MAX_DRAWS // (n * k)))
    rng = np.random.default_rng(check_seed(seed))
    means = np.empty(rounds)
    for r in range(rounds):  # items, then each chosen item's trials
        chosen = np.asarray(rng.integers(0, n, size=n))[:, None]
        picks = rng.integers(0, k, size=(n, k))
        means[r] = matrix[chosen, picks].mean()
    low, high = np.percentile(means, [2.5, 97.5])
    return TrialSummary(
        trials=k,
        items=n,
        mean_spread=float(spread.mean()),
        max_spread=float(spread.max()),
        self_consistency=float(consistent.mean()),
        mean=Interval(float(matrix.mean()), float(low), float(high)),
        threshold=float(threshold),
        resamples=rounds,
    )
