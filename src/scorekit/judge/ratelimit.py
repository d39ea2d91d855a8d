"""Per-model concurrency limits with adaptive rate control (AIMD).

Every judge on the same model (same provider, model name and base URL) shares one
:class:`AdaptiveLimiter`, so many scorers sharing a model together stay within its limit.
The limiter admits at most ``window`` requests at once, where ``window`` starts at the
configured concurrency (the ceiling) and adapts like TCP congestion control:

* on HTTP 429 it halves (multiplicative decrease, never below 1), once per burst: 429s of
  requests admitted before the last decrease do not halve it again;
* on each success it grows by ``1 / window`` (additive increase: about one more slot per
  window's worth of successes), up to the ceiling.

The ceiling is the smallest concurrency asked for by the judges *alive* on that model: a judge
made with ``concurrency=1`` holds every judge on the model to one request at a time while it
exists, and the ceiling goes back up once it is garbage-collected (a claim ends with its
judge). A judge cannot raise the ceiling above what another live judge asked for: the
provider limit someone configured is respected, but it does not outlive them.

The limiter is thread-safe and works across event loops (the sync bridge runs calls on a
worker thread's loop): waiters are futures of their own loop, woken thread-safely.

A process may also install one :class:`ClusterGate` (:func:`install_cluster_gate`): every
request then holds a slot of it too, after its slot here, under the limiter's key. A Ray worker
installs one that leases slots from one actor for the whole cluster
(:mod:`scorekit.distributed.slots`), so many processes together stay within one limit; this
per-process limiter keeps working inside each of them.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import weakref
from collections import deque
from typing import Literal, Protocol

from scorekit.errors import JudgeHTTPError
from scorekit.judge.model import JudgeModel, JudgeRequest, JudgeResponse

__all__ = [
    "AdaptiveLimiter",
    "ClusterGate",
    "Outcome",
    "RateLimitedModel",
    "install_cluster_gate",
    "shared_limiter",
]

Outcome = Literal["ok", "throttled", "failed"]
"""How an admitted request ended: success, HTTP 429, or another failure (no change)."""

_registry_lock = threading.Lock()
_registry: dict[str, AdaptiveLimiter] = {}


class ClusterGate(Protocol):
    """A limit shared with other processes, held by each request on top of its limiter's."""

    async def acquire(self, key: str, ceiling: int) -> object:
        """Wait for a slot for model ``key`` (``ceiling``: the local limiter's); a lease back.

        Cancelled while waiting, it must leave no slot taken.
        """
        ...

    def release(self, lease: object, outcome: Outcome) -> None:
        """Give the slot of ``lease`` back, reporting how the request ended (not blocking)."""
        ...


_cluster_gate: ClusterGate | None = None


def install_cluster_gate(gate: ClusterGate | None) -> None:
    """Make every request of this process also hold a slot of ``gate`` (``None``: no gate)."""
    global _cluster_gate
    _cluster_gate = gate


class AdaptiveLimiter:
    """An AIMD concurrency limiter.

    Args:
        ceiling: the most requests in flight, ``>= 1``.
        key: the model's key in the shared registry (what a :class:`ClusterGate` is asked
            about), or ``None``.
    """

    def __init__(self, ceiling: int, key: str | None = None) -> None:
        self.key = key
        self._lock = threading.Lock()
        self._ceiling = ceiling
        self._window = float(ceiling)
        self._active = 0
        self._epoch = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()
        self._claims: dict[int, int] = {}
        # claims whose owner was garbage-collected: appended by finalizers (which may run in
        # the middle of any code, even while this thread holds the lock), settled under the
        # lock at the next acquire or ceiling read
        self._ended: deque[int] = deque()
        self._tokens = itertools.count()

    @property
    def ceiling(self) -> int:
        """The most requests in flight allowed.

        The smallest concurrency claimed by a live judge (or the one given at construction).
        """
        if self._ended:
            with self._lock:
                self._settle_locked()
        return self._ceiling

    def claim(self, ceiling: int, owner: object | None = None) -> None:
        """Ask that at most ``ceiling`` requests be in flight.

        The limiter's ceiling is the smallest live claim. A claim with an ``owner`` ends when
        the owner is garbage-collected (the ceiling may then rise); one without lasts for the
        limiter's life.
        """
        token = next(self._tokens)
        with self._lock:
            self._claims[token] = ceiling
            self._settle_locked()
        if owner is not None:
            weakref.finalize(owner, self._ended.append, token)

    def _settle_locked(self) -> None:
        while self._ended:
            self._claims.pop(self._ended.popleft(), None)
        if not self._claims:
            return
        ceiling = min(self._claims.values())
        if ceiling < self._ceiling:
            self._window = min(self._window, float(ceiling))
        elif ceiling > self._ceiling and self._window >= self._ceiling:
            self._window = float(ceiling)  # it was held at the old ceiling, not throttled
        raised = ceiling > self._ceiling
        self._ceiling = ceiling
        if raised:
            self._wake_locked()

    @property
    def limit(self) -> int:
        """Requests allowed in flight now (``1 <= limit <= ceiling``)."""
        return max(1, int(self._window))

    @property
    def active(self) -> int:
        """Requests in flight now."""
        return self._active

    async def acquire(self) -> int:
        """Wait for a slot; return the epoch to pass back to :meth:`release`."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._ended:
                self._settle_locked()
            if self._active < self.limit and not self._waiters:
                self._active += 1
                return self._epoch
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, future))
        try:
            await future
        except asyncio.CancelledError:
            with self._lock:
                if (loop, future) in self._waiters:
                    self._waiters.remove((loop, future))
                    raise
            if future.done() and not future.cancelled():
                self.release("failed", self._epoch)  # granted just before the cancellation
            # else the grant is on its way and _grant frees the slot
            raise
        return self._epoch

    def release(self, outcome: Outcome, epoch: int) -> None:
        """Free a slot and adapt the window to the request's outcome."""
        with self._lock:
            self._active -= 1
            if outcome == "ok":
                self._window = min(float(self._ceiling), self._window + 1.0 / self._window)
            elif outcome == "throttled" and epoch == self._epoch:
                self._window = max(1.0, self._window / 2)
                self._epoch += 1
            self._wake_locked()

    def _wake_locked(self) -> None:
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        while self._waiters and self._active < self.limit:
            loop, future = self._waiters.popleft()
            if future.done():
                continue
            self._active += 1
            if loop is running:
                # the waiter's own loop, on its thread: grant at once (set_result only
                # schedules the waiter), one pass of the loop sooner than through _grant
                future.set_result(None)
                continue
            try:
                loop.call_soon_threadsafe(self._grant, future)
            except RuntimeError:  # the waiter's loop is closed
                self._active -= 1

    def _grant(self, future: asyncio.Future[None]) -> None:
        if future.done():  # cancelled while the grant was on its way
            with self._lock:
                self._active -= 1
                self._wake_locked()
        else:
            future.set_result(None)


def shared_limiter(key: str, ceiling: int, owner: object | None = None) -> AdaptiveLimiter:
    """Return the limiter shared by every judge on model ``key``, claiming ``ceiling``.

    The ceiling is the smallest concurrency claimed by a live owner (see
    :meth:`AdaptiveLimiter.claim`); without an ``owner`` the claim is permanent.
    """
    with _registry_lock:
        limiter = _registry.get(key)
        if limiter is None:
            limiter = _registry[key] = AdaptiveLimiter(ceiling, key)
    limiter.claim(ceiling, owner)
    return limiter


class RateLimitedModel:
    """Wrap ``inner`` so that requests pass through ``limiter``.

    Args:
        inner: the model below.
        limiter: the shared limiter of this model.
    """

    def __init__(self, inner: JudgeModel, limiter: AdaptiveLimiter) -> None:
        self.inner = inner
        self.limiter = limiter

    @property
    def model_id(self) -> str:
        """The inner model's id."""
        return self.inner.model_id

    def __repr__(self) -> str:
        return f"RateLimitedModel({self.inner!r}, limit={self.limiter.limit})"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Wait for a slot, forward the request, and report its outcome to the limiter."""
        epoch = await self.limiter.acquire()
        outcome: Outcome = "failed"
        gate, lease = _cluster_gate, None
        try:
            if gate is not None and self.limiter.key is not None:
                lease = await gate.acquire(self.limiter.key, self.limiter.ceiling)
            response = await self.inner.complete(request)
            outcome = "ok"
            return response
        except JudgeHTTPError as exc:
            if exc.status_code == 429:
                outcome = "throttled"
            raise
        finally:
            if gate is not None and lease is not None:
                gate.release(lease, outcome)
            self.limiter.release(outcome, epoch)
