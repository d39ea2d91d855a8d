"""Paired values as a table of distinct cells with counts, and its multinomial bootstrap.

Every trust statistic here (agreement with human labels, a mean, a paired difference) is a
function of how many items share each distinct value (or pair of values). Resampling ``n``
items with replacement is the same, in distribution, as drawing the cells' counts from a
multinomial with the observed shares (Efron's bootstrap, stated on the empirical
distribution), so a resample costs one row of ``K`` counts, not ``n`` draws: 2,000 resamples of
a million items that hold a few hundred distinct values take a fraction of a second.

Above :data:`MAX_CELLS` distinct cells, the resamples (never the point estimate) use a grid of
at most that many cells per dimension, equal in width, each standing at the mean of its
members: the sum, and so every mean, is kept exactly; only the spread inside one cell is lost,
at most ``(range / MAX_CELLS)² / 4`` of the variance per item (``2.5e-7`` for values in
``[0, 1]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError

__all__ = [
    "ITEM_DRAWS",
    "MAX_CELLS",
    "Cells",
    "cells_of",
    "check_seed",
    "for_resampling",
    "prefer_items",
    "resampled_counts",
]

ITEM_DRAWS = 4_000_000
"""The most single draws (items × resamples) a resampling makes one by one."""


def prefer_items(n: int, k: int, resamples: int) -> bool:
    """Whether drawing ``n`` items one by one beats drawing ``k`` cells' counts.

    Measured: one cell's binomial costs about 16 single draws; at most :data:`ITEM_DRAWS`.
    """
    return n <= 16 * k and n * resamples <= ITEM_DRAWS


MAX_CELLS = 1_000
"""The most distinct values per dimension the resamples use (above it: the grid)."""

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class Cells:
    """Distinct rows of a ``(n, d)`` value matrix and how many items hold each.

    Attributes:
        values: ``(K, d)`` distinct rows (sorted by the first column, then the next).
        counts: ``(K,)`` how many items hold each row; they sum to ``n``.
    """

    values: Floats
    counts: NDArray[np.int64]

    @property
    def n(self) -> int:
        """The number of items."""
        return int(self.counts.sum())


def cells_of(columns: list[Floats]) -> Cells:
    """The distinct rows of the columns (each ``(n,)``, finite) with their counts."""
    matrix = np.column_stack(columns).astype(np.float64)
    order = np.lexsort(tuple(reversed(columns)))  # the first column is the primary key
    ordered = matrix[order]
    if ordered.shape[0] == 0:
        return Cells(ordered, np.zeros(0, dtype=np.int64))
    starts = np.flatnonzero(np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)])
    counts = np.diff(np.r_[starts, ordered.shape[0]])
    return Cells(ordered[starts], counts.astype(np.int64))


def _gridded(column: Floats) -> Floats:
    """``column`` with each value moved to the mean of its grid cell (at most MAX_CELLS)."""
    low, high = float(column.min()), float(column.max())
    if high == low:
        return column
    slot = np.minimum(((column - low) / (high - low) * MAX_CELLS).astype(np.int64), MAX_CELLS - 1)
    sums = np.bincount(slot, weights=column, minlength=MAX_CELLS)
    sizes = np.bincount(slot, minlength=MAX_CELLS)
    means = sums / np.maximum(sizes, 1)
    return means[slot]


def for_resampling(columns: list[Floats]) -> Cells:
    """The cells the resamples use: exact, or on the grid where a column has too many values."""
    cells = cells_of(columns)
    if len(cells.counts) <= MAX_CELLS:
        return cells
    return cells_of([_gridded(c) if len(np.unique(c)) > MAX_CELLS else c for c in columns])


def check_seed(seed: int) -> int:
    """``seed`` when it is an integer >= 0 (what numpy's generators take).

    Raises:
        ConfigError: anything else (``field="seed"``).
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be an integer >= 0, not {seed!r}", field="seed")
    return seed


def resampled_counts(cells: Cells, resamples: int, seed: int) -> NDArray[np.int64]:
    """``(resamples, K)`` counts: each row one bootstrap resample of the ``n`` items.

    Args:
        cells: the table (:func:`for_resampling`).
        resamples: how many resamples, ``>= 1``.
        seed: the generator's seed (``numpy.random.default_rng``): the same seed, the same rows.
    """
    rng = np.random.default_rng(check_seed(seed))
    n, k = cells.n, cells.counts.size
    if prefer_items(n, k, resamples):  # few items per cell: draw them, count each cell's
        cell_of_item = np.repeat(np.arange(k), cells.counts)
        picks = cell_of_item[rng.integers(0, n, size=(resamples, n))]
        picks += (np.arange(resamples) * k)[:, None]
        return np.bincount(picks.ravel(), minlength=resamples * k).reshape(resamples, k)
    return rng.multinomial(n, cells.counts / n, size=resamples).astype(np.int64)
