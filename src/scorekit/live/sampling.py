"""Which live calls a scorer scores: deterministic ratio sampling, as Mastra's current main does.

A scorer attached to live calls has a *sampling* setting (mastra-core.md §6.1, §6.2 step 4):

* none (``None``, or ``{"type": "none"}``): every call is scored;
* ``{"type": "ratio", "rate": r}`` with ``0 <= r <= 1``: a call is scored when the fraction of
  its *sampling key* is below ``r``. The key is the call's OpenTelemetry trace id when a span is
  current, else the call's run id; its fraction is the first 6 bytes of the SHA-256 of the
  key's UTF-8 text, read as a big-endian integer, divided by ``2**48`` (a number in
  ``[0, 1)``). So the same trace is sampled the same way by every process and by Mastra's
  TypeScript services, and every scorer with rate ``r`` scores the same calls.

Mastra skips a call whose sampling type it does not know; here an unknown type, or a rate
outside ``[0, 1]``, is a :class:`~scorekit.errors.ConfigError` when the scorer is attached.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorekit.errors import ConfigError

__all__ = ["Sampling", "read_sampling", "sample_fraction"]

_SCALE = float(2**48)  # 6 bytes of the digest


def sample_fraction(key: str) -> float:
    """The sampling fraction of a key: SHA-256's first 6 bytes, big-endian, over ``2**48``.

    Args:
        key: a trace id (32 hex digits) or a run id; any text (UTF-8 encoded).

    Returns:
        A number in ``[0, 1)``.

    Example:
        >>> sample_fraction("abc")  # sha256("abc") starts ba 78 16 bf 8f 01
        0.7283949105903993
    """
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:6], "big") / _SCALE


@dataclass(frozen=True)
class Sampling:
    """A scorer's sampling of live calls.

    Attributes:
        rate: the share of calls scored, in ``[0, 1]``; ``None``: every call (no sampling).
    """

    rate: float | None = None

    def samples(self, key: str) -> bool:
        """Whether the call with this sampling key is scored.

        Args:
            key: the call's trace id, else its run id.
        """
        if self.rate is None:
            return True
        if self.rate <= 0.0:
            return False  # no hash needed: nothing is below 0
        return sample_fraction(key) < self.rate

    def to_dict(self) -> dict[str, Any]:
        """Mastra's form: ``{"type": "none"}`` or ``{"type": "ratio", "rate": r}``."""
        if self.rate is None:
            return {"type": "none"}
        return {"type": "ratio", "rate": self.rate}


def read_sampling(value: Any, *, field: str = "sampling") -> Sampling:
    """Read a sampling setting in Mastra's shape.

    Args:
        value: ``None``, a :class:`Sampling`, ``{"type": "none"}`` or
            ``{"type": "ratio", "rate": r}`` with ``r`` a number in ``[0, 1]``.
        field: the name errors give for the setting.

    Raises:
        ConfigError: another shape, an unknown type, or a rate that is not a finite number in
            ``[0, 1]`` (``field`` names the setting, or ``<field>.rate``).

    Example:
        >>> read_sampling({"type": "ratio", "rate": 0.1})
        Sampling(rate=0.1)
    """
    if value is None or isinstance(value, Sampling):
        return value or Sampling()
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"{field} must be {{'type': 'ratio', 'rate': r}}, {{'type': 'none'}} or None, not "
            f"{value!r}",
            field=field,
        )
    kind = value.get("type")
    unknown = sorted(set(map(str, value)) - {"type", "rate"})
    if unknown:
        raise ConfigError(f"{field} has unknown key(s) {', '.join(unknown)}", field=field)
    if kind == "none":
        return Sampling()
    if kind != "ratio":
        raise ConfigError(
            f"{field}.type must be 'ratio' or 'none', not {kind!r}", field=f"{field}.type"
        )
    rate = value.get("rate")
    if (
        isinstance(rate, bool)
        or not isinstance(rate, (int, float))
        or not math.isfinite(rate)
        or not 0 <= rate <= 1
    ):
        raise ConfigError(
            f"{field}.rate must be a number from 0 to 1, not {rate!r}", field=f"{field}.rate"
        )
    return Sampling(float(rate))
