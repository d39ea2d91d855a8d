"""Mastra's score rounding (two decimals, JavaScript half-up, epsilon nudge) and display.

Mastra evals 1.10.2 ``roundToTwoDecimals(x) = Math.round((x + Number.EPSILON) * 100) / 100``
(mastra-scorers.md §1.4). JavaScript's ``Math.round`` rounds halves toward +∞, unlike Python's
``round`` (halves to even), and the epsilon lifts values such as ``0.575`` whose binary form
falls just below the half. Scores must match Mastra to the last bit, so this module reproduces
both exactly.
"""

from __future__ import annotations

import math

__all__ = [
    "JS_EPSILON",
    "js_number_text",
    "js_round",
    "round_to_two_decimals",
    "round_to_two_decimals_without_epsilon",
]

JS_EPSILON = 2.220446049250313e-16
"""JavaScript ``Number.EPSILON`` (2**-52), the same as ``sys.float_info.epsilon``."""


def js_round(value: float) -> float:
    """Round to the nearest integer the way JavaScript's ``Math.round`` does.

    Halves go toward +∞ (``js_round(2.5) == 3``, ``js_round(-2.5) == -2``). Unlike
    ``floor(value + 0.5)`` this is exact for values such as ``0.49999999999999994``, whose sum
    with 0.5 rounds up to 1 in floating point.

    Args:
        value: any float; NaN and ±inf are returned unchanged.

    Returns:
        The rounded value, as a float.
    """
    if not math.isfinite(value):
        return value
    floor = math.floor(value)
    # value - floor is exact in binary floating point, so the comparison with 0.5 is too
    return float(floor + 1 if value - floor >= 0.5 else floor)


def round_to_two_decimals(value: float) -> float:
    """Round a score to two decimals exactly as Mastra evals 1.10.2 does.

    Formula: ``Math.round((value + Number.EPSILON) * 100) / 100`` (``roundToTwoDecimals``).

    Args:
        value: a finite score.

    Returns:
        The rounded score: ``1.005 → 1.01``, ``0.125 → 0.13``, ``0.575 → 0.58``,
        ``0.835 → 0.84`` (Python's ``round`` gives 1.0, 0.12, 0.57, 0.83).

    Example:
        >>> round_to_two_decimals(2 / 3)
        0.67
    """
    return js_round((value + JS_EPSILON) * 100) / 100


def round_to_two_decimals_without_epsilon(value: float) -> float:
    """Round to two decimals as ``Math.round(value * 100) / 100``, without Mastra's epsilon.

    Mastra evals 1.10.2's unified trajectory scorer rounds its final and nested scores this way
    (mastra-scorers.md §1.4), so values whose binary form falls just below a half round down.

    Args:
        value: a finite score.

    Returns:
        The rounded score: ``0.575 → 0.57`` (``round_to_two_decimals`` gives 0.58),
        ``0.125 → 0.13``, ``1.005 → 1.0``.

    Example:
        >>> round_to_two_decimals_without_epsilon(0.575)
        0.57
    """
    return js_round(value * 100) / 100


def js_number_text(value: float) -> str:
    """Write a score as JavaScript prints a number in reasons: ``1.0 → "1"``, ``0.64 → "0.64"``.

    Args:
        value: a finite number.
    """
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text
