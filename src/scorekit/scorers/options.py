"""Validation of the options scorer factories share (``scale``, ``compare_to``, ``reason``).

Each factory validates its keyword options when it is called, before any run or judge call,
and raises :class:`~scorekit.errors.ConfigError` naming the option.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal, get_args

from scorekit.errors import ConfigError
from scorekit.inputs.messages import joined_text

__all__ = [
    "CompareTo",
    "ReasonMode",
    "check_compare_to",
    "check_flag",
    "check_reason",
    "check_scale",
    "reference_text",
]

CompareTo = Literal["auto", "input", "ground_truth"]
"""Which run field a code scorer compares the output with (divergences.md row 9)."""

ReasonMode = Literal["llm", "template", "none"]
"""How an LLM scorer writes its reason: the judge explains the score (one more call, Mastra's
way), a template states the judgements the score came from (no call), or no reason at all."""


def check_scale(scale: Any, *, field: str = "scale") -> float:
    """Return ``scale`` as a float, or raise when it is not a finite number > 0.

    Mastra 1.10.2 silently turns ``scale=0`` into 1; scorekit refuses it (divergences.md row 4).

    Raises:
        ConfigError: not a number, not finite, or ``<= 0``.
    """
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise ConfigError(f"{field} must be a number, not {type(scale).__name__}", field=field)
    if not math.isfinite(scale) or scale <= 0:
        raise ConfigError(f"{field} must be a finite number > 0, got {scale!r}", field=field)
    return float(scale)


def check_flag(value: Any, *, field: str) -> bool:
    """Return ``value`` when it is a bool.

    Raises:
        ConfigError: any other type (a string ``"false"`` would otherwise read as true).
    """
    if not isinstance(value, bool):
        raise ConfigError(f"{field} must be true or false, got {value!r}", field=field)
    return value


def check_reason(value: Any) -> ReasonMode:
    """Return ``value`` when it is ``"llm"``, ``"template"`` or ``"none"``.

    Raises:
        ConfigError: any other value (``field="reason"``).
    """
    if value not in get_args(ReasonMode):
        raise ConfigError(
            f"reason must be 'llm', 'template' or 'none', got {value!r}", field="reason"
        )
    return value  # type: ignore[no-any-return]


def check_compare_to(value: Any) -> CompareTo:
    """Return ``value`` when it is ``"auto"``, ``"input"`` or ``"ground_truth"``.

    Raises:
        ConfigError: any other value.
    """
    allowed = get_args(CompareTo)
    if value not in allowed:
        raise ConfigError(
            f"compare_to must be one of {', '.join(map(repr, allowed))}, got {value!r}",
            field="compare_to",
        )
    return value  # type: ignore[no-any-return]


def reference_text(input: Any, ground_truth: Any, compare_to: CompareTo) -> str:
    """Return the text a code scorer compares the output with (divergences.md row 9).

    ``"auto"``: the ground truth when it is given (not ``None``), else the input;
    ``"input"`` / ``"ground_truth"``: that field. Texts of several messages are joined with
    ``", "`` (Mastra code scorers).

    Raises:
        ConfigError: the chosen field is missing (``None``) — for ``"auto"``, when the run has
            neither a ground truth nor an input — or has no accepted shape.
    """
    if compare_to == "input" or (compare_to == "auto" and ground_truth is None):
        if input is None:
            raise ConfigError(
                "the run has no input to compare the output with"
                + (" (and no ground_truth)" if compare_to == "auto" else ""),
                field="input",
            )
        return joined_text(input, field="input")
    if ground_truth is None:
        raise ConfigError(
            "compare_to='ground_truth' but the run has no ground_truth", field="ground_truth"
        )
    return joined_text(ground_truth, field="ground_truth")
