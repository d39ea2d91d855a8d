"""The background worker of live scoring: a bounded queue and a thread with its own event loop.

It scores, in the application's interpreter, the functions whose scorers have no spec (and
all of them with ``LiveScoring(worker="thread")``); the scoring process
(:mod:`scorekit.live.child`) runs one of its own for the others.

The application's thread only puts a job on the queue (``put_nowait``: a few microseconds);
it never waits for scoring and never sees its errors. A full queue drops the job and counts
it. One daemon thread runs an event loop of its own (through :func:`scorekit._sync.run_sync`,
the one sync bridge) that takes jobs off the queue, scores up to ``concurrency`` of them at
once with :func:`scorekit.evals.score_item` (code scorers in worker threads under their time
limit, judge calls on the loop), and records each into its live run
(:mod:`scorekit.live.runs`). A scorer that raises or whose judge fails gives an ``error``
result, stored with its cause and logged on the ``scorekit.live`` logger.

Shutdown: :meth:`LiveWorker.flush` waits (up to a timeout) until nothing is queued or being
scored, then writes the runs; :meth:`LiveWorker.close` also stops the thread, and counts what
it could not finish in time as ``abandoned``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import NamedTuple

from scorekit._sync import run_sync
from scorekit.errors import StoreError
from scorekit.evals.per_item import score_item
from scorekit.items import EvalItem
from scorekit.judge.prices import PriceTable
from scorekit.judge.spending import BUDGET_STOP_KEY, JUDGE_LEDGER
from scorekit.live.daily_budget import DailyBudget
from scorekit.live.runs import LiveRun, RunKey
from scorekit.pipeline import Scorer
from scorekit.store import Store

__all__ = ["LiveJob", "LiveStats", "LiveWorker"]

logger = logging.getLogger("scorekit.live")

_IDLE_WAIT_S = 0.5  # an idle worker looks at the queue at least this often (a safety net)


class LiveJob(NamedTuple):
    """One sampled call to score (a named tuple: made on the application's path, it is cheap).

    Attributes:
        build: makes the call's item (input and output mapped in the worker, not in the
            application's thread); it may raise, which fails the job's scorers.
        scorers: the scorers that sampled the call.
        key: the live run the results go to.
        run_scorers: every scorer of the wrapped function (the run's scorers).
        set_id: which registered scorer set ``run_scorers`` is (the scoring process's name
            for it, :mod:`scorekit.live.process`); 0 for the thread worker.
    """

    build: Callable[[], EvalItem]
    scorers: tuple[Scorer, ...]
    key: RunKey
    run_scorers: tuple[Scorer, ...]
    set_id: int = 0


@dataclass(frozen=True)
class LiveStats:
    """Counters of live scoring since it started.

    Attributes:
        calls: wrapped calls that returned (a call that raised is not scored).
        queued: calls put on the queue (at least one scorer sampled them).
        scored: scorer results stored ``ok`` or ``skipped``.
        failed: scorer results stored ``error`` (a scorer raised, its judge failed), plus
            those of jobs that could not be built or stored.
        dropped: sampled calls not queued: the queue was full, or scoring was closed.
        pending: calls queued or being scored now.
        abandoned: calls still queued or being scored when :meth:`LiveWorker.close` ran out of
            time; never scored.
        not_sampled: calls no scorer sampled (or filtered in, or whose trace was sampled out).
        lost: calls handed to the scoring process that died before it stored them
            (:mod:`scorekit.live.process`; logged); never scored.
        over_budget: scorer results not scored because the day's judge budget was spent
            (:mod:`scorekit.live.daily_budget`); never stored.
    """

    calls: int = 0
    queued: int = 0
    scored: int = 0
    failed: int = 0
    dropped: int = 0
    pending: int = 0
    abandoned: int = 0
    not_sampled: int = 0
    lost: int = 0
    over_budget: int = 0

    def __add__(self, other: LiveStats) -> LiveStats:
        """The counters of two workers together."""
        return LiveStats(
            **{name: getattr(self, name) + getattr(other, name) for name in _STAT_NAMES}
        )


_STAT_NAMES = tuple(LiveStats.__dataclass_fields__)


class LiveWorker:
    """Scores queued jobs on a background thread with its own event loop.

    Args:
        store: the store the runs are recorded in.
        queue_size: most jobs queued at once (>= 1); past it jobs are dropped and counted.
        concurrency: jobs scored at once (>= 1).
        scorer_timeout: seconds one code-scorer call may take (``None``: no limit).
        on_done: called (on the worker thread) after each job is scored and recorded, or
            failed; the scoring process publishes its counters from it.
        budget: the service's judge budget per UTC day, or ``None`` for none.
        prices: the service's prices, stored with its runs (``None``: the table).
    """

    def __init__(
        self,
        store: Store,
        *,
        queue_size: int,
        concurrency: int,
        scorer_timeout: float | None,
        on_done: Callable[[], None] | None = None,
        budget: DailyBudget | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self._store = store
        self._budget = budget
        self._prices = prices
        self._queue: queue.Queue[LiveJob] = queue.Queue(maxsize=queue_size)
        self._concurrency = concurrency
        self._scorer_timeout = scorer_timeout
        self._on_done = on_done
        self._lock = threading.Lock()
        # next() on an itertools.count is atomic under the GIL: no lock on the caller's path
        self._counts = {name: itertools.count() for name in _STAT_NAMES if name != "pending"}
        self._in_flight = 0
        self._closed = False
        self._idle = False
        self._runs: dict[RunKey, LiveRun] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._main, name="scorekit-live", daemon=True)
        self._thread.start()
        self._started.wait()

    # -- the application's side ------------------------------------------------------------

    def count(self, name: str, n: int = 1) -> None:
        """Add ``n`` to one of the :class:`LiveStats` counters."""
        counter = self._counts[name]
        for _ in range(n):
            next(counter)

    def submit(self, job: LiveJob) -> bool:
        """Queue a job without waiting; ``False`` (counted as dropped) when full or closed."""
        if self._closed:
            self.count("dropped")
            return False
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            self.count("dropped")
            return False
        self.count("queued")
        self._wake_up()
        return True

    def _wake_up(self) -> None:
        if self._idle and self._loop is not None and self._wake is not None:
            self._idle = False
            self._loop.call_soon_threadsafe(self._wake.set)

    def stats(self) -> LiveStats:
        """The counters now."""
        # a count's pickling state is its next value, read without advancing it
        counts = {name: int(c.__reduce__()[1][0]) for name, c in self._counts.items()}
        return LiveStats(**counts, pending=self._queue.qsize() + self._in_flight)

    def flush(self, timeout: float | None) -> bool:
        """Wait until nothing is queued or being scored, then write the runs (``finished``).

        Args:
            timeout: seconds to wait at most; ``None``: no limit.

        Returns:
            Whether everything queued was scored and written in time.
        """
        loop = self._loop
        if loop is None or not self._thread.is_alive():
            return self._queue.empty()
        future = asyncio.run_coroutine_threadsafe(self._drain(), loop)
        try:
            future.result(timeout)
        except FutureTimeout:
            future.cancel()
            return False
        return True

    def close(self, timeout: float | None) -> LiveStats:
        """Refuse new jobs, flush for up to ``timeout`` seconds, then stop the thread.

        What is still queued or being scored then is counted as ``abandoned``; what was scored
        is written first.

        Returns:
            The final counters.
        """
        self._closed = True
        started = time.monotonic()
        self.flush(timeout)
        loop = self._loop
        if loop is not None and self._thread.is_alive() and self._stop is not None:
            loop.call_soon_threadsafe(self._stop.set)
            left = None if timeout is None else max(timeout - (time.monotonic() - started), 0)
            self._thread.join(None if left is None else left + 5.0)
        return self.stats()

    # -- the worker thread -----------------------------------------------------------------

    def _main(self) -> None:
        try:
            run_sync(self._serve())
        except BaseException:  # the worker must never take the process down
            logger.exception("the live scoring worker stopped")
        finally:
            self._started.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake, self._stop = asyncio.Event(), asyncio.Event()
        self._started.set()
        while not self._stop.is_set():
            if len(self._tasks) >= self._concurrency:  # no free slot: wait for one, or the stop
                stopping = asyncio.ensure_future(self._stop.wait())
                await asyncio.wait({*self._tasks, stopping}, return_when="FIRST_COMPLETED")
                stopping.cancel()
                continue
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                self._wake.clear()
                self._idle = True
                if not self._queue.empty():  # queued between the get and the flag
                    self._idle = False
                    continue
                waits = [asyncio.ensure_future(e.wait()) for e in (self._wake, self._stop)]
                await asyncio.wait(waits, timeout=_IDLE_WAIT_S, return_when="FIRST_COMPLETED")
                for waiting in waits:
                    waiting.cancel()
                self._idle = False
                continue
            with self._lock:
                self._in_flight += 1
            task = asyncio.create_task(self._handle(job))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await self._shutdown()

    async def _handle(self, job: LiveJob) -> None:
        try:
            ledger = self._budget.ledger(job.key.day) if self._budget is not None else None
            if ledger is not None and ledger.exhausted:  # the day's budget is spent
                self._not_scored(job, len(job.scorers))
                return
            try:
                item = job.build()
            except Exception as exc:
                self.count("failed", len(job.scorers))
                logger.warning("live call not scored: its item could not be built: %r", exc)
                return
            token = JUDGE_LEDGER.set(ledger)
            try:
                outcome = await score_item(item, job.scorers, scorer_timeout=self._scorer_timeout)
            finally:
                JUDGE_LEDGER.reset(token)
            refused = outcome.refused_by_budget()
            if refused:  # half-judged: not stored
                self._not_scored(job, len(refused))
                kept = {s: r for s, r in outcome.scorer_results.items() if s not in refused}
                if not kept:
                    return
                outcome = dataclasses.replace(outcome, scorer_results=kept, trials={})
            run = self._run(job)
            try:
                await run.recorder.record(outcome)
            except StoreError:
                self._runs.pop(job.key, None)
                raise
            run.items += 1
            for result in outcome.scorer_results.values():
                run.usage = run.usage + result.judge_usage
                if result.status == "error":
                    self.count("failed")
                    error = result.error
                    logger.warning(
                        "live scorer %s failed on %s (item %s): %s: %s",
                        result.scorer_id,
                        job.key.service,
                        item.id,
                        error.type if error else "error",
                        error.message if error else "",
                    )
                else:
                    self.count("scored")
        except Exception:
            self.count("failed", len(job.scorers))
            logger.exception("live results of %s could not be stored", job.key.service)
        finally:
            with self._lock:
                self._in_flight -= 1
            if self._on_done is not None:
                self._on_done()

    def _not_scored(self, job: LiveJob, results: int) -> None:
        """Count ``results`` of ``job`` left unscored by the day's budget.

        Its run is opened, so that the budget's stop is written on it when it finishes.
        """
        assert self._budget is not None
        self._budget.not_scored(job.key.day, results)
        self.count("over_budget", results)
        self._run(job)

    def _run(self, job: LiveJob) -> LiveRun:
        run = self._runs.get(job.key)
        if run is None:
            for key in [k for k in self._runs if k.day < job.key.day]:
                self._finish(key)  # a new day: the runs of the days before are done
            run = LiveRun(self._store, job.key, job.run_scorers, self._prices)
            self._runs[job.key] = run
        return run

    def _finish(self, key: RunKey) -> None:
        run = self._runs.pop(key)
        stop = self._budget.stop(key.day) if self._budget is not None else None
        try:
            if stop is not None:
                self._store.update_config(run.run_id, {BUDGET_STOP_KEY: stop})
            run.finish()
        except StoreError:
            logger.exception("the live run %s could not be finished", run.run_id)

    async def _drain(self) -> None:
        while not self._queue.empty() or self._in_flight:
            await asyncio.sleep(0.002)
        for key in list(self._runs):
            self._finish(key)

    async def _shutdown(self) -> None:
        abandoned = len(self._tasks)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
            abandoned += 1
        self.count("abandoned", abandoned)
        for key in list(self._runs):
            self._finish(key)
