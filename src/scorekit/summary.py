"""``ScoreSummary``: one scorer's results over a run, the one summary every view shows.

Counts by status (``ok``, ``skipped``, ``error``) and the scores of the ``ok`` results; from those
the mean (``math.fsum``), median, minimum, maximum and a histogram. Only ``ok`` results carry a
score (failure is data, never NaN), so a scorer without one has ``None`` statistics.

A summary is mergeable: it keeps every ``ok`` score, so merging the summaries of two parts of a
run (two halves, two workers, two pytest sessions) gives exactly the summary of the whole run.
The scores are packed (``array("d")``, 8 bytes each): a run of 1M items keeps 8 MB per scorer,
the one part of a run's memory that grows with its size (an exact median needs every score).

The run loop keeps one per scorer while it runs (``EvalRunResult.summaries``); the store reads
one per scorer from a run's result rows, and keeps :meth:`ScoreSummary.to_dict` of each in the
run row's ``totals`` column when the run ends (:meth:`scorekit.store.Store.run_summaries` says
which of the two the views read). A summary read back from ``totals`` holds the statistics but
not the scores (:attr:`ScoreSummary.has_scores` is ``False``): it can be shown, not merged.

Ground floor: imports only :mod:`scorekit.results` and :mod:`scorekit.errors`.

Example:
    >>> summary = ScoreSummary("length")
    >>> for status, score in [("ok", 0.25), ("ok", 0.75), ("error", None)]:
    ...     summary.add_score(status, score)
    >>> summary.counts, summary.mean, summary.median
    ({'ok': 2, 'skipped': 0, 'error': 1}, 0.5, 0.5)
"""

from __future__ import annotations

import math
import numbers
import statistics
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from scorekit.errors import ConfigError
from scorekit.results import ScorerRunResult, Status

__all__ = ["DEFAULT_BINS", "Histogram", "ScoreSummary", "bin_scores"]

DEFAULT_BINS = 10
"""Bins of the histogram the views draw and the run row keeps (``[0, 0.1)`` ... ``[0.9, 1]``)."""

_STATUSES: tuple[Status, ...] = get_args(Status)

# rounding before flooring puts a score on an edge in the bin it opens: 0.3 / 0.1 is
# 2.9999999999999996 in floating point, and 0.3 belongs in [0.3, 0.4)
_EDGE_DIGITS = 9


def _no_counts() -> dict[Status, int]:
    return dict.fromkeys(_STATUSES, 0)


def _checked_counts(scorer_id: str, raw: Mapping[Any, Any]) -> dict[Status, int]:
    counts = _no_counts()
    for status, n in raw.items():
        if status not in counts or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ConfigError(
                f"summary of {scorer_id!r}: bad count {status!r}: {n!r}", field="counts"
            )
        counts[status] = n
    return counts


def _is_score(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Histogram:
    """Scores counted in equal-width bins.

    Bin ``i`` is ``[edges[i], edges[i + 1])``; the last bin also holds ``edges[-1]``.

    Attributes:
        edges: ``len(counts) + 1`` ascending bin edges.
        counts: scores per bin, each >= 0.
    """

    edges: tuple[float, ...]
    counts: tuple[int, ...]

    @property
    def low(self) -> float:
        """The lower edge of the first bin."""
        return self.edges[0]

    @property
    def high(self) -> float:
        """The upper edge of the last bin."""
        return self.edges[-1]

    @property
    def total(self) -> int:
        """Scores counted."""
        return sum(self.counts)

    def to_dict(self) -> dict[str, list[Any]]:
        """Return ``{"edges": [...], "counts": [...]}`` as JSON data."""
        return {"edges": list(self.edges), "counts": list(self.counts)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Histogram:
        """Read what :meth:`to_dict` wrote.

        Raises:
            ConfigError: the data is not a histogram (``field="histogram"``).
        """
        edges, counts = data.get("edges"), data.get("counts")
        if (
            not isinstance(edges, list)
            or not isinstance(counts, list)
            or len(edges) != len(counts) + 1
            or not counts
            or not all(_is_score(e) for e in edges)
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts)
        ):
            raise ConfigError(f"not a histogram: {dict(data)!r}", field="histogram")
        return cls(tuple(float(e) for e in edges), tuple(counts))


def bin_scores(
    scores: Iterable[float],
    *,
    bins: int = DEFAULT_BINS,
    low: float = 0.0,
    high: float | None = None,
) -> Histogram:
    """Count scores in ``bins`` equal-width bins from ``low`` to ``high``.

    Scores are usually in [0, 1]; with ``high=None`` the range reaches ``max(1, max(scores))``,
    so a scorer with ``scale > 1`` widens it to its largest score. A score below ``low`` falls in
    the first bin, one at or above ``high`` in the last.

    Args:
        scores: finite scores.
        bins: number of bins, >= 1.
        low: the lower edge of the first bin.
        high: the upper edge of the last bin, > ``low``; ``None`` for ``max(1, max(scores))``.

    Returns:
        The histogram; its counts add up to the number of scores.

    Raises:
        ConfigError: ``bins < 1`` or the range is empty (``high <= low``).

    Example:
        >>> bin_scores([0.0, 0.05, 0.5, 1.0], bins=2).counts
        (2, 2)
        >>> bin_scores([0.3, 0.6, 0.7]).counts[3:8]
        (1, 0, 0, 1, 1)
    """
    values = list(scores)
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ConfigError(f"bins must be an integer >= 1, got {bins!r}", field="bins")
    top = max([1.0, *values]) if high is None else high
    if not (_is_score(low) and _is_score(top) and top > low):
        raise ConfigError(f"the histogram needs low < high, got {low!r} and {top!r}", field="high")
    width = (top - low) / bins
    counts = [0] * bins
    for score in values:
        index = math.floor(round((score - low) / width, _EDGE_DIGITS))
        counts[min(max(index, 0), bins - 1)] += 1
    edges = [low + (top - low) * i / bins for i in range(bins)]
    return Histogram((*edges, float(top)), tuple(counts))


@dataclass(frozen=True)
class _Stored:
    """The statistics of a summary read back without its (one or more) ``ok`` scores."""

    mean: float
    median: float
    minimum: float
    maximum: float
    histogram: Histogram | None


@dataclass(init=False)
class ScoreSummary:
    """One scorer's results over a run: counts by status and the ``ok`` scores.

    Only ``ok`` results carry a score; ``skipped`` and ``error`` results are counted. Every
    statistic is ``None`` when there is no ``ok`` score, never NaN.

    Args:
        scorer_id: the scorer's id.
        counts: results per status so far (missing statuses count 0); default none.
        scores: the scores of the ``ok`` results, one per ``ok`` count; default none.

    Attributes:
        scorer_id: the scorer's id.
        counts: results per status (``ok``, ``skipped``, ``error``), each >= 0.
        scores: the scores of the ``ok`` results, in the order they were added, packed as
            ``array("d")`` (empty for a summary read back without its scores, see
            :attr:`has_scores`).

    Raises:
        ConfigError: a bad count (``field="counts"``); a score that is not a finite number, or
            not one score per ``ok`` count (``field="scores"``).

    Example:
        >>> first, second = ScoreSummary("s"), ScoreSummary("s")
        >>> first.add_score("ok", 0.5)
        >>> second.add_score("ok", 1.0)
        >>> second.add_score("skipped")
        >>> whole = first.merge(second)
        >>> whole.counts, whole.mean, whole.maximum
        ({'ok': 2, 'skipped': 1, 'error': 0}, 0.75, 1.0)
    """

    scorer_id: str
    counts: dict[Status, int]
    scores: array[float]
    mean_interval: tuple[float, float] | None
    """The mean's 95 % bootstrap interval over items, where it was measured
    (:func:`scorekit.trust.estimates.with_mean_interval`; the store measures it for every summary
    it reads or writes); ``None`` otherwise. Kept by :meth:`to_dict` / :meth:`from_dict`, cleared
    by :meth:`add_score` and not carried by :meth:`merge` (the scores changed)."""
    _stored: _Stored | None = field(default=None, repr=False)

    def __init__(
        self,
        scorer_id: str,
        counts: Mapping[Status, int] | None = None,
        scores: Iterable[float] = (),
    ) -> None:
        self.scorer_id = scorer_id
        self.counts = counts = _checked_counts(scorer_id, counts or {})
        try:
            self.scores = array("d", scores)
        except TypeError as exc:  # a string, None or another non-number among the scores
            raise ConfigError(
                f"summary of {scorer_id!r}: bad scores ({exc})", field="scores"
            ) from None
        self._stored = None
        self.mean_interval = None
        if not all(map(math.isfinite, self.scores)):
            raise ConfigError(
                f"summary of {scorer_id!r}: every score must be finite (no NaN or infinity)",
                field="scores",
            )
        if len(self.scores) != counts["ok"]:
            raise ConfigError(
                f"summary of {self.scorer_id!r} holds {len(self.scores)} scores for "
                f"{counts['ok']} ok results",
                field="scores",
            )

    # -- counting --------------------------------------------------------------------------

    def add(self, result: ScorerRunResult) -> None:
        """Count one scorer run result (and keep its score when it is ``ok``).

        Raises:
            ConfigError: as :meth:`add_score`.
        """
        self.add_score(result.status, result.score)

    def add_score(self, status: Status, score: float | None = None) -> None:
        """Count one result given by its status and score.

        Args:
            status: ``"ok"``, ``"skipped"`` or ``"error"``.
            score: the score of an ``ok`` result, a finite number; ignored otherwise.

        Raises:
            ConfigError: an unknown status (``field="status"``), an ``ok`` result without a
                finite score (``field="score"``), or a summary read back without its scores
                (``field="scores"``).
        """
        self._need_scores("add to")
        self.mean_interval = None
        if status not in self.counts:
            raise ConfigError(f"unknown status {status!r}", field="status")
        if status == "ok":
            if score is None or not _is_score(score):
                raise ConfigError(
                    f"an ok result of {self.scorer_id!r} needs a finite score, got {score!r}",
                    field="score",
                )
            self.scores.append(float(score))
        self.counts[status] += 1

    def merge(self, other: ScoreSummary) -> ScoreSummary:
        """Return the summary of both summaries' results (neither is changed).

        A pure union: counts add up and the scores are this summary's followed by the other's,
        so every statistic is exactly that of the whole.

        Raises:
            ConfigError: the scorer ids differ (``field="scorer_id"``), or a summary was read
                back without its scores (``field="scores"``).
        """
        if other.scorer_id != self.scorer_id:
            raise ConfigError(
                f"cannot merge summaries of {self.scorer_id!r} and {other.scorer_id!r}",
                field="scorer_id",
            )
        self._need_scores("merge")
        other._need_scores("merge")
        counts = {status: self.counts[status] + other.counts[status] for status in _STATUSES}
        return ScoreSummary(self.scorer_id, counts, self.scores + other.scores)

    def _need_scores(self, action: str) -> None:
        if self._stored is not None:
            raise ConfigError(
                f"cannot {action} the summary of {self.scorer_id!r}: it was read from stored "
                "totals, which keep its statistics but not its scores",
                field="scores",
            )

    # -- statistics ------------------------------------------------------------------------

    @property
    def has_scores(self) -> bool:
        """Whether the summary holds every ``ok`` score (``False`` when read from totals)."""
        return self._stored is None

    @property
    def total(self) -> int:
        """Results counted, whatever their status."""
        return sum(self.counts.values())

    @property
    def mean(self) -> float | None:
        """Mean score of ``ok`` results (``math.fsum`` / n, as Mastra ``runEvals`` scores)."""
        if self._stored is not None:
            return self._stored.mean
        if not self.scores:
            return None
        try:
            return math.fsum(self.scores) / len(self.scores)
        except OverflowError:  # scores near the float maximum (a huge scale): divide first
            n = len(self.scores)
            return math.fsum(score / n for score in self.scores)

    @property
    def median(self) -> float | None:
        """Median score of ``ok`` results (mean of the middle two for an even count)."""
        if self._stored is not None:
            return self._stored.median
        return float(statistics.median(self.scores)) if self.scores else None

    @property
    def minimum(self) -> float | None:
        """Lowest score of ``ok`` results."""
        if self._stored is not None:
            return self._stored.minimum
        return float(min(self.scores)) if self.scores else None

    @property
    def maximum(self) -> float | None:
        """Highest score of ``ok`` results."""
        if self._stored is not None:
            return self._stored.maximum
        return float(max(self.scores)) if self.scores else None

    def histogram(
        self, bins: int = DEFAULT_BINS, low: float = 0.0, high: float | None = None
    ) -> Histogram:
        """Count the ``ok`` scores in ``bins`` equal-width bins (see :func:`bin_scores`).

        Args:
            bins: number of bins, >= 1.
            low: the lower edge of the first bin.
            high: the upper edge of the last bin; ``None`` for ``max(1, max(scores))``.

        Raises:
            ConfigError: bad bins or range; or the summary was read from totals (which keep
                only the default histogram) and other bins are asked for.
        """
        stored = self._stored
        if stored is None:
            return bin_scores(self.scores, bins=bins, low=low, high=high)
        kept = stored.histogram
        if kept is not None and (
            len(kept.counts) == bins and kept.low == low and high in (None, kept.high)
        ):
            return kept
        raise ConfigError(
            f"the summary of {self.scorer_id!r} was read from stored totals, which keep only "
            f"the default histogram ({DEFAULT_BINS} bins from 0), not bins={bins}, low={low}, "
            f"high={high}",
            field="scores",
        )

    # -- JSON ------------------------------------------------------------------------------

    def to_dict(self, *, scores: bool = False) -> dict[str, Any]:
        """Return the summary as JSON data (the shape of the run row's ``totals`` entries).

        ``{"counts", "mean", "median", "min", "max", "histogram"}``: the first five are the
        keys older rows hold; ``histogram`` is the default one (:data:`DEFAULT_BINS` bins);
        ``"mean_interval"`` (``[low, high]``) where :attr:`mean_interval` is known.

        Args:
            scores: also keep every ``ok`` score under ``"scores"``, so that :meth:`from_dict`
                gives back a summary that can be merged (large: one number per result).

        Raises:
            ConfigError: ``scores=True`` on a summary read back without its scores.
        """
        data: dict[str, Any] = {
            "counts": dict(self.counts),
            "mean": self.mean,
            "median": self.median,
            "min": self.minimum,
            "max": self.maximum,
        }
        if self._stored is None or self._stored.histogram is not None:
            data["histogram"] = self.histogram().to_dict()
        if self.mean_interval is not None:
            data["mean_interval"] = list(self.mean_interval)
        if scores:
            self._need_scores("write the scores of")
            data["scores"] = self.scores.tolist()
        return data

    @classmethod
    def from_dict(cls, scorer_id: str, data: Mapping[str, Any]) -> ScoreSummary:
        """Read what :meth:`to_dict` wrote (or a ``totals`` entry of an older run row).

        Args:
            scorer_id: the scorer the data belongs to (the key of the ``totals`` entry).
            data: ``{"counts", "mean", "median", "min", "max"}``, optionally ``"histogram"``,
                ``"mean_interval"`` (``[low, high]``) and ``"scores"``.

        Returns:
            With ``"scores"``, a summary equal to the one written. Without, a summary with the
            stored counts and statistics that holds no scores (:attr:`has_scores` is
            ``False``): it can be shown but not merged or added to.

        Raises:
            ConfigError: the data is not a summary (the field says which part).
        """
        raw_counts = data.get("counts")
        if not isinstance(raw_counts, Mapping):
            raise ConfigError(f"summary of {scorer_id!r} has no counts", field="counts")
        counts = _checked_counts(scorer_id, raw_counts)
        if counts["ok"] == 0:
            return cls(scorer_id, counts)  # no score to keep: the summary is whole
        if "scores" in data:
            found = data["scores"]
            if not isinstance(found, list) or not all(_is_score(s) for s in found):
                raise ConfigError(f"summary of {scorer_id!r}: bad scores", field="scores")
            whole = cls(scorer_id, counts, (float(s) for s in found))
            whole.mean_interval = _interval(scorer_id, data)
            return whole
        summary = cls(scorer_id)
        summary.mean_interval = _interval(scorer_id, data)
        summary.counts = counts
        histogram = data.get("histogram")
        summary._stored = _Stored(
            mean=_statistic(scorer_id, data, "mean"),
            median=_statistic(scorer_id, data, "median"),
            minimum=_statistic(scorer_id, data, "min"),
            maximum=_statistic(scorer_id, data, "max"),
            histogram=None if histogram is None else Histogram.from_dict(histogram),
        )
        return summary


def _statistic(scorer_id: str, data: Mapping[str, Any], key: str) -> float:
    # called only when there are ok results: each statistic is then a number
    value = data.get(key)
    if value is None or not _is_score(value):
        raise ConfigError(f"summary of {scorer_id!r}: bad {key} {value!r}", field=key)
    return float(value)


def _interval(scorer_id: str, data: Mapping[str, Any]) -> tuple[float, float] | None:
    value = data.get("mean_interval")
    if value is None:
        return None  # an older row, or a summary whose interval was not measured
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(_is_score(v) for v in value)
        or value[0] > value[1]
    ):
        raise ConfigError(
            f"summary of {scorer_id!r}: bad mean_interval {value!r}", field="mean_interval"
        )
    return float(value[0]), float(value[1])
