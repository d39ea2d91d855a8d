"""The texts of ``scorekit run``'s repeatable options, read into values.

``key=value`` pairs with JSON values (``--option``, ``--threshold``), ``--max-error-rate``'s
bare share or ``scorer=share``, and ``--min-agreement``'s ``scorer:figure[.low]=minimum``.
Each refuses a text of the wrong shape with a :class:`~scorekit.errors.ConfigError` naming
the flag; what the values mean is checked where they are used (the run's gates).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from scorekit.errors import ConfigError

__all__ = ["parse_agreement_gates", "parse_error_rates", "parse_pairs", "parse_value"]


def parse_value(text: str) -> Any:
    """Read an option value as JSON (``false``, ``2.5``, ``["a"]``), else as a plain string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_pairs(raw: Sequence[str], *, flag: str, what: str) -> dict[str, Any]:
    """Read ``key=value`` texts (values as JSON where they parse).

    Raises:
        ConfigError: a text without ``=`` or without a key, or a key given twice (a second
            value would silently win) (``field`` is ``flag`` without its dashes).
    """
    found: dict[str, Any] = {}
    for text in raw:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} {text!r}: expected {what}", field=flag.lstrip("-"))
        if key in found:
            raise ConfigError(f"{flag} gives {key!r} twice; give it once", field=flag.lstrip("-"))
        found[key] = parse_value(value)
    return found


def parse_agreement_gates(raw: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Read ``--min-agreement SCORER:FIGURE=MIN`` texts into ``run_evals``' ``min_agreement``.

    ``FIGURE.low`` gates the 95 % interval's lower bound; ``run_evals`` checks the result.

    Raises:
        ConfigError: a text not of that shape (``field="min-agreement"``).

    Example:
        >>> parse_agreement_gates(["faithfulness:kappa.low=0.4", "faithfulness:auroc=0.7"])
        {'faithfulness': {'kappa.low': 0.4, 'auroc': 0.7}}
    """
    gates: dict[str, dict[str, Any]] = {}
    pairs = parse_pairs(raw, flag="--min-agreement", what="scorer:figure=minimum")
    for key, value in pairs.items():
        scorer, sep, figure = key.rpartition(":")
        if not sep or not scorer or not figure:
            raise ConfigError(
                f"--min-agreement {key}={value}: expected scorer:figure=minimum",
                field="min-agreement",
            )
        gates.setdefault(scorer, {})[figure] = value  # FIGURE.low: checked by run_evals
    return gates


def parse_error_rates(raw: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    """Read ``--max-error-rate`` texts: ``0.05`` (every scorer) and/or ``scorer=0.1``.

    Returns:
        The bare number (``None`` without one) and scorer → number; the pairs override the
        number for their scorers (``--max-error-rate 0.01 --max-error-rate faithfulness=0.1``).

    Raises:
        ConfigError: a text that is neither (``field="max-error-rate"``).
    """
    overall: Any = None
    pairs: dict[str, Any] = {}
    for text in raw:
        if "=" in text:
            pairs.update(parse_pairs([text], flag="--max-error-rate", what="scorer=share"))
            continue
        overall = parse_value(text)
        if isinstance(overall, str):
            raise ConfigError(
                f"--max-error-rate {text!r}: expected a share from 0 to 1, or scorer=share",
                field="max-error-rate",
            )
    return overall, pairs
