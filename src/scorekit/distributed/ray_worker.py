"""The Ray worker: one actor per worker process, scoring batches of items on its own loop.

The driver sends each worker the run's recipe once, as a :class:`WorkerPayload` (the scorers'
specs, the target and the scorer timeout, pickled by the driver with Ray's ``cloudpickle``),
and then batches of ``(index, ItemTask)``. The worker builds its own scorers from the specs
(its own judges, SDK clients, limiter and cache; the API keys from its own environment),
installs the cluster's judge slots (:mod:`scorekit.distributed.slots`) as its judges' gate, and
scores up to ``concurrency`` items at once with :class:`~scorekit.evals.per_item.ItemJob`, as a
:class:`~scorekit.evals.executor.LocalExecutor` would. Finished items stream back in chunks
(what finished within :data:`CHUNK_WAIT_S` of a chunk's first item, and at most the rest of the
batch), each with its index in the batch, so the driver knows which items of a batch a lost
worker never finished.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from scorekit.evals.executor import ItemTask
from scorekit.evals.per_item import ItemJob
from scorekit.evals.text_limits import DEFAULT_MAX_TEXT_CHARS
from scorekit.items import ItemResult, Target
from scorekit.judge.ratelimit import install_cluster_gate
from scorekit.pipeline import Rebuildable

__all__ = ["ScoringWorker", "WorkerPayload"]

Chunk = list[tuple[int, ItemResult]]
"""Items finished since the worker's last chunk: (index in the batch, result)."""
CHUNK_WAIT_S = 0.05
"""How long a chunk waits, after its first item finished, for more (each chunk is one Ray
object through the object store to the driver, a fixed cost of about a millisecond; items
that finish a few milliseconds apart share one)."""


@dataclass(frozen=True)
class WorkerPayload:
    """What a worker builds its job from: plain data, never a live client.

    Attributes:
        specs: the scorers' specs, in run order (each ``build()`` makes the scorer).
        target: the application under test, or ``None``.
        scorer_timeout: seconds one local scorer call may take, or ``None``.
        target_timeout: seconds one target call may take, or ``None``.
        max_text_chars: characters one item field may hold, or ``None``.
    """

    specs: tuple[Rebuildable, ...]
    target: Target | None
    scorer_timeout: float | None
    target_timeout: float | None = None
    max_text_chars: int | None = DEFAULT_MAX_TEXT_CHARS

    def build(self) -> ItemJob:
        """The run's :class:`~scorekit.evals.per_item.ItemJob`, its scorers built from the specs."""
        scorers = tuple(spec.build() for spec in self.specs)
        return ItemJob(
            scorers,
            self.target,
            self.scorer_timeout,
            self.target_timeout,
            max_text_chars=self.max_text_chars,
        )


class ScoringWorker:
    """One worker (run as a Ray async actor).

    Args:
        payload: a :class:`WorkerPayload` pickled with ``ray.cloudpickle``.
        worker: this worker's id.
        slots: the :class:`~scorekit.distributed.slots.SlotCoordinator` handle, or ``None``
            (no cluster-wide judge limit).
        concurrency: items scored at once in this worker, >= 1.

    Building never raises: what went wrong is kept, and :meth:`ready` returns it, so the
    driver reports it as a configuration error instead of a dead actor.
    """

    def __init__(self, payload: bytes, worker: str, slots: Any, concurrency: int) -> None:
        self._error: str | None = None
        self._job: ItemJob | None = None
        self._slots = asyncio.Semaphore(concurrency)
        try:
            import ray.cloudpickle as cloudpickle  # the worker runs under Ray: it is there

            recipe = cloudpickle.loads(payload)
            if slots is not None:
                from scorekit.distributed.slots import SlotsClient

                install_cluster_gate(SlotsClient(slots, worker))
            self._job = recipe.build()
        except Exception as exc:  # told to the driver by ready(), as a ConfigError
            self._error = f"{type(exc).__name__}: {exc}"

    def ready(self) -> tuple[str | None, int]:
        """``(why the job could not be built or None, this worker's process id)``."""
        return self._error, os.getpid()

    async def score(self, tasks: Sequence[tuple[int, ItemTask]]) -> AsyncIterator[Chunk]:
        """Score a batch; yield the finished items in chunks, as they finish.

        Raises:
            RuntimeError: the job could not be built (the driver checks :meth:`ready` first).
        """
        job = self._job
        if job is None:
            raise RuntimeError(f"this worker could not build the run's job: {self._error}")
        finished: asyncio.Queue[tuple[int, ItemResult] | BaseException] = asyncio.Queue()

        async def one(index: int, task: ItemTask) -> None:
            try:
                async with self._slots:
                    finished.put_nowait((index, await job(task.item, task.done)))
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # a bug: job never raises for an item's own failure
                finished.put_nowait(exc)

        running = [asyncio.ensure_future(one(index, task)) for index, task in tasks]
        loop = asyncio.get_running_loop()
        try:
            left = len(running)
            while left:
                chunk: Chunk = []
                entry = await finished.get()
                deadline = loop.time() + CHUNK_WAIT_S
                while True:
                    if isinstance(entry, BaseException):
                        raise entry
                    chunk.append(entry)
                    if len(chunk) >= left:
                        break
                    if finished.empty():
                        wait = deadline - loop.time()
                        if wait <= 0:
                            break
                        try:  # more items finish soon: one chunk for them all
                            entry = await asyncio.wait_for(finished.get(), wait)
                        except asyncio.TimeoutError:  # TimeoutError from 3.11 on
                            break
                    else:
                        entry = finished.get_nowait()
                left -= len(chunk)
                yield chunk
        finally:
            for future in running:  # the driver cancelled the batch, or it failed
                future.cancel()
