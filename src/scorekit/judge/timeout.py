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

The deadline is either fixed (the judge's ``timeout``, or
:data:`~scorekit.judge.settings.DEFAULT_TIMEOUT_S` for a hosted API) or, with ``timeout=None``
here, left to the model below, which fits one to each call (:class:`FittedTimeoutModel`: the
local judge, from its measured speed and the call's reply budget). Each reply says which
deadline it ran under (``JudgeResponse.timeout_s``), and so does each error's usage, so the
result's judge usage shows the time budget.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from typing import Any, Protocol, runtime_checkable

from scorekit.errors import JudgeError, JudgeTimeoutError
from scorekit.judge.model import (
    JudgeModel,
    JudgeRequest,
    JudgeResponse,
    JudgeUsage,
    PreparedJudgeModel,
)
from scorekit.judge.settings import DEFAULT_TIMEOUT_S, FITTED_TIMEOUT_CAP_S

__all__ = ["FittedTimeoutModel", "TimeoutModel", "adapter_timeout", "layer_timeout"]


@runtime_checkable
class FittedTimeoutModel(Protocol):
    """A judge model that can fit each call's deadline itself (the local judge).

    :meth:`fit_timeouts` switches it on; the model then cancels a call past its fitted
    deadline with ``JudgeTimeoutError`` and reports the deadline in ``timeout_s``.
    """

    def fit_timeouts(self) -> None:
        """Fit each call's deadline from now on (the judge was given no ``timeout``)."""
        ...


_HAS_TIMEOUT_BLOCK = sys.version_info >= (3, 11)


def adapter_timeout(timeout: float | None, protocol: str) -> float:
    """The protocol adapter's own HTTP timeout for a judge given ``timeout`` (or ``None``).

    ``timeout`` when set; else :data:`~scorekit.judge.settings.FITTED_TIMEOUT_CAP_S` for the
    local judge (its fitted deadline may be long, and the adapter's must not cut it short) and
    :data:`~scorekit.judge.settings.DEFAULT_TIMEOUT_S` for the others.
    """
    if timeout is not None:
        return timeout
    return FITTED_TIMEOUT_CAP_S if protocol == "local" else DEFAULT_TIMEOUT_S


def layer_timeout(inner: JudgeModel, timeout: float | None) -> float | None:
    """The fixed deadline of the timeout layer over ``inner``, for a judge given ``timeout``.

    ``timeout`` when set; else ``None`` when ``inner`` fits each call's deadline itself
    (:class:`FittedTimeoutModel`, switched on here), and
    :data:`~scorekit.judge.settings.DEFAULT_TIMEOUT_S` for any other model.
    """
    if timeout is not None:
        return timeout
    if isinstance(inner, FittedTimeoutModel):
        inner.fit_timeouts()
        return None
    return DEFAULT_TIMEOUT_S


class TimeoutModel:
    """Wrap ``inner`` so that each :meth:`complete` takes at most ``timeout`` seconds.

    Args:
        inner: the model below.
        timeout: the deadline in seconds, ``> 0``, or ``None`` when ``inner`` fits its own
            (:class:`FittedTimeoutModel`).
    """

    def __init__(self, inner: JudgeModel, timeout: float | None) -> None:
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
            JudgeError: the model's own failures, their ``usage.timeout_s`` set to the deadline.
        """
        if self._prepare is not None:
            await self._prepare()
        if self.timeout is None:
            return await self.inner.complete(request)
        try:
            if _HAS_TIMEOUT_BLOCK:  # Python >= 3.11: no extra task per call
                async with asyncio.timeout(self.timeout):  # type: ignore[attr-defined,unused-ignore]
                    response = await self.inner.complete(request)
            else:
                call: Any = self.inner.complete(request)
                response = await asyncio.wait_for(call, self.timeout)
        except asyncio.TimeoutError:
            error = JudgeTimeoutError(
                f"{self.model_id}: no reply within the {self.timeout:g} s timeout; "
                "the call was cancelled"
            )
            error.usage = JudgeUsage.budgets(None, self.timeout)
            raise error from None
        except JudgeError as exc:
            if exc.usage is None:
                exc.usage = JudgeUsage.budgets(None, self.timeout)
            raise
        return replace(response, timeout_s=self.timeout)
