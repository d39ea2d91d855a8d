"""The one bridge from sync code to scorekit's async core.

Outside an event loop, the coroutine runs on a private loop kept per thread (cheaper than a new
loop per call). Inside a running loop (a notebook, a FastAPI handler), it runs on a fresh loop in
a worker thread, so the caller's loop is neither blocked re-entrantly nor patched.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")

_local = threading.local()


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _local.loop = loop
    return loop


def _run_on_thread_loop(coro: Coroutine[Any, Any, T]) -> T:
    return _thread_loop().run_until_complete(coro)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code and return its result.

    Works with or without an event loop running in the calling thread.

    Args:
        coro: the coroutine object to run.

    Returns:
        The coroutine's result; its exception propagates unchanged.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_on_thread_loop(coro)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="scorekit-sync") as pool:
        return pool.submit(asyncio.run, coro).result()
