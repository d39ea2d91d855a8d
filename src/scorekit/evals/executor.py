"""Executors: where the items of a run are scored.

An :class:`Executor` takes the run's :class:`~scorekit.evals.item.ItemJob` and a stream of
:class:`ItemTask` and hands every finished :class:`~scorekit.items.ItemResult` to ``emit``, in
completion order. :class:`LocalExecutor` runs up to ``concurrency`` items at a time on the
running event loop; a distributed executor (Ray) sends the job to workers once and the tasks to
them one by one. The run loop (:func:`scorekit.evals.run_evals`) knows only this protocol.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from scorekit.errors import ConfigError
from scorekit.evals.item import ItemJob
from scorekit.items import EvalItem, ItemResult
from scorekit.results import ScorerRunResult

__all__ = ["DEFAULT_CONCURRENCY", "Emit", "Executor", "ItemTask", "LocalExecutor"]

DEFAULT_CONCURRENCY = 8
"""Items a :class:`LocalExecutor` scores at once unless told otherwise."""


@dataclass(frozen=True)
class ItemTask:
    """One item to score, with the results already stored for it (a resumed run).

    Attributes:
        item: the item.
        done: scorer id → stored result; those scorers are not run again.
    """

    item: EvalItem
    done: Mapping[str, ScorerRunResult] = field(default_factory=dict)


Emit = Callable[[ItemResult], Awaitable[None]]
"""What an executor calls with each finished item; its exceptions end the run."""


@runtime_checkable
class Executor(Protocol):
    """Scores the items of one run.

    Contract: read ``tasks`` lazily (one more when there is room, so a generator of any length
    streams through and memory stays flat), score each with ``job``, and await ``emit`` with
    each result, one at a time from the calling event loop. Item failures are already results
    (``job`` never raises for them); an exception from ``emit`` or from the executor itself
    stops the other items and propagates. Cancelling :meth:`run` cancels the items in flight.
    """

    async def run(self, job: ItemJob, tasks: AsyncIterator[ItemTask], emit: Emit) -> None:
        """Score every task with ``job`` and ``emit`` each result."""
        ...


class LocalExecutor:
    """Scores items on the running event loop, up to ``concurrency`` at once.

    Sync targets run in a thread pool of the same size, so a blocking target never stalls the
    other items.

    Args:
        concurrency: items in flight at once, an integer >= 1.

    Raises:
        ConfigError: ``concurrency`` is not an integer >= 1 (``field="concurrency"``).
    """

    def __init__(self, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError(
                f"concurrency must be an integer >= 1, got {concurrency!r}", field="concurrency"
            )
        self.concurrency = concurrency

    def __repr__(self) -> str:
        return f"LocalExecutor(concurrency={self.concurrency})"

    async def run(self, job: ItemJob, tasks: AsyncIterator[ItemTask], emit: Emit) -> None:
        """Score every task with ``job`` and ``emit`` each result (see :class:`Executor`)."""
        lock = asyncio.Lock()
        threads = ThreadPoolExecutor(self.concurrency, thread_name_prefix="scorekit-target")

        async def next_task() -> ItemTask | None:
            async with lock:
                try:
                    return await tasks.__anext__()
                except StopAsyncIteration:
                    return None

        async def worker() -> None:
            while (task := await next_task()) is not None:
                await emit(await job(task.item, task.done, threads=threads))

        workers = [asyncio.ensure_future(worker()) for _ in range(self.concurrency)]
        try:
            finished, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            # on an error or a cancellation, stop the other workers: their items are in flight
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            threads.shutdown(wait=False, cancel_futures=True)
        for task in finished:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
