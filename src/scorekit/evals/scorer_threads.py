"""Local scorer calls in worker threads, under a time limit (``scorer_timeout``).

A *local* scorer has only function steps and no judge (the code scorers, most custom ones). Its
steps are plain Python: run on the event loop, a slow one would hold up every other item and
scorer of the run. So each call of a local scorer runs in a worker thread, on that thread's own
event loop (:func:`scorekit._sync.run_sync`), while the run's loop awaits it with a limit:

* the call finishes in time: its result is the scorer's result, as if it ran on the loop;
* it does not: the item gets ``error`` with type ``ScorerTimeoutError`` (the message names the
  scorer and the limit), and the run goes on. The task on the worker's loop is cancelled, which
  stops an ``async`` step at its next ``await``; a synchronous step cannot be stopped (Python
  cannot kill a thread): its thread keeps running until the step returns, and what it returns
  is discarded.

Such a call still running is *stuck*. Each stuck call holds one thread (and what its step holds)
until it returns; at most :data:`MAX_STUCK_CALLS` may be stuck in a process at once. Past that,
a local scorer call is not started: its item gets ``ScorerTimeoutError`` at once, saying so, so
a scorer that hangs on every item cannot pile up threads without bound. A stuck call that
returns frees its place.

The worker threads are daemon threads kept for reuse (an idle one is reused, else a new one
starts, so a call never waits for a thread and its clock starts when it starts); a stuck thread
does not keep the process from exiting. A pure-Python step that never releases the GIL still
shares it with the loop (the interpreter switches threads every few milliseconds), so the run
goes on, slower. Scorers with a judge step run on the run's loop as before; their judge calls
are bounded by the judge's own timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from scorekit._sync import run_sync
from scorekit.errors import ScorerTimeoutError
from scorekit.evals.daemon_threads import DaemonWorkers, check_seconds
from scorekit.pipeline import Scorer

__all__ = [
    "DEFAULT_SCORER_TIMEOUT",
    "MAX_STUCK_CALLS",
    "ScorerTimeoutError",
    "check_scorer_timeout",
    "is_local",
    "run_local",
    "stuck_calls",
]

T = TypeVar("T")

DEFAULT_SCORER_TIMEOUT = 60.0
"""Seconds one call of a local scorer may take unless told otherwise."""

MAX_STUCK_CALLS = 32
"""Timed-out local scorer calls that may still run in one process before new ones are refused."""

_KEEP_IDLE = 64
"""Idle worker threads kept for reuse; one more idle thread ends."""


def check_scorer_timeout(value: Any) -> float | None:
    """Return ``value`` as the limit in seconds, or ``None`` (no limit).

    Raises:
        ConfigError: not ``None`` and not a finite number > 0 (``field="scorer_timeout"``).
    """
    return check_seconds(value, "scorer_timeout")


def is_local(scorer: Scorer) -> bool:
    """Whether ``scorer`` has only function steps and no judge (it then runs in a thread)."""
    return scorer.judge is None and all(step.type == "function" for step in scorer.get_steps())


_WORKERS = DaemonWorkers(keep_idle=_KEEP_IDLE)


def stuck_calls() -> int:
    """How many timed-out local scorer calls still run in this process."""
    return _WORKERS.stuck


class _ThreadTask:
    """Where a call runs on its worker: the loop and task, to cancel it from outside."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[Any] | None = None

    def cancel(self) -> None:
        loop, task = self.loop, self.task
        if loop is not None and task is not None and not loop.is_closed():
            # the loop closed in between: nothing runs any more
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)


async def _in_thread(call: Callable[[], Awaitable[T]], where: _ThreadTask) -> T:
    where.loop = asyncio.get_running_loop()
    where.task = asyncio.current_task()
    return await call()


async def run_local(
    call: Callable[[], Awaitable[T]], *, scorer_id: str, timeout: float | None
) -> T:
    """Run ``call()`` (a scorer's ``run``) in a worker thread and await it, within ``timeout``.

    The caller's context variables are copied into the thread.

    Raises:
        ScorerTimeoutError: the call took longer than ``timeout`` seconds (it is cancelled; a
            synchronous step keeps its thread until it returns, its result discarded), or
            :data:`MAX_STUCK_CALLS` earlier calls are stuck and this one was not started.
        Exception: what ``call()`` raised.
    """
    if _WORKERS.stuck >= MAX_STUCK_CALLS:
        raise ScorerTimeoutError(
            f"scorer {scorer_id!r} was not started: {_WORKERS.stuck} earlier local scorer calls "
            f"exceeded scorer_timeout and are still running (at most {MAX_STUCK_CALLS})"
        )
    where = _ThreadTask()
    context = contextvars.copy_context()
    future = _WORKERS.submit(lambda: context.run(run_sync, _in_thread(call, where)))
    waiting = asyncio.wrap_future(future)
    try:
        done, _ = await asyncio.wait({waiting}, timeout=timeout)
    except asyncio.CancelledError:  # the run was cancelled: stop the call where it can stop
        where.cancel()
        waiting.cancel()
        raise
    if done:
        return waiting.result()
    waiting.cancel()
    where.cancel()
    _WORKERS.mark_stuck(future)
    raise ScorerTimeoutError(
        f"scorer {scorer_id!r} took longer than scorer_timeout={timeout:g} s on this item; "
        "its call was abandoned (a synchronous step's thread runs on until the step returns, "
        "and its result is discarded)"
    )
