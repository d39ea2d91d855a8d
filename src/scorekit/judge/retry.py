"""``RetryingModel``: retries with exponential backoff and jitter.

Retried: HTTP 429, 408, 409 and 5xx answers and connection failures
(:class:`~scorekit.errors.JudgeHTTPError` with ``status_code == 0``). Not retried: other 4xx
answers, context-window refusals, timeouts (a hung server rarely recovers within another
timeout, and retrying would multiply the wait) and every non-HTTP error.

**A dead judge is not hammered.** A call that still cannot connect after its retries counts
against its endpoint's :class:`ConnectionBreaker` (shared by every judge on the same endpoint in
the process). After :data:`BREAK_AFTER` such calls in a row, no request is sent for
:data:`COOL_DOWN_S` seconds: calls fail at once with
:class:`~scorekit.errors.JudgeUnavailableError` saying why (their items become ``error``
results, which ``--resume`` scores again), and the run ends in minutes instead of retrying every
item for an hour. The first call after the pause is sent; a success closes the breaker, a
failure opens it again. The breaker says so once when it opens. Retry lines are printed for
the first :data:`RETRY_LINES` retries of an endpoint, then once more to say the rest are not.

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
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from scorekit.errors import JudgeError, JudgeHTTPError, JudgeUnavailableError
from scorekit.judge.model import JudgeModel, JudgeRequest, JudgeResponse, JudgeUsage

__all__ = [
    "BREAK_AFTER",
    "COOL_DOWN_S",
    "MAX_WAIT_S",
    "RETRY_LINES",
    "ConnectionBreaker",
    "RetryingModel",
    "is_retryable",
    "shared_breaker",
]

MAX_WAIT_S = 60.0
"""The longest wait before one retry, in seconds, whatever ``Retry-After`` says."""

BREAK_AFTER = 5
"""Calls in a row that fail to connect after their retries before the breaker opens."""
COOL_DOWN_S = 60.0
"""Seconds an open breaker sends nothing."""
RETRY_LINES = 10
"""Retry lines printed per endpoint before the rest are only counted."""

_RETRY_STATUSES = frozenset({0, 408, 409, 429})
_log = logging.getLogger("scorekit.judge")


def is_retryable(error: JudgeError) -> bool:
    """Whether ``error`` is a transient HTTP failure worth another attempt."""
    if not isinstance(error, JudgeHTTPError):
        return False
    return error.status_code in _RETRY_STATUSES or 500 <= error.status_code < 600


class ConnectionBreaker:
    """Stops sending to an endpoint that keeps failing to connect (the module docstring).

    Args:
        name: the endpoint as messages name it (the model id).
        clock: seconds, monotonic (injectable for tests).
    """

    def __init__(self, name: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until = 0.0
        self.retry_lines = 0
        """Retry lines printed for this endpoint so far."""

    def check(self) -> None:
        """Raise when the breaker is open (no request may be sent).

        Raises:
            JudgeUnavailableError: the endpoint failed to connect :data:`BREAK_AFTER` calls in
                a row; the message says for how long nothing is sent.
        """
        with self._lock:
            left = self._open_until - self._clock()
            if left > 0:
                raise JudgeUnavailableError(
                    f"judge {self.name}: not sent; the last {self._failures} calls could not "
                    f"connect even after their retries, so nothing is sent for another "
                    f"{left:.0f} s (--resume scores these items again once the judge is back)"
                )

    def failed(self) -> None:
        """Count a call that could not connect after its retries; open at the limit."""
        with self._lock:
            self._failures += 1
            if self._failures < BREAK_AFTER:
                return
            announce = self._open_until <= 0.0
            self._open_until = self._clock() + COOL_DOWN_S
        if announce:
            _log.warning(
                "judge %s: %d calls in a row could not connect after their retries; sending "
                "nothing for %.0f s at a time until one gets through (the items get errors)",
                self.name,
                BREAK_AFTER,
                COOL_DOWN_S,
            )

    def succeeded(self) -> None:
        """A call got an answer: the endpoint is alive."""
        with self._lock:
            self._failures = 0
            self._open_until = 0.0

    def note_retry(self) -> bool:
        """Whether to print this retry's line (the first :data:`RETRY_LINES`, then one more)."""
        with self._lock:
            self.retry_lines += 1
            return self.retry_lines <= RETRY_LINES + 1


_breakers: dict[str, ConnectionBreaker] = {}
_breakers_lock = threading.Lock()


def shared_breaker(key: str, name: str) -> ConnectionBreaker:
    """The breaker of an endpoint (``key`` identifies it), shared in this process."""
    with _breakers_lock:
        found = _breakers.get(key)
        if found is None:
            found = _breakers[key] = ConnectionBreaker(name)
        return found


class RetryingModel:
    """Wrap ``inner`` with retries.

    Args:
        inner: the model below.
        max_retries: retries after the first attempt, ``>= 0``.
        backoff: the first wait in seconds without ``Retry-After``, ``>= 0``.
        jitter: returns a random number in ``[0, 1)`` (injectable for tests).
        breaker: the endpoint's :class:`ConnectionBreaker` (default: one of its own).

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
        breaker: ConnectionBreaker | None = None,
    ) -> None:
        self.inner = inner
        self.max_retries = max_retries
        self.backoff = backoff
        self._jitter = jitter
        self.breaker = breaker or ConnectionBreaker(inner.model_id)

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
            JudgeUnavailableError: the endpoint's breaker is open (nothing was sent).
        """
        self.breaker.check()
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self.inner.complete(request)
            except JudgeError as exc:
                if not is_retryable(exc) or attempt > self.max_retries:
                    # what the layers below said (the attempt's deadline) is kept
                    exc.usage = replace(exc.usage or JudgeUsage(), attempts=attempt)
                    if isinstance(exc, JudgeHTTPError) and exc.status_code == 0:
                        self.breaker.failed()
                    raise
                wait = self.delay(attempt, getattr(exc, "retry_after", None))
                self._print_retry(attempt, wait, exc)
                await asyncio.sleep(wait)
                continue
            self.breaker.succeeded()
            return replace(response, attempts=attempt) if attempt != 1 else response

    def _print_retry(self, attempt: int, wait: float, exc: JudgeError) -> None:
        if not self.breaker.note_retry():
            return
        if self.breaker.retry_lines > RETRY_LINES:
            _log.warning("judge %s: further retries are not printed", self.model_id)
            return
        _log.warning(
            "judge %s: retry %d/%d in %.2f s after: %s",
            self.model_id,
            attempt,
            self.max_retries,
            wait,
            exc,
        )
