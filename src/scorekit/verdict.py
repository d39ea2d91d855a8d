"""The verdict of a run: its gates' rules, per scorer, in one place.

A run's verdict is ``failed`` when any scorer fails a gate:

- it got no ``ok`` result at all (nothing was measured);
- its mean is below its threshold (``thresholds``: scorer → minimum mean);
- its error rate (``error`` results / all its results) is above its ``max_error_rate``
  (default :data:`DEFAULT_MAX_ERROR_RATE`, 0: any error fails; 1 turns the gate off);
- it failed a gate of its own kind, given as reasons (``min_agreement``: its agreement with
  the run's human labels, :mod:`scorekit.trust.min_agreement`).

``run_evals``, ``scorekit run``, ``scorekit show``, the HTML report and the viewer read the
gates through :func:`scorer_failures`, so they always give the same reasons. The settings are
checked before a run in :mod:`scorekit.evals.gates`.

Ground floor: imports nothing of ours but :mod:`scorekit.summary`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from scorekit.summary import ScoreSummary

__all__ = [
    "DEFAULT_MAX_ERROR_RATE",
    "error_rate",
    "format_rate",
    "run_verdict",
    "scorer_failures",
]

DEFAULT_MAX_ERROR_RATE = 0.0
"""The error-rate limit of a scorer without its own: any ``error`` result fails the verdict.

Means are over ``ok`` results only, so errors that cluster on hard items quietly lift the
mean; transient judge failures are already retried, so what is left is a real failure to
measure. ``--resume`` re-scores just the errors. Tolerate a known share with
``max_error_rate`` (1 turns the gate off).
"""


def error_rate(summary: ScoreSummary) -> float | None:
    """``error`` results / all results of a scorer; ``None`` without results."""
    total = sum(summary.counts.values())
    return summary.counts["error"] / total if total else None


def format_rate(value: float | None) -> str:
    """A share as a percentage (``25%``, ``33.3%``, ``0.001%``); never rounds a non-zero to 0.

    Example:
        >>> format_rate(0.25), format_rate(1 / 3), format_rate(0.0), format_rate(None)
        ('25%', '33.3%', '0%', '—')
    """
    if value is None:
        return "—"
    return "0%" if value == 0 else f"{value * 100:.3g}%"


def scorer_failures(
    summaries: Mapping[str, ScoreSummary],
    thresholds: Mapping[str, float],
    max_error_rates: Mapping[str, float] | None = None,
    more: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[str]]:
    """Each scorer's failed gates, as short reasons (an empty list: it passed).

    Args:
        summaries: scorer id → summary.
        thresholds: scorer id → minimum mean.
        max_error_rates: scorer id → error-rate limit; a scorer left out gets
            :data:`DEFAULT_MAX_ERROR_RATE`; ``None``: no error-rate gate (runs stored before
            the gate existed).
        more: scorer id → the reasons of other gates it failed (the agreement gates), added
            after the others.
    """
    found: dict[str, list[str]] = {}
    for sid, summary in summaries.items():
        reasons = []
        if summary.counts["ok"] == 0:
            reasons.append("no ok result")
        minimum = thresholds.get(sid)
        if minimum is not None and summary.mean is not None and summary.mean < minimum:
            reasons.append(f"mean {summary.mean:.4f} < {minimum:g}")
        if max_error_rates is not None:
            limit = max_error_rates.get(sid, DEFAULT_MAX_ERROR_RATE)
            rate = error_rate(summary)
            if rate is not None and rate > limit:
                reasons.append(f"error rate {format_rate(rate)} > {format_rate(limit)}")
        reasons.extend((more or {}).get(sid, ()))
        found[sid] = reasons
    return found


def run_verdict(
    summaries: Mapping[str, ScoreSummary],
    thresholds: Mapping[str, float],
    max_error_rates: Mapping[str, float] | None = None,
    more: Mapping[str, Sequence[str]] | None = None,
) -> Literal["passed", "failed"]:
    """``"failed"`` when any scorer fails a gate (see :func:`scorer_failures`), else ``"passed"``.

    Example:
        >>> from scorekit.summary import ScoreSummary
        >>> run_verdict({"s": ScoreSummary("s")}, {})
        'failed'
    """
    failures = scorer_failures(summaries, thresholds, max_error_rates, more)
    return "failed" if any(failures.values()) else "passed"
