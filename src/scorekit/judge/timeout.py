"""``TimeoutModel``: a hard deadline on each transport attempt.

The layer sits just above the protocol adapter, below the rate limiter, so the clock runs only
while a request is actually in flight (never while it waits for a concurrency slot). A call
still running at the deadline is cancelled (its connection closed) and fails with
:class:`~scorekit.errors.JudgeTimeoutError`.

A model's one-time start-up (:class:`~scorekit.judge.model.PreparedJudgeModel`, e.g. the local
judge loading its GGUF file and starting its server) is awaited *before* the clock starts, so
it never counts against a call's deadline. This is deliberate: llama.cpp holds Python's GIL
while it loads a model, so the event loop (and with it any deadline) is frozen until the load
ends whichever thread runs it; a timeout meant for one request cannot apply to it.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from scorekit.errors import JudgeTimeoutError
from scorekit.judge.model import JudgeModel, JudgeRequest, JudgeResponse, PreparedJudgeModel

__all__ = ["TimeoutModel"]

_HAS_TIMEOUT_BLOCK = sys.version_info >= (3, 11)


class TimeoutModel:
    """Wrap ``inner`` so that each :meth:`complete` takes at most ``timeout`` seconds.

    Args:
        inner: the model below.
        timeout: the deadline in seconds, ``> 0``.
    """

    def __init__(self, inner: JudgeModel, timeout: float) -> None:
        self.inner = inner
        self.timeout = timeout
        self._prepare = inner.prepare if isinstance(inner, PreparedJudgeModel) else None

    @property
    def model_id(self) -> str:
        """The inner model's id."""
        return self.inner.model_id

    def __repr__(self) -> str:
        return f"TimeoutModel({self.inner!r}, timeout={self.timeout})"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Ready the model (untimed), then forward the request, cancelling it at the deadline.

        Raises:
            JudgeTimeoutError: the deadline passed.
        """
        if self._prepare is not None:
            await self._prepare()
        try:
            if _HAS_TIMEOUT_BLOCK:  # Python >= 3.11: no extra task per call
                async with asyncio.timeout(self.timeout):  # type: ignore[attr-defined,unused-ignore]
                    return await self.inner.complete(request)
            call: Any = self.inner.complete(request)
            return await asyncio.wait_for(call, self.timeout)
        except asyncio.TimeoutError:
            raise JudgeTimeoutError(
                f"{self.model_id}: no reply within the {self.timeout:g} s timeout; "
                "the call was cancelled"
            ) from None
