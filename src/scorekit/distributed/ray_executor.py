"""``RayExecutor``: the items of a run scored by workers on a Ray cluster.

The driver (the process calling :func:`~scorekit.evals.run_evals`) keeps the run loop, the
store and the summaries; the cluster does the scoring:

1. The scorers go out as their specs (:class:`~scorekit.scorers.registry.ScorerSpec`, plain
   data: name, options, judge spec, never an API key or a live client), with the target
   (pickled by value or by reference with Ray's ``cloudpickle``) and the scorer timeout, once
   per worker. A scorer without a spec is refused before anything starts.
2. ``workers`` actors (:class:`~scorekit.distributed.ray_worker.ScoringWorker`, one process each)
   build their scorers from the specs and score up to ``concurrency`` items at once each.
3. The driver reads the items lazily, ``batch_size`` at a time, and keeps at most
   ``workers x (ceil(concurrency / batch_size) + 1)`` batches in flight, so the items it holds
   are bounded whatever the dataset's size (the run still keeps each ``ok`` score, packed, and
   a digest of each item id: under 0.1 KiB per item, docs/run-evals.md "Memory"). Finished
   items stream back in chunks and the driver awaits ``emit`` for each: the run's recorder
   writes them, as for a local run.
4. One judge limit for the cluster: a :class:`~scorekit.distributed.slots.SlotCoordinator`
   actor leases slots per model, with its AIMD window shared by every worker.

Faults: a worker lost mid-batch (its process killed, its node gone) is replaced by a new actor
and the items of its batches not yet received are sent again (at most ``max_retries`` times per
batch); an item is emitted once, the first time its result arrives, and any later copy is
dropped. Cancelling the run kills the workers (their items in flight stop) after what arrived
was emitted.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from scorekit.distributed.cluster import connect, import_ray
from scorekit.distributed.ray_worker import ScoringWorker, WorkerPayload
from scorekit.distributed.slots import SlotCoordinator
from scorekit.errors import ClusterError, ConfigError
from scorekit.evals.executor import DEFAULT_CONCURRENCY, Emit, ItemTask
from scorekit.evals.per_item import ItemJob

__all__ = ["DEFAULT_BATCH_SIZE", "ClusterError", "RayExecutor", "RayRunStats"]

DEFAULT_BATCH_SIZE = 32
"""Items sent to a worker at once unless told otherwise."""


@dataclass
class RayRunStats:
    """What happened on the cluster during a :class:`RayExecutor` run.

    Attributes:
        workers: workers started at the beginning.
        replaced: workers lost and replaced by new ones.
        retried_batches: batches sent again after their worker was lost.
        dropped_duplicates: results that arrived for an item already emitted (dropped).
        judge_slots: the slot coordinator's figures (``granted``, ``most_in_flight``, ...),
            or ``None`` without one.
        startup_s: seconds from the run's start until every worker had built its scorers.
    """

    workers: int = 0
    replaced: int = 0
    retried_batches: int = 0
    dropped_duplicates: int = 0
    judge_slots: dict[str, Any] | None = None
    startup_s: float = 0.0


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be an integer >= 1, got {value!r}", field=name)
    return value


@functools.cache
def _actor_classes(ray: Any) -> tuple[Any, Any]:
    return ray.remote(ScoringWorker), ray.remote(SlotCoordinator)


def _payload(ray: Any, job: ItemJob) -> bytes:
    """The job as bytes for the workers; refused with the scorer or target named."""
    specs = []
    for scorer in job.scorers:
        if scorer.spec is None:
            raise ConfigError(
                f"scorer {scorer.id!r} has no spec, so it cannot be rebuilt on a Ray worker: "
                "build it with scorekit.scorers.build_scorer (or give it a spec with "
                "Scorer.with_spec)",
                field="scorers",
            )
        specs.append(scorer.spec)
    try:
        ray.cloudpickle.dumps(job.target)
    except Exception as exc:
        raise ConfigError(
            f"the target cannot be sent to Ray workers ({type(exc).__name__}: {exc}); use a "
            "function, or an object whose state pickles",
            field="target",
        ) from exc
    try:
        return bytes(
            ray.cloudpickle.dumps(
                WorkerPayload(
                    tuple(specs),
                    job.target,
                    job.scorer_timeout,
                    job.target_timeout,
                    job.max_text_chars,
                )
            )
        )
    except Exception as exc:
        raise ConfigError(
            f"the scorers' specs cannot be sent to Ray workers ({type(exc).__name__}: {exc})",
            field="scorers",
        ) from exc


def _needs_slots(job: ItemJob, judge_concurrency: int | None) -> bool:
    return judge_concurrency is not None or any(
        getattr(scorer.spec, "judge", None) is not None or scorer.judge is not None
        for scorer in job.scorers
    )


@dataclass
class _Member:
    handle: Any
    id: str
    pid: int = 0
    load: int = 0


@dataclass
class _Batch:
    pending: dict[int, ItemTask]
    attempts: int = 0


@dataclass
class _Pool:
    """The run's actors: the workers and the slot coordinator."""

    ray: Any
    options: RayExecutor
    payload: Any  # an object ref of the pickled WorkerPayload
    slots: Any = None
    members: list[_Member] = field(default_factory=list)
    stats: RayRunStats = field(default_factory=RayRunStats)

    async def start(self, with_slots: bool) -> None:
        worker_class, coordinator_class = _actor_classes(self.ray)
        ids = [uuid.uuid4().hex for _ in range(self.options.workers)]
        if with_slots:
            width = self.options.workers * self.options.concurrency * 4 + 16
            self.slots = coordinator_class.options(
                num_cpus=0, max_concurrency=max(1000, width)
            ).remote(self.options.judge_concurrency, ids)
        self.members = list(await asyncio.gather(*(self._spawn(worker_class, i) for i in ids)))
        self.stats.workers = len(self.members)

    async def _spawn(self, worker_class: Any, worker_id: str) -> _Member:
        member = _Member(None, worker_id)
        member.handle = worker_class.options(
            num_cpus=self.options.num_cpus, runtime_env=self.options.runtime_env
        ).remote(self.payload, member.id, self.slots, self.options.concurrency)
        try:
            error, member.pid = await asyncio.wait_for(
                member.handle.ready.remote(), self.options.start_timeout
            )
        except asyncio.TimeoutError:
            self.ray.kill(member.handle)
            raise ClusterError(
                f"no Ray worker started within {self.options.start_timeout:g} s: the cluster "
                f"may lack room for {self.options.workers} workers of {self.options.num_cpus:g} "
                "CPU each"
            ) from None
        if error is not None:
            self.ray.kill(member.handle)
            raise ConfigError(
                f"a Ray worker could not build the run's scorers: {error}", field="scorers"
            )
        return member

    def least_loaded(self) -> _Member:
        return min(self.members, key=lambda member: member.load)

    def is_loss(self, error: BaseException) -> bool:
        """Whether ``error`` means the worker (or its node) went away, not a failure of ours."""
        exceptions = self.ray.exceptions
        return isinstance(
            error,
            (exceptions.RayActorError, exceptions.WorkerCrashedError, exceptions.ObjectLostError),
        )

    async def replace(self, member: _Member) -> None:
        """Put a new worker in the place of a lost one (once, however many batches failed)."""
        if member not in self.members:
            return
        self.members.remove(member)
        with contextlib.suppress(Exception):
            self.ray.kill(member.handle, no_restart=True)
        new_id = uuid.uuid4().hex
        if self.slots is not None:  # the new worker takes its judge quota; its leases are freed
            await self.slots.swap.remote(member.id, new_id)
        self.members.append(await self._spawn(_actor_classes(self.ray)[0], new_id))
        self.stats.replaced += 1

    async def read_slots(self) -> None:
        if self.slots is not None:
            self.stats.judge_slots = await self.slots.stats.remote()

    def close(self) -> None:
        """Kill every actor of the run: what they were still doing stops."""
        for handle in [member.handle for member in self.members] + [self.slots]:
            if handle is not None:
                with contextlib.suppress(Exception):
                    self.ray.kill(handle, no_restart=True)
        self.members = []
        self.slots = None


class RayExecutor:
    """Scores the items of a run on a Ray cluster (the :class:`~scorekit.evals.Executor` seam).

    Args:
        address: the cluster: ``None`` (``RAY_ADDRESS`` if set, else a new local cluster),
            ``"auto"`` (the cluster running on this machine), ``"host:port"`` or
            ``"ray://host:port"`` (Ray Client; needs ``ray[client]``). Ignored when this
            process is already connected (``ray.init`` was called).
        workers: worker actors, one process each, >= 1.
        concurrency: items each worker scores at once, >= 1 (default 8).
        batch_size: items sent to a worker at once, >= 1 (default 32).
        judge_concurrency: the most judge requests in flight to one model across the whole
            cluster, >= 1; ``None``: each model's judges' own ``concurrency``, now for the
            cluster rather than per process.
        num_cpus: CPUs Ray reserves for each worker (> 0; default 1).
        runtime_env: Ray's runtime environment of the workers (``env_vars`` such as API
            keys, ``working_dir`` or ``py_modules`` for code the workers must import).
        max_retries: times a batch is sent again after its worker was lost, >= 0 (default 3).
        start_timeout: seconds a worker may take to start and build its scorers (default 300).
        init_options: more keyword arguments for ``ray.init`` when this executor connects.

    Raises:
        ConfigError: Ray is not installed (naming ``scorekit[ray]``), or an argument is out of
            range (``field`` names it).

    After a run, :attr:`stats` tells what happened on the cluster (:class:`RayRunStats`).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int = 2,
        concurrency: int = DEFAULT_CONCURRENCY,
        batch_size: int = DEFAULT_BATCH_SIZE,
        judge_concurrency: int | None = None,
        num_cpus: float = 1.0,
        runtime_env: Mapping[str, Any] | None = None,
        max_retries: int = 3,
        start_timeout: float = 300.0,
        init_options: Mapping[str, Any] | None = None,
    ) -> None:
        import_ray()  # the missing extra is named now, not when the run starts
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ConfigError(
                f"address must be a non-empty string, not {address!r}", field="ray_address"
            )
        self.address = address
        self.workers = _positive_int(workers, "workers")
        self.concurrency = _positive_int(concurrency, "concurrency")
        self.batch_size = _positive_int(batch_size, "batch_size")
        self.judge_concurrency = (
            None
            if judge_concurrency is None
            else _positive_int(judge_concurrency, "judge_concurrency")
        )
        if isinstance(num_cpus, bool) or not isinstance(num_cpus, (int, float)) or not num_cpus > 0:
            raise ConfigError(f"num_cpus must be a number > 0, got {num_cpus!r}", field="num_cpus")
        self.num_cpus = float(num_cpus)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(
                f"max_retries must be an integer >= 0, got {max_retries!r}", field="max_retries"
            )
        self.max_retries = max_retries
        if (
            isinstance(start_timeout, bool)
            or not isinstance(start_timeout, (int, float))
            or not start_timeout > 0
        ):
            raise ConfigError(
                f"start_timeout must be a number > 0, got {start_timeout!r}", field="start_timeout"
            )
        self.start_timeout = float(start_timeout)
        self.runtime_env = dict(runtime_env) if runtime_env is not None else None
        self.init_options = dict(init_options or {})
        self.stats = RayRunStats()
        self._pool: _Pool | None = None

    def __repr__(self) -> str:
        return (
            f"RayExecutor(address={self.address!r}, workers={self.workers}, "
            f"concurrency={self.concurrency}, batch_size={self.batch_size}, "
            f"judge_concurrency={self.judge_concurrency})"
        )

    @property
    def worker_pids(self) -> list[int]:
        """The process ids of the run's live workers (empty when no run is going on)."""
        pool = self._pool
        return [member.pid for member in pool.members] if pool is not None else []

    @property
    def window(self) -> int:
        """The most batches in flight: enough to keep every worker's slots busy."""
        return self.workers * (math.ceil(self.concurrency / self.batch_size) + 1)

    async def run(self, job: ItemJob, tasks: AsyncIterator[ItemTask], emit: Emit) -> None:
        """Score every task on the cluster and ``emit`` each result (see the module's notes).

        Raises:
            ConfigError: a scorer without a spec, a target or spec that does not pickle, a
                worker that cannot build the scorers, or an address Ray refuses.
            ClusterError: the workers could not start, or a batch's worker was lost more than
                ``max_retries`` times.
        """
        ray = import_ray()
        payload = _payload(ray, job)  # refused before the cluster is touched
        connect(ray, self.address, self.init_options)
        self.stats = RayRunStats()
        pool = self._pool = _Pool(ray, self, ray.put(payload), stats=self.stats)
        started = time.perf_counter()
        try:
            await pool.start(_needs_slots(job, self.judge_concurrency))
            self.stats.startup_s = time.perf_counter() - started
            await _Dispatch(pool, emit, self.batch_size, self.window, self.max_retries).run(tasks)
            await pool.read_slots()
        finally:
            pool.close()
            self._pool = None


class _Dispatch:
    """The driver's loop: batches out, chunks back, lost batches sent again."""

    def __init__(
        self, pool: _Pool, emit: Emit, batch_size: int, window: int, max_retries: int
    ) -> None:
        self.pool = pool
        self.emit = emit
        self.batch_size = batch_size
        self.window = window
        self.max_retries = max_retries

    async def _read(self, tasks: AsyncIterator[ItemTask]) -> _Batch | None:
        pending: dict[int, ItemTask] = {}
        for index in range(self.batch_size):
            try:
                pending[index] = await tasks.__anext__()
            except StopAsyncIteration:
                break
        return _Batch(pending) if pending else None

    async def _stream(self, batch: _Batch, member: _Member) -> None:
        sent = list(batch.pending.items())
        chunks = member.handle.score.options(num_returns="streaming").remote(sent)
        completed = False
        try:
            async for ref in chunks:
                for index, result in await ref:
                    if batch.pending.pop(index, None) is None:
                        self.pool.stats.dropped_duplicates += 1
                        continue
                    await self.emit(result)
            completed = True
        finally:
            if not completed:  # cancelled, or emit failed: the worker stops this batch
                with contextlib.suppress(Exception):
                    self.pool.ray.cancel(chunks)

    async def run(self, tasks: AsyncIterator[ItemTask]) -> None:
        running: dict[asyncio.Future[None], tuple[_Batch, _Member]] = {}
        retry: deque[_Batch] = deque()
        exhausted = False
        try:
            while True:
                while len(running) < self.window:
                    batch = retry.popleft() if retry else None
                    if batch is None and not exhausted:
                        batch = await self._read(tasks)
                        exhausted = batch is None
                    if batch is None:
                        break
                    member = self.pool.least_loaded()
                    member.load += 1
                    running[asyncio.ensure_future(self._stream(batch, member))] = (batch, member)
                if not running:
                    return
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    batch, member = running.pop(future)
                    member.load -= 1
                    error = future.exception()
                    if error is None:
                        continue
                    if not self.pool.is_loss(error):
                        raise error
                    batch.attempts += 1
                    if batch.attempts > self.max_retries:
                        raise ClusterError(
                            f"a batch of {len(batch.pending)} items lost its Ray worker "
                            f"{batch.attempts} times; the run stops (what finished is stored)"
                        ) from error
                    self.pool.stats.retried_batches += 1
                    await self.pool.replace(member)
                    retry.append(batch)
        finally:
            for future in running:
                future.cancel()
            await asyncio.gather(*running, return_exceptions=True)
