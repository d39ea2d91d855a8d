"""Daemon worker threads for calls that may never return, and the one check of a time limit.

A synchronous call (a target that blocks on the network, a code scorer's step) cannot be
stopped from outside: Python cannot kill a thread. Run in a ``ThreadPoolExecutor``, such a call
would also keep the process from exiting, since the executor's threads are joined at
interpreter exit; Ctrl-C would print "interrupted" and hang. :class:`DaemonWorkers` runs each
call on a daemon thread instead (reused when idle), so a call given up on holds one thread
until it returns and never holds the process; it is counted as *stuck* meanwhile.
"""

from __future__ import annotations

import concurrent.futures
import math
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from scorekit.errors import ConfigError

__all__ = ["DaemonWorkers", "check_seconds"]

T = TypeVar("T")


def check_seconds(value: Any, field: str) -> float | None:
    """Return ``value`` as a time limit in seconds, or ``None`` (no limit).

    Args:
        value: ``None`` or a finite number > 0.
        field: the option's name, for the error.

    Raises:
        ConfigError: not ``None`` and not a finite number > 0 (``field=field``).
    """
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ConfigError(
            f"{field} must be a number of seconds > 0, or None for no limit; got {value!r}",
            field=field,
        )
    return float(value)


_Job = tuple[Callable[[], Any], "concurrent.futures.Future[Any]"]


class DaemonWorkers:
    """Daemon threads taking calls from one first-in-first-out queue; idle ones are reused.

    Calls start in the order they were submitted (as in a ``ThreadPoolExecutor``): a target
    is called for the items in the order they were read. A call never waits for a busy thread:
    without an idle one, a new thread starts.

    Args:
        keep_idle: idle threads kept for reuse; one more idle thread ends.
        name: the threads' name.
    """

    def __init__(self, *, keep_idle: int, name: str = "scorekit-scorer") -> None:
        self._keep_idle = keep_idle
        self._name = name
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._idle = 0
        self._stuck = 0

    @property
    def stuck(self) -> int:
        """Calls given up on (timed out) that still run."""
        return self._stuck

    def submit(self, call: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Queue ``call()`` for an idle thread, or a new one; its future holds the outcome."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((call, future))
        with self._lock:
            if self._idle:
                self._idle -= 1  # an idle thread takes it
                return future
        threading.Thread(target=self._work, name=self._name, daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            call, future = self._jobs.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(call())
                except BaseException as exc:  # delivered to the awaiting side
                    future.set_exception(exc)
            del call, future
            with self._lock:
                if self._idle >= self._keep_idle:
                    return
                self._idle += 1

    def mark_stuck(self, future: concurrent.futures.Future[Any]) -> None:
        """Count ``future``'s call as stuck until it returns."""
        with self._lock:
            self._stuck += 1
        future.add_done_callback(self._unstick)

    def _unstick(self, _future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._stuck -= 1
