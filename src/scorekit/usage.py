"""``JudgeUsage``: what judge calls cost, summed (ground floor: imports no module of ours).

Every layer that spends judge calls reports its usage in this one type: the judge per call, a
scorer run per result, a run per scorer and in total. It lives here, below both the judge and
the results, so that errors, results and the store can name it without importing the judge.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    cache_hits: int = 0
    attempts: int = 0

    def __add__(self, other: JudgeUsage) -> JudgeUsage:
        return JudgeUsage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            latency_s=self.latency_s + other.latency_s,
            cache_hits=self.cache_hits + other.cache_hits,
            attempts=self.attempts + other.attempts,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the totals as a JSON-ready dict."""
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "latency_s": self.latency_s,
            "cache_hits": self.cache_hits,
            "attempts": self.attempts,
        }
