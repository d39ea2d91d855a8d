"""Executors: where the items of a run are scored.

An :class:`Executor` takes the run's :class:`~scorekit.evals.per_item.ItemJob` and a stream of
:class:`ItemTask` and hands every finished :class:`~scorekit.items.ItemResult` to ``emit``, in
completion order. :class:`LocalExecutor` runs up to ``concurrency`` items at a time on the
running event loop; a distributed executor (Ray) sends the job to workers once and the tasks to
them one by one. The run loop (:func:`scorekit.evals.run_evals`) knows only this protocol.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from scorekit.errors import ConfigError
from scorekit.evals.per_item import ItemJob
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
        """Score every task with ``job`` and ``emit`` each result (see :class:`Executor`).

        One asyncio task per item in flight, started when a slot is free: the next item is
        read only then, and nothing is allocated per unit of ``concurrency`` (a huge value
        costs nothing until that many items are in flight).
        """
        # sync targets run on scorekit's daemon threads (evals.target_calls): a target that
        # hangs holds its thread, never the process (a ThreadPoolExecutor's are joined at exit)
        slots = asyncio.Semaphore(self.concurrency)
        running: set[asyncio.Future[None]] = set()
        failures: list[BaseException] = []

        async def score(task: ItemTask) -> None:
            try:
                await emit(await job(task.item, task.done))
            except asyncio.CancelledError:
                raise
            except BaseException as exc:
                failures.append(exc)  # before the slot is free: no item starts after it
                raise
            finally:
                slots.release()

        def settled(item_future: asyncio.Future[None]) -> None:
            running.discard(item_future)
            if not item_future.cancelled():
                item_future.exception()  # retrieved: ``failures`` re-raises it below

        try:
            while True:
                await slots.acquire()  # a free slot first: only then is the next item read
                if failures:
                    break
                try:
                    task = await tasks.__anext__()
                except StopAsyncIteration:
                    break
                started = asyncio.ensure_future(score(task))
                running.add(started)
                started.add_done_callback(settled)
            while running and not failures:
                await asyncio.wait(set(running), return_when=asyncio.FIRST_EXCEPTION)
        finally:
            # on an error or a cancellation, stop the other items: they are in flight
            for item_future in list(running):
                item_future.cancel()
            await asyncio.gather(*running, return_exceptions=True)
        if failures:
            raise failures[0]
