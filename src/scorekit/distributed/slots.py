"""One judge concurrency limit for a whole Ray cluster: an actor that shares out slots.

Each Ray worker's judges keep their per-process :class:`~scorekit.judge.ratelimit.AdaptiveLimiter`;
on top of it, every judge request also holds a cluster slot of its model (the limiter's key:
provider, model and base URL), handed out by one :class:`SlotCoordinator` actor per run, so N
workers together never have more than the limit in flight to one model. The limit of a model is
the executor's ``judge_concurrency``, else the ``concurrency`` its judges ask for (their
per-process setting, now for the cluster).

Two ways of sharing, chosen per model:

* **quotas** (the limit is at least the number of workers): the coordinator splits an AIMD
  window among the workers, and each worker admits up to its quota locally, with no message
  per request. Workers report their outcomes every few requests: successes grow the window
  (about one slot per window's worth), a 429 halves it (once per report round, never below one
  slot per worker), and each report brings the worker's new quota back. The quotas always add
  up to at most the window, itself at most the limit: a worker takes a larger quota only once
  the coordinator has counted it, so N workers never exceed the limit.
* **leases** (fewer slots than workers): every request leases a slot from the coordinator's own
  ``AdaptiveLimiter`` and gives it back, a round trip per request, exact and fair.

A worker lost mid-run is swapped for its replacement (:meth:`SlotCoordinator.swap`): the new one
takes its quota, and the slots it leased are freed. Cancelled waits give their lease back.
The gate serves the worker's event loop (judges run on the actor's loop).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from scorekit.judge.ratelimit import AdaptiveLimiter, Outcome

__all__ = ["SlotCoordinator", "SlotsClient"]

LeaseId = tuple[str, int]


@dataclass
class _Model:
    ceiling: int
    window: float
    round: int = 0
    quotas: dict[str, int] = field(default_factory=dict)
    limiter: AdaptiveLimiter | None = None  # lease mode only


class SlotCoordinator:
    """The cluster's judge slots (run as a Ray async actor; plain methods, plain data).

    Args:
        ceiling: the most requests in flight to one model across the cluster, or ``None``
            (the first ``ceiling`` a worker asks with: its judges' ``concurrency``).
        workers: the ids of the run's workers.
    """

    def __init__(self, ceiling: int | None = None, workers: Sequence[str] = ()) -> None:
        self._ceiling = ceiling
        self._workers = list(workers)
        self._models: dict[str, _Model] = {}
        self._leases: dict[LeaseId, tuple[str, int]] = {}
        self._abandoned: set[LeaseId] = set()
        self._forgotten: set[str] = set()
        self._granted = 0
        self._most_leased = 0
        self._throttled = 0

    # -- membership ---------------------------------------------------------------------
    def join(self, worker: str) -> None:
        """Count ``worker`` among the run's workers (before it asks for any slot)."""
        if worker not in self._workers:
            self._workers.append(worker)

    def swap(self, old: str, new: str) -> int:
        """``new`` replaces the lost ``old``: it takes its quotas; its leases are freed."""
        self._forgotten.add(old)
        if old in self._workers:
            self._workers[self._workers.index(old)] = new
        else:
            self._workers.append(new)
        for model in self._models.values():
            model.quotas[new] = model.quotas.pop(old, 0)
        held = [name for name in self._leases if name[0] == old]
        for worker, lease in held:
            self.release(worker, lease, "failed")
        return len(held)

    # -- quotas -------------------------------------------------------------------------
    def _model(self, key: str, ceiling: int) -> _Model:
        model = self._models.get(key)
        if model is None:
            limit = self._ceiling or ceiling
            model = self._models[key] = _Model(limit, float(limit))
            if limit < len(self._workers):
                model.limiter = AdaptiveLimiter(limit, key)
        return model

    def _shares(self, model: _Model) -> dict[str, int]:
        base, extra = divmod(int(model.window), len(self._workers))
        return {w: base + (1 if i < extra else 0) for i, w in enumerate(self._workers)}

    def report(
        self,
        worker: str,
        key: str,
        ceiling: int,
        ok: int,
        throttled: bool,
        seen: int,
        active: int = 0,
    ) -> tuple[int, int, bool]:
        """A worker's outcomes since its last report; its quota, the round, and lease mode back.

        Args:
            worker: who reports.
            key: the model.
            ceiling: its judges' ``concurrency`` (the limit when the executor gave none).
            ok: requests that succeeded since the last report.
            throttled: whether one got HTTP 429; the window halves once per round (``seen``
                is the round the worker's quota came from).
            seen: the round of the worker's current quota (``-1``: it has none yet).
            active: the worker's requests in flight now; until its next report it is counted
                at its new quota or these, whichever is more (a shrunk quota drains).
        """
        model = self._model(key, ceiling)
        if model.limiter is not None:
            return 0, model.round, True
        floor = len(self._workers)
        model.window = min(float(model.ceiling), model.window + ok / max(model.window, 1.0))
        if throttled:
            self._throttled += 1
            if seen == model.round:
                model.window = max(float(floor), model.window / 2)
                model.round += 1
        shares = self._shares(model)
        # a quota grows only as far as the others' counted quotas leave room in the window
        others = sum(q for w, q in model.quotas.items() if w != worker and w in shares)
        quota = max(0, min(shares.get(worker, 0), int(model.window) - others))
        model.quotas[worker] = max(quota, active)
        return quota, model.round, False

    # -- leases (fewer slots than workers) ------------------------------------------------
    async def acquire(self, worker: str, lease: int, key: str, ceiling: int) -> None:
        """Wait for a slot of model ``key`` (lease mode)."""
        model = self._model(key, ceiling)
        limiter = model.limiter or AdaptiveLimiter(model.ceiling, key)
        model.limiter = limiter
        epoch = await limiter.acquire()
        name = (worker, lease)
        if worker in self._forgotten or name in self._abandoned:
            self._abandoned.discard(name)
            limiter.release("failed", epoch)
            return
        self._leases[name] = (key, epoch)
        self._granted += 1
        self._most_leased = max(self._most_leased, len(self._leases))

    def release(self, worker: str, lease: int, outcome: Outcome) -> None:
        """Give a lease's slot back; ``outcome`` drives the model's AIMD window."""
        held = self._leases.pop((worker, lease), None)
        if held is not None:
            key, epoch = held
            limiter = self._models[key].limiter
            assert limiter is not None
            limiter.release(outcome, epoch)

    def abandon(self, worker: str, lease: int) -> None:
        """A request stopped waiting: free its slot now, or when it is granted."""
        if (worker, lease) in self._leases:
            self.release(worker, lease, "failed")
        else:
            self._abandoned.add((worker, lease))

    def stats(self) -> dict[str, Any]:
        """Per model: mode, limit, window, quotas; leases granted and most held at once."""
        return {
            "leases_granted": self._granted,
            "most_leased": self._most_leased,
            "leased": len(self._leases),
            "throttled_reports": self._throttled,
            "models": {
                key: {
                    "mode": "leases" if model.limiter is not None else "quotas",
                    "ceiling": model.ceiling,
                    "window": int(model.window),
                    "quotas": sorted(model.quotas.values(), reverse=True),
                }
                for key, model in self._models.items()
            },
        }


class _Gate:
    """A worker's slots of one model: at most ``limit`` requests at once (its quota)."""

    def __init__(self) -> None:
        self.limit = 0
        self.round = -1
        self.active = 0
        self.ok = 0
        self.throttled = False
        self.reporting: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        self.leases = False
        self.waiters: deque[asyncio.Future[None]] = deque()

    async def take(self) -> None:
        if self.active < self.limit and not self.waiters:
            self.active += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.give()  # granted just before the cancellation
            elif future in self.waiters:
                self.waiters.remove(future)
            raise

    def give(self) -> None:
        self.active -= 1
        self.wake()

    def wake(self) -> None:
        while self.waiters and self.active < self.limit:
            future = self.waiters.popleft()
            if not future.done():
                self.active += 1
                future.set_result(None)


class SlotsClient:
    """A worker's :class:`~scorekit.judge.ratelimit.ClusterGate` over the coordinator.

    Args:
        coordinator: the :class:`SlotCoordinator` actor's handle.
        worker: this worker's id.
        report_every: outcomes between two reports (at least the quota's size).
    """

    def __init__(self, coordinator: Any, worker: str, report_every: int = 16) -> None:
        self._coordinator = coordinator
        self._worker = worker
        self._report_every = report_every
        self._gates: dict[str, _Gate] = {}
        self._numbers = itertools.count()

    async def _report(self, key: str, gate: _Gate, ceiling: int) -> None:
        ok, throttled = gate.ok, gate.throttled
        gate.ok, gate.throttled = 0, False
        try:
            if not ok and not throttled and gate.ready.is_set():
                await asyncio.sleep(0.02)  # a poll for room (a quota of 0): not in a busy loop
            quota, round_, leases = await self._coordinator.report.remote(
                self._worker, key, ceiling, ok, throttled, gate.round, gate.active
            )
        finally:
            gate.reporting = None
        gate.leases, gate.limit, gate.round = leases, quota, round_
        gate.ready.set()
        gate.wake()
        if gate.waiters and gate.active == 0 and gate.limit == 0:
            self._schedule(key, gate, ceiling)  # no request of ours will report: ask again

    def _schedule(self, key: str, gate: _Gate, ceiling: int) -> None:
        if gate.reporting is None:
            gate.reporting = asyncio.ensure_future(self._report(key, gate, ceiling))

    async def acquire(self, key: str, ceiling: int) -> object:
        """Wait for a cluster slot of model ``key``; the lease back (for :meth:`release`)."""
        gate = self._gates.get(key)
        if gate is None:
            gate = self._gates[key] = _Gate()
            self._schedule(key, gate, ceiling)
        await gate.ready.wait()
        if gate.leases:
            lease = next(self._numbers)
            reply = self._coordinator.acquire.remote(self._worker, lease, key, ceiling)
            try:
                await reply
            except asyncio.CancelledError:
                self._coordinator.abandon.remote(self._worker, lease)
                raise
            return (key, ceiling, lease)
        if gate.limit == 0 and gate.active == 0:
            self._schedule(key, gate, ceiling)  # no room yet: ask again, as no release will
        await gate.take()
        return (key, ceiling, None)

    def release(self, lease: object, outcome: Outcome) -> None:
        """Give the slot back; report the outcomes every few requests (no waiting)."""
        key, ceiling, number = cast("tuple[str, int, int | None]", lease)
        if number is not None:
            self._coordinator.release.remote(self._worker, number, outcome)
            return
        gate = self._gates[key]
        gate.ok += outcome == "ok"
        gate.throttled = gate.throttled or outcome == "throttled"
        gate.give()
        starved = bool(gate.waiters) and gate.active == 0 and gate.limit == 0
        if gate.throttled or starved or gate.ok >= max(self._report_every, gate.limit):
            self._schedule(key, gate, ceiling)
