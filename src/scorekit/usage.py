"""``JudgeUsage``: what judge calls cost, summed (ground floor: imports no module of ours).

Every layer that spends judge calls reports its usage in this one type: the judge per call, a
scorer run per result, a run per scorer and in total. It lives here, below both the judge and
the results, so that errors, results and the store can name it without importing the judge.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["JudgeUsage"]


@dataclass(frozen=True)
class JudgeUsage:
    """Judge usage totals; add two with ``+``.

    Attributes:
        calls: judge requests made (each repair and each larger-budget retry counts; cache
            hits count too).
        input_tokens: prompt tokens billed, summed (a cache hit bills none).
        output_tokens: completion tokens billed, summed (a cache hit bills none).
        latency_s: wall time spent waiting for the judge, in seconds.
        cache_hits: requests answered from the cache (counted in ``calls`` too).
        attempts: transport attempts, summed: a request retried after a 429 counts two; a
            cache hit counts none.
        max_tokens: the reply budgets (``max_tokens``) of the calls sent to the model, summed
            (a call sent without one, and a cache hit, add nothing); the budget follows from
            the reply's schema (:mod:`scorekit.judge.budget`).
        max_tokens_per_call: the largest reply budget of one call.
        timeout_s: the deadlines of the calls sent to the model, in seconds, summed (one per
            call: each attempt of it had that deadline; a cache hit adds nothing).
        timeout_s_per_call: the longest deadline of one call, in seconds.
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    cache_hits: int = 0
    attempts: int = 0
    max_tokens: int = 0
    max_tokens_per_call: int = 0
    timeout_s: float = 0.0
    timeout_s_per_call: float = 0.0

    def __add__(self, other: JudgeUsage) -> JudgeUsage:
        return JudgeUsage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            latency_s=self.latency_s + other.latency_s,
            cache_hits=self.cache_hits + other.cache_hits,
            attempts=self.attempts + other.attempts,
            max_tokens=self.max_tokens + other.max_tokens,
            max_tokens_per_call=max(self.max_tokens_per_call, other.max_tokens_per_call),
            timeout_s=self.timeout_s + other.timeout_s,
            timeout_s_per_call=max(self.timeout_s_per_call, other.timeout_s_per_call),
        )

    @classmethod
    def budgets(cls, max_tokens: int | None, timeout_s: float | None) -> JudgeUsage:
        """The budgets of one call: its reply budget in tokens and its deadline in seconds.

        ``None`` (no budget, no deadline) counts 0. Added to a total, each shows in both its
        summed and its per-call field.
        """
        tokens, seconds = max_tokens or 0, timeout_s or 0.0
        return cls(
            max_tokens=tokens,
            max_tokens_per_call=tokens,
            timeout_s=seconds,
            timeout_s_per_call=seconds,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the totals as a JSON-ready dict (every field, by name)."""
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "latency_s": self.latency_s,
            "cache_hits": self.cache_hits,
            "attempts": self.attempts,
            "max_tokens": self.max_tokens,
            "max_tokens_per_call": self.max_tokens_per_call,
            "timeout_s": self.timeout_s,
            "timeout_s_per_call": self.timeout_s_per_call,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> JudgeUsage:
        """Read what :meth:`to_dict` wrote, also by an earlier version (missing fields are 0).

        Keys that are not fields, and values of the wrong type, are ignored (a stored run's
        usage is a record, never worth failing a read over).
        """
        if not isinstance(data, Mapping):
            return cls()
        values: dict[str, Any] = {}
        for field in fields(cls):
            value = data.get(field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not math.isfinite(value):
                continue
            values[field.name] = float(value) if field.type == "float" else int(value)
        return cls(**values)
