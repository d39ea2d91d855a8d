"""The verdict of a run: its gates, per scorer, in one place.

A run's verdict is ``failed`` when any scorer fails a gate:

- it got no ``ok`` result at all (nothing was measured);
- its mean is below its threshold (``thresholds``: scorer → minimum mean);
- its error rate (``error`` results / all its results) is above its ``max_error_rate``
  (default :data:`DEFAULT_MAX_ERROR_RATE`, 0: any error fails; 1 turns the gate off).

``run_evals``, ``scorekit run``, ``scorekit show`` and the HTML report read the gates through
:func:`scorer_failures`, so they always give the same reasons. Keys of ``thresholds`` and
``max_error_rate`` may be scorer ids or any name the registry knows for a scorer of the run
(``"faithfulness"`` for ``"faithfulness-scorer"``): :func:`resolve_scorer_keys`, the one
resolution the command line and the Python API share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from scorekit.errors import ConfigError
from scorekit.summary import ScoreSummary

__all__ = [
    "DEFAULT_MAX_ERROR_RATE",
    "check_max_error_rate",
    "check_thresholds",
    "error_rate",
    "format_rate",
    "resolve_scorer_keys",
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


def resolve_scorer_keys(
    raw: Mapping[Any, Any], scorer_ids: Sequence[str], *, field: str
) -> dict[str, Any]:
    """Map keys naming scorers (ids, or any name the registry knows) to the run's scorer ids.

    Args:
        raw: name → value.
        scorer_ids: the run's scorer ids.
        field: the setting's name, for errors (``"thresholds"``, ``"max_error_rate"``).

    Returns:
        Scorer id → value.

    Raises:
        ConfigError: ``raw`` is not a mapping, a key names no scorer of the run, or two keys
            name the same scorer (``field=field``).
    """
    if not isinstance(raw, Mapping):
        raise ConfigError(
            f"{field} must be a mapping of scorer to number, not {type(raw).__name__}",
            field=field,
        )
    ids = list(scorer_ids)
    found: dict[str, Any] = {}
    for key, value in raw.items():
        scorer_id = key if key in ids else _registry_id(key)
        if scorer_id not in ids:
            raise ConfigError(
                f"{field}: {key!r} is not a scorer of this run; scorers: {', '.join(ids)}",
                field=field,
            )
        if scorer_id in found:
            raise ConfigError(f"{field}: {scorer_id!r} is named twice", field=field)
        found[scorer_id] = value
    return found


def _registry_id(key: Any) -> str | None:
    if not isinstance(key, str) or not key or ":" in key:
        return None  # module:factory names are matched by their scorer id only: no import
    from scorekit.scorers.registry import get_entry  # the registry imports every scorer

    try:
        return get_entry(key).scorer_id or None
    except ConfigError:
        return None


def _number(value: Any, what: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{what} must be a finite number, got {value!r}", field=field)
    return float(value)


def check_thresholds(raw: Mapping[str, Any] | None, scorer_ids: Sequence[str]) -> dict[str, float]:
    """Validate ``thresholds``: scorer (id or name) → minimum mean.

    Raises:
        ConfigError: not a mapping, an unknown scorer, a value that is not a finite number
            (``field="thresholds"``).
    """
    if raw is None:
        return {}
    found = resolve_scorer_keys(raw, scorer_ids, field="thresholds")
    return {
        sid: _number(value, f"threshold for {sid!r}", "thresholds") for sid, value in found.items()
    }


def check_max_error_rate(
    raw: float | Mapping[str, Any] | None, scorer_ids: Sequence[str]
) -> dict[str, float]:
    """Validate ``max_error_rate``: one number for every scorer, or scorer → number.

    Scorers a mapping leaves out get :data:`DEFAULT_MAX_ERROR_RATE`; so do all with ``None``.

    Returns:
        Scorer id → limit, for every scorer of the run.

    Raises:
        ConfigError: a value that is not a number from 0 to 1, an unknown scorer
            (``field="max_error_rate"``).
    """
    field = "max_error_rate"
    limits = dict.fromkeys(scorer_ids, DEFAULT_MAX_ERROR_RATE)
    if raw is None:
        return limits
    given = (
        resolve_scorer_keys(raw, scorer_ids, field=field)
        if isinstance(raw, Mapping)
        else dict.fromkeys(scorer_ids, raw)
    )
    for sid, value in given.items():
        number = _number(value, f"max_error_rate for {sid!r}", field)
        if not 0 <= number <= 1:
            raise ConfigError(
                f"max_error_rate for {sid!r} is a share of results, from 0 to 1, not {value!r}",
                field=field,
            )
        limits[sid] = number
    return limits


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
) -> dict[str, list[str]]:
    """Each scorer's failed gates, as short reasons (an empty list: it passed).

    Args:
        summaries: scorer id → summary.
        thresholds: scorer id → minimum mean.
        max_error_rates: scorer id → error-rate limit; a scorer left out gets
            :data:`DEFAULT_MAX_ERROR_RATE`; ``None``: no error-rate gate (runs stored before
            the gate existed).
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
        found[sid] = reasons
    return found


def run_verdict(
    summaries: Mapping[str, ScoreSummary],
    thresholds: Mapping[str, float],
    max_error_rates: Mapping[str, float] | None = None,
) -> Literal["passed", "failed"]:
    """``"failed"`` when any scorer fails a gate (see :func:`scorer_failures`), else ``"passed"``.

    Example:
        >>> from scorekit.summary import ScoreSummary
        >>> run_verdict({"s": ScoreSummary("s")}, {})
        'failed'
    """
    failures = scorer_failures(summaries, thresholds, max_error_rates)
    return "failed" if any(failures.values()) else "passed"
