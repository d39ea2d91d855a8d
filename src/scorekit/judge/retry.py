"""``RetryingModel``: retries with exponential backoff and jitter.

Retried: HTTP 429, 408, 409 and 5xx answers and connection failures
(:class:`~scorekit.errors.JudgeHTTPError` with ``status_code == 0``). Not retried: other 4xx
answers, context-window refusals, timeouts (a hung server rarely recovers within another
timeout, and retrying would multiply the wait) and every non-HTTP error.

The wait before retry ``n`` (1-based) is the server's ``Retry-After`` when it sent one (capped
at :data:`MAX_WAIT_S`), else ``backoff * 2 ** (n - 1)`` scaled by a random factor in
``[0.5, 1)`` ("equal jitter", so many clients throttled together do not retry in lockstep),
also capped. The layer sits above the rate limiter, so each attempt queues for a slot and a
request waiting out its backoff holds none.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import replace

from scorekit.errors import JudgeError, JudgeHTTPError
from scorekit.judge.model import JudgeModel, JudgeRequest, JudgeResponse, JudgeUsage

__all__ = ["MAX_WAIT_S", "RetryingModel", "is_retryable"]

MAX_WAIT_S = 60.0
"""The longest wait before one retry, in seconds, whatever ``Retry-After`` says."""

_RETRY_STATUSES = frozenset({0, 408, 409, 429})
_log = logging.getLogger("scorekit.judge")


def is_retryable(error: JudgeError) -> bool:
    """Whether ``error`` is a transient HTTP failure worth another attempt."""
    if not isinstance(error, JudgeHTTPError):
        return False
    return error.status_code in _RETRY_STATUSES or 500 <= error.status_code < 600


class RetryingModel:
    """Wrap ``inner`` with retries.

    Args:
        inner: the model below.
        max_retries: retries after the first attempt, ``>= 0``.
        backoff: the first wait in seconds without ``Retry-After``, ``>= 0``.
        jitter: returns a random number in ``[0, 1)`` (injectable for tests).

    The returned response's ``attempts`` counts every attempt; a final error carries the
    attempt count in ``error.usage.attempts`` (its other usage fields, such as the deadline
    the timeout layer set, are kept).
    """

    def __init__(
        self,
        inner: JudgeModel,
        *,
        max_retries: int,
        backoff: float,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.inner = inner
        self.max_retries = max_retries
        self.backoff = backoff
        self._jitter = jitter

    @property
    def model_id(self) -> str:
        """The inner model's id."""
        return self.inner.model_id

    def __repr__(self) -> str:
        return f"RetryingModel({self.inner!r}, max_retries={self.max_retries})"

    def delay(self, retry: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        if retry_after is not None:
            return min(MAX_WAIT_S, retry_after)
        exponential: float = self.backoff * 2.0 ** (retry - 1)
        return min(MAX_WAIT_S, exponential * (0.5 + self._jitter() / 2))

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Forward the request, retrying transient failures.

        Raises:
            JudgeError: the last failure, with ``usage.attempts`` set.
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self.inner.complete(request)
            except JudgeError as exc:
                if not is_retryable(exc) or attempt > self.max_retries:
                    # what the layers below said (the attempt's deadline) is kept
                    exc.usage = replace(exc.usage or JudgeUsage(), attempts=attempt)
                    raise
                wait = self.delay(attempt, getattr(exc, "retry_after", None))
                _log.warning(
                    "judge %s: retry %d/%d in %.2f s after: %s",
                    self.model_id,
                    attempt,
                    self.max_retries,
                    wait,
                    exc,
                )
                await asyncio.sleep(wait)
                continue
            return replace(response, attempts=attempt) if attempt != 1 else response
