"""The one bridge from sync code to scorekit's async core.

Outside an event loop, the coroutine runs on a private loop kept per thread (much cheaper than a
new loop per call); when its thread ends or the interpreter exits, the loop is shut down as
``asyncio.run`` does (async generators finalised, which closes the judge's SDK clients) and
closed. Inside a running loop (a notebook, a FastAPI handler), it runs on a fresh loop in a
worker thread, with the caller's context variables, so the caller's loop is neither re-entered
nor patched.

A forked child (``os.fork``, multiprocessing's "fork", ``subprocess`` with ``preexec_fn``, as
Ray starts its processes) leaves the parent's loops alone: the child drops the other threads'
locals, but closing those loops there would unregister their self-pipes from epoll instances
the child shares with the parent, and the parent's loops could then no longer be woken from
another thread (``call_soon_threadsafe``: a scorer call's cancel after ``scorer_timeout``). A
child that calls :func:`run_sync` gets loops of its own.

``interruptible=True`` (what ``run_evals_sync`` asks for) makes Ctrl-C cancel the coroutine
instead of tearing through it: from the main thread with no loop running, the first SIGINT
cancels the task, which cleans up (stores what finished) and ends; :func:`run_sync` then raises
``KeyboardInterrupt``. A second Ctrl-C stops at once, as usual — except inside
:func:`hold_interrupts`, the few milliseconds in which a run writes its last results and its
ending: a Ctrl-C there is held until the block ends (a further one stops at once), so a
stopped run is never left marked ``running``.

``eager=True`` (what :meth:`scorekit.pipeline.Scorer.run_sync` asks for when no step asks a
judge) runs the coroutine's first stretch at once, on the thread's loop marked running, in a
copy of the caller's context, as a task's first step would run: a scorer of plain functions
ends there, without the loop's task, callback and selector rounds (about half of a code
scorer's fixed cost per call). A coroutine that does wait is handed, where it stopped, to a
task on that loop with the same context, so nothing changes but ``asyncio.current_task()``,
which is ``None`` during the first stretch. Python 3.10 (whose tasks take no context) runs it
as before.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import os
import signal
import sys
import threading
import weakref
from collections.abc import Coroutine, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any, TypeVar

__all__ = ["hold_interrupts", "run_sync"]

T = TypeVar("T")


class _LoopHolder:
    """Owns one thread's private loop and closes it when the thread's locals are dropped.

    Only in the process that made it: see the module on forked children.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.pid = os.getpid()
        _open_loops[self.loop] = self.pid

    def __del__(self) -> None:
        if os.getpid() == self.pid:
            _close(self.loop)
        else:  # a forked child: kept, so that not even asyncio's own finaliser closes it here
            _inherited.append(self.loop)


def _close(loop: asyncio.AbstractEventLoop) -> None:
    if not loop.is_closed() and not loop.is_running():
        try:
            # what asyncio.run does before closing: async generators are finalised, which is
            # how the judge's SDK clients close their connections (scorekit.judge.clients)
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


_open_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, int] = (
    weakref.WeakKeyDictionary()
)  # each loop -> the process id that made it
_local = threading.local()
_inherited: list[asyncio.AbstractEventLoop] = []  # in a forked child: the parent's loops


@atexit.register
def _close_all() -> None:
    pid = os.getpid()
    for loop, owner in list(_open_loops.items()):
        if owner == pid:
            _close(loop)


def _thread_loop() -> asyncio.AbstractEventLoop:
    holder: _LoopHolder | None = getattr(_local, "holder", None)
    if holder is None or holder.loop.is_closed() or holder.pid != os.getpid():
        holder = _LoopHolder()
        _local.holder = holder
    return holder.loop


def _run_cancelling_on_sigint(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on a fresh loop; the first SIGINT cancels it, a second one interrupts.

    SIGTERM (what a CI system or ``kill`` sends to stop a job) cancels it the same way, so a
    stopped job's run is stored as interrupted; a second SIGTERM then acts as it did before.
    """
    loop = asyncio.new_event_loop()
    task = loop.create_task(coro)
    previous = signal.getsignal(signal.SIGINT)
    previous_term = signal.getsignal(signal.SIGTERM)
    term_handler = previous_term if previous_term is not None else signal.SIG_DFL

    def on_interrupt(_signum: int, _frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, term_handler)
        loop.call_soon_threadsafe(task.cancel)

    signal.signal(signal.SIGINT, on_interrupt)
    signal.signal(signal.SIGTERM, on_interrupt)
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        raise KeyboardInterrupt from None
    except KeyboardInterrupt:
        if not task.done():
            # stopped at once (a second Ctrl-C): the task and the items it ran are abandoned,
            # which asyncio would report as destroyed tasks and unretrieved exceptions
            loop.set_exception_handler(lambda _loop, _context: None)
        raise
    finally:
        signal.signal(
            signal.SIGINT, previous if previous is not None else signal.default_int_handler
        )
        signal.signal(signal.SIGTERM, term_handler)
        _close(loop)


@contextlib.contextmanager
def hold_interrupts() -> Iterator[None]:
    """Hold Ctrl-C off while the block runs; a SIGINT during it is delivered after it.

    For short work that must not be cut in half (a run's last write and its status). On the
    main thread only (elsewhere SIGINT never arrives); a second SIGINT during the block stops
    at once, as usual. The held signal goes to the handler that was in place, after the block:
    the first Ctrl-C of a run then cancels the run, a later one raises ``KeyboardInterrupt``.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    held: list[FrameType | None] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        if held:  # asked twice: stop now
            signal.default_int_handler(signum, frame)
        held.append(frame)

    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held and callable(previous):
        previous(signal.SIGINT, held[0])
    elif held and previous != signal.SIG_IGN:
        raise KeyboardInterrupt


class _Resumed:
    """The rest of a coroutine that stopped at ``yielded``, as an awaitable for a task."""

    def __init__(self, coro: Coroutine[Any, Any, Any], yielded: Any) -> None:
        self._coro = coro
        self._yielded = yielded

    def __await__(self) -> Generator[Any, Any, Any]:
        value = self._yielded
        while True:
            try:
                sent = yield value
            except BaseException as exc:  # thrown in by the task (a cancellation)
                try:
                    value = self._coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    value = self._coro.send(sent)
                except StopIteration as done:
                    return done.value


async def _finish(rest: _Resumed) -> Any:
    return await rest


def _run_eagerly(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro``'s first stretch now, the rest (if any) as a task (module docstring)."""
    context = contextvars.copy_context()
    asyncio.events._set_running_loop(loop)
    try:
        yielded = context.run(coro.send, None)
    except StopIteration as done:
        result: T = done.value
        return result
    finally:
        asyncio.events._set_running_loop(None)
    task = loop.create_task(_finish(_Resumed(coro, yielded)), context=context)  # type: ignore[call-arg,unused-ignore]
    finished: T = loop.run_until_complete(task)
    return finished


def run_sync(
    coro: Coroutine[Any, Any, T], *, interruptible: bool = False, eager: bool = False
) -> T:
    """Run a coroutine to completion from synchronous code and return its result.

    Works with or without an event loop running in the calling thread.

    Args:
        coro: the coroutine object to run.
        interruptible: from the main thread with no loop running, let Ctrl-C cancel the
            coroutine (it may clean up) and then raise ``KeyboardInterrupt``; elsewhere
            signals cannot reach it and this changes nothing.
        eager: with no loop running, run the coroutine's first stretch at once (module
            docstring); for coroutines that seldom wait.

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
        if eager and sys.version_info >= (3, 11):
            return _run_eagerly(_thread_loop(), coro)
        return _thread_loop().run_until_complete(coro)
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="scorekit-sync") as pool:
        return pool.submit(context.run, asyncio.run, coro).result()
