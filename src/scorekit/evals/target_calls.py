"""Calling the application under test: within ``target_timeout``, never holding the process.

A target is called once per item that has no output of its own (:func:`call_target`). An async
target is awaited on the run's loop; a sync one (an HTTP client, a model call) runs on a daemon
worker thread (:mod:`scorekit.evals.daemon_threads`) so that it never blocks the other items
and, if it hangs, never keeps the process from exiting: Ctrl-C stops the run within seconds
whatever the target does.

Each call may take ``target_timeout`` seconds (default :data:`DEFAULT_TARGET_TIMEOUT`;
``None``: no limit). Past it the item becomes an ``error`` of type ``TargetTimeoutError`` that
names the limit, and the run goes on; a sync call's thread runs on until the call returns, its
answer discarded. At most :data:`MAX_STUCK_TARGETS` such calls may still run in a process: past
that, a target is not called and its item gets the same error at once, saying why, so a target
that hangs on every item cannot pile up threads without bound.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from concurrent.futures import Executor as ThreadPool
from typing import Any

from scorekit.errors import TargetTimeoutError
from scorekit.evals.daemon_threads import DaemonWorkers
from scorekit.items import EvalItem, Target

__all__ = [
    "DEFAULT_TARGET_TIMEOUT",
    "MAX_STUCK_TARGETS",
    "TargetTimeoutError",
    "call_target",
    "stuck_targets",
]

DEFAULT_TARGET_TIMEOUT = 300.0
"""Seconds one target call may take unless told otherwise (five minutes: an agent's turn)."""

MAX_STUCK_TARGETS = 32
"""Timed-out sync target calls that may still run in one process before new ones are refused."""

_TARGETS = DaemonWorkers(keep_idle=64, name="scorekit-target")


def stuck_targets() -> int:
    """How many timed-out sync target calls still run in this process."""
    return _TARGETS.stuck


def _arguments(target: Target, item: EvalItem) -> tuple[Any, ...]:
    positional = [
        p
        for p in inspect.signature(target).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    takes_context = len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)
    return (item.input, item.request_context) if takes_context else (item.input,)


def _is_async(target: Target) -> bool:
    return inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "__call__", None)  # noqa: B004 - an async __call__ method
    )


async def _call(target: Target, item: EvalItem, threads: ThreadPool | None) -> tuple[Any, Any]:
    """Start the call; returns ``(awaitable answer, the thread's future or None)``."""
    args = _arguments(target, item)
    if _is_async(target):
        return target(*args), None
    # with the caller's context variables, as on the loop
    call = functools.partial(contextvars.copy_context().run, target, *args)
    if threads is not None:
        return asyncio.get_running_loop().run_in_executor(threads, call), None
    future = _TARGETS.submit(call)
    return asyncio.wrap_future(future), future


async def call_target(
    target: Target, item: EvalItem, *, timeout: float | None, threads: ThreadPool | None = None
) -> Any:
    """The target's answer to ``item`` (its input, and its request context when it takes one).

    Args:
        target: the application under test (see :data:`~scorekit.items.Target`).
        item: the item.
        timeout: seconds the call may take (checked), or ``None``.
        threads: an executor for a sync target instead of the daemon threads (the caller then
            owns its threads and their exit).

    Raises:
        TargetTimeoutError: the call took longer than ``timeout``, or :data:`MAX_STUCK_TARGETS`
            earlier calls are stuck and this one was not started.
        Exception: what the target raised.
    """
    if threads is None and not _is_async(target) and _TARGETS.stuck >= MAX_STUCK_TARGETS:
        raise TargetTimeoutError(
            f"the target was not called for item {item.id!r}: {_TARGETS.stuck} earlier target "
            f"calls exceeded target_timeout and are still running (at most {MAX_STUCK_TARGETS})"
        )
    value, future = await _call(target, item, threads)

    async def answer() -> Any:
        result = await value
        return await result if inspect.isawaitable(result) else result

    # asyncio.wait, not wait_for: a target's own TimeoutError must stay the target's error
    call = asyncio.ensure_future(answer())
    try:
        done, _ = await asyncio.wait({call}, timeout=timeout)
    except asyncio.CancelledError:
        call.cancel()
        raise
    if done:
        return call.result()
    call.cancel()
    if future is not None:
        _TARGETS.mark_stuck(future)
    left = (
        "its thread runs on until the call returns, and its answer is discarded"
        if future is not None
        else "it was cancelled"
    )
    raise TargetTimeoutError(
        f"the target took longer than target_timeout={timeout:g} s on item {item.id!r}; "
        f"its call was abandoned ({left})"
    )
