"""The gates' settings of a run, checked and resolved to the run's scorer ids.

The rules themselves (no ``ok`` result, mean below the threshold, error rate above its limit)
are pure functions of the summaries in :mod:`scorekit.verdict`, which the run loop and every
view read; this module checks what a user asked for before a run starts. Keys of ``thresholds`` and
``max_error_rate`` may be scorer ids or any name the registry knows for a scorer of the run
(``"faithfulness"`` for ``"faithfulness-scorer"``): :func:`resolve_scorer_keys`, the one
resolution the command line and the Python API share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError
from scorekit.verdict import (
    DEFAULT_MAX_ERROR_RATE,
    error_rate,
    format_rate,
    run_verdict,
    scorer_failures,
)

__all__ = [
    "DEFAULT_MAX_ERROR_RATE",
    "check_max_error_rate",
    "check_threshold_ranges",
    "check_thresholds",
    "error_rate",
    "format_rate",
    "resolve_scorer_keys",
    "run_verdict",
    "scorer_failures",
]


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


def check_threshold_ranges(thresholds: Mapping[str, float], scorers: Sequence[Any]) -> None:
    """Refuse a threshold no score of its scorer can reach: the gate could never pass.

    A built-in scorer's scores lie in ``[0, scale]`` (``scorers.registry.score_ceiling``); a
    scorer whose range is not known is not checked.

    Raises:
        ConfigError: a threshold below 0 or above its scorer's ceiling (``field="thresholds"``).
    """
    from scorekit.scorers.registry import score_ceiling  # the registry imports every scorer

    for scorer in scorers:
        minimum = thresholds.get(scorer.id)
        ceiling = score_ceiling(scorer) if minimum is not None else None
        if minimum is not None and ceiling is not None and not 0 <= minimum <= ceiling:
            never = "could never pass" if minimum > ceiling else "would always pass"
            raise ConfigError(
                f"threshold {minimum:g} for {scorer.id!r} is outside its score range "
                f"[0, {ceiling:g}]: the gate {never}",
                field="thresholds",
            )


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
