"""The one bridge from sync code to scorekit's async core.

Outside an event loop, the coroutine runs on a private loop kept per thread (much cheaper than a
new loop per call); when its thread ends or the interpreter exits, the loop is shut down as
``asyncio.run`` does (async generators finalised, which closes the judge's SDK clients) and
closed. Inside a running loop (a notebook, a FastAPI handler), it runs on a fresh loop in a
worker thread, with the caller's context variables, so the caller's loop is neither re-entered
nor patched.

``interruptible=True`` (what ``run_evals_sync`` asks for) makes Ctrl-C cancel the coroutine
instead of tearing through it: from the main thread with no loop running, the first SIGINT
cancels the task, which cleans up (stores what finished) and ends; :func:`run_sync` then raises
``KeyboardInterrupt``. A second Ctrl-C stops at once, as usual.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import signal
import threading
import weakref
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


class _LoopHolder:
    """Owns one thread's private loop and closes it when the thread's locals are dropped."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        _open_loops.add(self.loop)

    def __del__(self) -> None:
        _close(self.loop)


def _close(loop: asyncio.AbstractEventLoop) -> None:
    if not loop.is_closed() and not loop.is_running():
        try:
            # what asyncio.run does before closing: async generators are finalised, which is
            # how the judge's SDK clients close their connections (scorekit.judge.clients)
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


_open_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_local = threading.local()


@atexit.register
def _close_all() -> None:
    for loop in list(_open_loops):
        _close(loop)


def _thread_loop() -> asyncio.AbstractEventLoop:
    holder: _LoopHolder | None = getattr(_local, "holder", None)
    if holder is None or holder.loop.is_closed():
        holder = _LoopHolder()
        _local.holder = holder
    return holder.loop


def _run_cancelling_on_sigint(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on a fresh loop; the first SIGINT cancels it, a second one interrupts."""
    loop = asyncio.new_event_loop()
    task = loop.create_task(coro)
    previous = signal.getsignal(signal.SIGINT)

    def on_interrupt(_signum: int, _frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        loop.call_soon_threadsafe(task.cancel)

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        raise KeyboardInterrupt from None
    finally:
        signal.signal(
            signal.SIGINT, previous if previous is not None else signal.default_int_handler
        )
        _close(loop)


def run_sync(coro: Coroutine[Any, Any, T], *, interruptible: bool = False) -> T:
    """Run a coroutine to completion from synchronous code and return its result.

    Works with or without an event loop running in the calling thread.

    Args:
        coro: the coroutine object to run.
        interruptible: from the main thread with no loop running, let Ctrl-C cancel the
            coroutine (it may clean up) and then raise ``KeyboardInterrupt``; elsewhere
            signals cannot reach it and this changes nothing.

    Returns:
        The coroutine's result; its exception propagates unchanged.

    Raises:
        KeyboardInterrupt: ``interruptible`` and Ctrl-C cancelled the coroutine.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if interruptible and threading.current_thread() is threading.main_thread():
            return _run_cancelling_on_sigint(coro)
        return _thread_loop().run_until_complete(coro)
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="scorekit-sync") as pool:
        return pool.submit(context.run, asyncio.run, coro).result()
