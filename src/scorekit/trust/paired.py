"""Is run B really better than run A? Paired differences over the items both runs scored.

For the ``n`` items scored ``ok`` in both runs, ``d = score_B − score_A``:

* the **mean difference** with a 95 % percentile bootstrap interval over items (Efron &
  Tibshirani, 1993; the resamples of :mod:`scorekit.trust.resampling`);
* a two-sided **paired sign-flip permutation test** of "no difference": under the null each
  ``d`` is as likely positive as negative, so the p-value is the share of random sign flips
  whose mean is at least as far from 0 as the observed one, ``(1 + #extreme) / (1 + R)``
  (Good, *Permutation Tests*, 2005, §3.3; the ``+1`` keeps the test exact at ``R`` flips);
* with a threshold, **McNemar's exact test** of the pass/fail flips: of the items that pass in
  one run only, whether B's are more than chance (two-sided binomial test of ``b`` vs ``c``
  at ½; McNemar, 1947).

The verdict names a change only when the interval excludes 0 and the permutation p-value is at
most :data:`ALPHA` (a percentile interval alone is too sure of itself on few differing items);
otherwise it is ``"no detectable difference"``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.errors import ConfigError
from scorekit.trust.agreement import Interval, finite
from scorekit.trust.resampling import (
    Floats,
    check_seed,
    for_resampling,
    prefer_items,
    resampled_counts,
)

__all__ = [
    "ALPHA",
    "DEFAULT_PAIRED_RESAMPLES",
    "McNemar",
    "PairedComparison",
    "mcnemar",
    "paired_comparison",
]

DEFAULT_PAIRED_RESAMPLES = 10_000
"""Bootstrap resamples and sign flips of a paired comparison."""

ALPHA = 0.05
"""A change is called (``B higher``/``B lower``) only when its 95 % interval excludes 0 *and*
the permutation test rejects "no difference" at this level: a percentile interval alone is
too sure of itself on a few differing items (one paired item gives an interval of one point)."""


@dataclass(frozen=True)
class McNemar:
    """Pass/fail flips between two runs at a threshold.

    Attributes:
        only_a: items that pass in run A only.
        only_b: items that pass in run B only.
        p_value: the exact two-sided binomial p-value of ``only_b`` vs ``only_a`` at ½ (1 when
            no item flips).
    """

    only_a: int
    only_b: int
    p_value: float


@dataclass(frozen=True)
class PairedComparison:
    """One scorer's change from run A to run B over the items both scored.

    Attributes:
        n: paired items.
        mean_a, mean_b: the two runs' means over those items.
        difference: ``mean_b − mean_a`` with its 95 % bootstrap interval.
        p_value: the sign-flip permutation test's two-sided p-value.
        verdict: ``"B higher"``, ``"B lower"`` (the interval excludes 0 and ``p_value`` is
            at most :data:`ALPHA`) or ``"no detectable difference"``.
        mcnemar: the pass/fail test, when a threshold was given.
    """

    n: int
    mean_a: float
    mean_b: float
    difference: Interval
    p_value: float
    verdict: str
    mcnemar: McNemar | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        flips = self.mcnemar
        return {
            "n": self.n,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "difference": self.difference.to_dict(),
            "p_value": self.p_value,
            "verdict": self.verdict,
            "mcnemar": None
            if flips is None
            else {"only_a": flips.only_a, "only_b": flips.only_b, "p_value": flips.p_value},
        }


def mcnemar(only_a: int, only_b: int) -> McNemar:
    """McNemar's exact test: ``2 · P(X ≤ min(b, c))`` for ``X ~ Binomial(b + c, ½)``, at most 1.

    Args:
        only_a: items that pass in run A only (``b``), ``>= 0``.
        only_b: items that pass in run B only (``c``), ``>= 0``.

    Example:
        >>> mcnemar(1, 9).p_value
        0.021484375
    """
    total, low = only_a + only_b, min(only_a, only_b)
    if total == 0:
        return McNemar(only_a, only_b, 1.0)
    if total <= 1_000:  # exact: integers, one correctly rounded division
        tail = sum(math.comb(total, i) for i in range(low + 1)) / 2**total
    else:  # log-space terms: no overflow
        log_terms = np.array(
            [
                math.lgamma(total + 1) - math.lgamma(i + 1) - math.lgamma(total - i + 1)
                for i in range(low + 1)
            ]
        )
        tail = float(np.exp(log_terms - total * math.log(2.0)).sum())
    return McNemar(only_a, only_b, min(1.0, 2.0 * tail))


def _sign_flipped_means(magnitudes: Floats, resamples: int, seed: int) -> Floats:
    """``resamples`` means of the magnitudes, each with random signs (the null's draws)."""
    rng = np.random.default_rng(check_seed(seed))
    n = magnitudes.size
    cells = for_resampling([magnitudes])  # per distinct magnitude, how many flip up
    if prefer_items(n, cells.counts.size, resamples):
        signs = rng.integers(0, 2, size=(resamples, n)) * 2 - 1
        return np.asarray(signs @ magnitudes / n)
    ups = rng.binomial(cells.counts, 0.5, size=(resamples, cells.counts.size))
    return np.asarray((2 * ups - cells.counts) @ cells.values[:, 0] / n)


def paired_comparison(
    run_a: Sequence[float],
    run_b: Sequence[float],
    *,
    threshold: float | None = None,
    resamples: int = DEFAULT_PAIRED_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Compare two runs' scores of the same items (formulas and sources in the module docstring).

    Args:
        run_a: run A's scores of the paired items (finite numbers, at least one).
        run_b: run B's scores of the same items, in the same order.
        threshold: a pass threshold (score at or above it passes) for McNemar's test, or
            ``None``.
        resamples: bootstrap resamples and sign flips, ``>= 100``.
        seed: the seed of both: the same data and seed give the same figures.

    Raises:
        ConfigError: the lists differ in length or are empty, a value is not finite, or fewer
            than 100 resamples.

    Example:
        >>> result = paired_comparison([0.5] * 30, [0.7] * 30, resamples=200)
        >>> round(result.difference.value, 2), result.verdict
        (0.2, 'B higher')
    """
    a, b = finite(run_a, "run_a"), finite(run_b, "run_b")
    if a.size != b.size:
        raise ConfigError(f"the runs differ in length ({a.size} vs {b.size})", field="run_b")
    if a.size == 0:
        raise ConfigError("no paired item to compare", field="run_a")
    if resamples < 100:
        raise ConfigError(f"resamples must be at least 100, not {resamples}", field="resamples")
    d = b - a
    n, observed = int(d.size), float(d.mean())
    cells = for_resampling([d])
    means = resampled_counts(cells, resamples, seed) @ cells.values[:, 0] / n
    low, high = (float(v) for v in np.percentile(means, [2.5, 97.5]))
    flipped = _sign_flipped_means(np.abs(d), resamples, seed + 1)
    extreme = int((np.abs(flipped) >= abs(observed) - 1e-12).sum())
    p_value = (1 + extreme) / (1 + resamples) if observed != 0.0 else 1.0
    if low > 0.0 and p_value <= ALPHA:
        verdict = "B higher"
    elif high < 0.0 and p_value <= ALPHA:
        verdict = "B lower"
    else:
        verdict = "no detectable difference"
    flips = None
    if threshold is not None:
        pass_a, pass_b = a >= threshold, b >= threshold
        flips = mcnemar(int((pass_a & ~pass_b).sum()), int((pass_b & ~pass_a).sum()))
    return PairedComparison(
        n=n,
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        difference=Interval(observed, low, high),
        p_value=p_value,
        verdict=verdict,
        mcnemar=flips,
    )
