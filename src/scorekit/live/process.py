"""The process worker of live scoring: the scoring runs in a child process, not the application's.

A scoring thread in the application's interpreter competes with the application for the
interpreter lock: its HTTP client, validation and SQLite writes held the application's calls up
by milliseconds (benchmarks/bench_live.py). So, when every scorer of a wrapped function carries
a spec (:func:`scorekit.scorers.build_scorer` attaches one), its calls are scored here:

* the application's thread puts the job on a :class:`queue.SimpleQueue` (a C call: about a
  microsecond) after checking its size against ``queue_size``; a full queue, or a closed or dead
  worker, drops the job and counts it. Nothing else runs on its path;
* one *feeder* thread wakes every :data:`POLL_S` seconds, takes what is queued, builds each
  call's item (``input_of`` / ``output_of`` run here), pickles it (values that do not pickle
  are sent as the JSON form the store would keep) and writes it to the child's standard input;
  a full pipe makes it wait, which leaves the jobs in the bounded queue;
* the child, :func:`scorekit.live.child.main` in a new interpreter started by ``subprocess``
  (nothing is forked, the application's ``__main__`` is not imported again), rebuilds the
  scorers from their specs, scores and stores (:mod:`scorekit.live.child`) and publishes its
  counters in a shared memory map, read by :meth:`ProcessWorker.stats` without waking anything;
* one *reader* thread sleeps on the child's standard output: it logs the child's records on the
  ``scorekit.live`` logger and notices the child's end. A child that dies unasked is logged
  (an error), what it had not stored is counted :attr:`~scorekit.live.LiveStats.lost`, and
  later calls are dropped and counted; it is not restarted.

The child is started by the feeder thread, so its start (half a second of imports) is never on
a wrapped call: calls made meanwhile wait in the queue.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import mmap
import os
import pickle
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_core import to_jsonable_python

import scorekit
from scorekit.judge.prices import PriceTable
from scorekit.live.child import COUNTERS, HEADER
from scorekit.live.daily_budget import DailyBudget
from scorekit.live.worker import LiveJob, LiveStats
from scorekit.pipeline import Scorer

__all__ = ["EXIT_GRACE_S", "POLL_S", "ProcessWorker"]

logger = logging.getLogger("scorekit.live")

POLL_S = 0.05
"""Seconds between the feeder thread's looks at the queue (it is never woken by a call): each
look takes the application's interpreter lock once, so they are few."""

_BATCH = 2000  # messages the feeder takes per look at most
EXIT_GRACE_S = 2.0
"""Seconds past ``close``'s timeout the child gets to exit, and again after ``SIGTERM``."""
_AFTER_CLOSE = ("calls", "dropped", "not_sampled")  # what calls made after close still count
_APP_COUNTS = ("calls", "queued", "dropped", "not_sampled", "failed", "abandoned", "lost")


def _plain(value: Any) -> Any:
    """A value as the store keeps it (JSON data), for values that do not pickle."""
    return to_jsonable_python(
        value, fallback=repr, serialize_unknown=True, bytes_mode="base64", inf_nan_mode="null"
    )


class ProcessWorker:
    """Scores queued jobs in a child process (see the module docstring).

    Args:
        store_url: the SQLAlchemy URL of the store the child records the runs in.
        queue_size: most jobs waiting in the child (>= 1), and in the application while the
            child starts or its pipe is full; past it jobs are dropped and counted.
        concurrency: jobs the child scores at once (>= 1).
        scorer_timeout: seconds one code-scorer call may take (``None``: no limit).
        budget: the service's judge budget per UTC day (kept by the child), or ``None``.
        prices: the service's prices, stored with its runs (``None``: the table).
    """

    def __init__(
        self,
        store_url: str,
        *,
        queue_size: int,
        concurrency: int,
        scorer_timeout: float | None,
        budget: DailyBudget | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._size = queue_size
        self._settings = {
            "store": store_url,
            "concurrency": concurrency,
            "queue_size": queue_size,
            "scorer_timeout": scorer_timeout,
            "budget": budget.to_settings() if budget is not None else None,
            "prices": {m: p.to_dict() for m, p in (prices.overrides if prices else {}).items()},
            "path": [p for p in sys.path if isinstance(p, str)],
        }
        # next() on an itertools.count is atomic under the GIL: no lock on the caller's path
        self._counts = {name: itertools.count() for name in _APP_COUNTS}
        self._sets = itertools.count(1)
        self._tokens = itertools.count(1)
        self._sent = 0  # jobs written to the child (the feeder's)
        self._settled = 0  # jobs that never reached the child: their item could not be built
        self._final: LiveStats | None = None
        self._at_close: dict[str, int] = {}
        self._closed = False
        self._closing = False
        self._dead = threading.Event()  # the child has exited (or never started)
        self._folder = tempfile.mkdtemp(prefix="scorekit-live-")
        counters = Path(self._folder) / "counters"
        counters.write_bytes(bytes(COUNTERS.size))
        with counters.open("r+b") as file:
            self._shared = mmap.mmap(file.fileno(), COUNTERS.size)
        self._settings["counters"] = str(counters)
        self._child: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._feeder = threading.Thread(target=self._feed, name="scorekit-live-feeder", daemon=True)
        self._feeder.start()

    # -- the application's side ------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The child process's id once it is started."""
        return None if self._child is None else self._child.pid

    def count(self, name: str, n: int = 1) -> None:
        """Add ``n`` to one of the application-side counters (calls, dropped...)."""
        counter = self._counts[name]
        for _ in range(n):
            next(counter)

    def register(self, scorers: Sequence[Scorer]) -> int:
        """Send a wrapped function's scorers to the child; their set id for its jobs.

        Raises:
            TypeError: a scorer has no spec (it cannot be rebuilt in another process).
            pickle.PicklingError: a spec's options do not pickle.
        """
        blob = pickle.dumps(tuple(scorers))
        set_id = next(self._sets)
        self._queue.put(("scorers", set_id, blob))
        return set_id

    def submit(self, job: LiveJob) -> bool:
        """Queue a job without waiting; ``False`` (counted as dropped) when full, closed or dead."""
        if self._closed or self._dead.is_set() or self._queue.qsize() >= self._size:
            next(self._counts["dropped"])
            return False
        self._queue.put(job)
        next(self._counts["queued"])
        return True

    def _read(self) -> tuple[int, ...]:
        return COUNTERS.unpack_from(self._shared, 0)

    def _mine(self, name: str) -> int:
        return int(self._counts[name].__reduce__()[1][0])  # a count's next value, not advanced

    def stats(self) -> LiveStats:
        """The counters now (the child's as it last published them)."""
        if self._final is not None:  # closed: only the application's counters still move
            since = {name: self._mine(name) - self._at_close[name] for name in _AFTER_CLOSE}
            return dataclasses.replace(
                self._final, **{name: getattr(self._final, name) + since[name] for name in since}
            )
        c_queued, c_scored, c_failed, c_pending, c_abandoned, c_dropped, _, _, c_over = self._read()
        mine = {name: self._mine(name) for name in _APP_COUNTS}
        done = c_queued - c_pending + c_dropped
        pending = mine["queued"] - done - mine["lost"] - mine["abandoned"] - self._settled
        return LiveStats(
            calls=mine["calls"],
            queued=mine["queued"],
            scored=c_scored,
            failed=mine["failed"] + c_failed,
            dropped=mine["dropped"] + c_dropped,
            pending=max(pending, 0),
            abandoned=mine["abandoned"] + c_abandoned,
            not_sampled=mine["not_sampled"],
            lost=mine["lost"],
            over_budget=c_over,
        )

    def flush(self, timeout: float | None) -> bool:
        """Wait until the child has scored and written everything queued before this call.

        Returns:
            Whether that happened within ``timeout`` seconds (``None``: no limit); ``False``
            at once when the child died unasked.
        """
        if self._dead.is_set():  # crashed: what it had is lost; closed: what is left is counted
            return self._closed and self.stats().pending == 0
        token = next(self._tokens)
        self._queue.put(("flush", token))
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._read()[6] < token:
            if self._dead.is_set() or (deadline is not None and time.monotonic() >= deadline):
                return False
            time.sleep(0.002)
        return True

    def close(self, timeout: float | None) -> LiveStats:
        """Refuse new jobs; let the child score what is queued for up to ``timeout`` seconds.

        The child then stops scoring, finishes its runs and exits. One still running
        :data:`EXIT_GRACE_S` after the timeout is sent ``SIGTERM`` (a child still reading its
        input then closes at once; one stuck closing, say behind a code scorer that never
        returns, ends) and killed :data:`EXIT_GRACE_S` later. What was never scored is counted
        as ``abandoned``; what was stored stays stored.

        Returns:
            The final counters.
        """
        if self._closed:
            return self.stats()
        self._closed = True
        deadline = None if timeout is None else time.monotonic() + timeout
        self._queue.put(("close", deadline))
        grace = None if deadline is None else deadline + EXIT_GRACE_S

        def left() -> float | None:
            return None if grace is None else max(grace - time.monotonic(), 0.0)

        self._feeder.join(left())
        child = self._child
        if child is not None:
            try:
                child.wait(left())
            except subprocess.TimeoutExpired:
                logger.warning("the live scoring process did not exit in time: terminated")
                self._stop_child(child)
        self._feeder.join(EXIT_GRACE_S)
        if self._reader is not None:
            self._reader.join(5.0)
        self._dead.set()
        self.count("abandoned", self.stats().pending)  # never reached the child's worker
        self._final = self.stats()
        self._at_close = {name: self._mine(name) for name in _AFTER_CLOSE}
        self._shared.close()
        shutil.rmtree(self._folder, ignore_errors=True)
        return self._final

    # -- the feeder and reader threads -------------------------------------------------------

    def _stop_child(self, child: subprocess.Popen[bytes]) -> None:
        self._closing = True
        child.terminate()
        try:
            child.wait(EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        package_root = str(Path(scorekit.__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        child = subprocess.Popen(
            [sys.executable, "-c", "from scorekit.live.child import main; main()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self._child = child
        assert child.stdin is not None
        child.stdin.write(self._frame(("init", self._settings)))
        child.stdin.flush()
        self._reader = threading.Thread(
            target=self._read_logs, args=(child,), name="scorekit-live-reader", daemon=True
        )
        self._reader.start()
        return child

    def _feed(self) -> None:
        try:
            child = self._start()
        except Exception:
            logger.exception("the live scoring process could not be started")
            self._dead.set()
            self._lose_queued()
            return
        assert child.stdin is not None
        stdin = child.stdin
        closing = False
        while not closing and not self._dead.is_set():
            time.sleep(POLL_S)
            frames: list[bytes] = []
            jobs = 0
            for _ in range(_BATCH):
                try:
                    message = self._queue.get_nowait()
                except queue.Empty:
                    break
                if isinstance(message, LiveJob):
                    frame = self._job_frame(message)
                    jobs += frame is not None
                else:
                    frame = self._frame(message)
                    closing = message[0] == "close"
                if frame is not None:
                    frames.append(frame)
                if closing:
                    break
            if not frames:
                continue
            try:  # one write a look: the application's thread is interrupted once, not per job
                stdin.write(b"".join(frames))
                stdin.flush()
                if closing:
                    stdin.close()
            except (OSError, ValueError):  # the child's input is closed: it died, or was stopped
                self.count("abandoned" if self._closed else "lost", jobs)
                self._dead.wait(5.0)
                break
            self._sent += jobs
        if not closing:
            self._lose_queued()

    @staticmethod
    def _frame(message: Any) -> bytes:
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        return HEADER.pack(len(body)) + body

    def _job_frame(self, job: LiveJob) -> bytes | None:
        """A job's message (its item built here), or ``None`` (counted failed) when it fails."""
        try:
            item = job.build()
            ids = tuple(s.id for s in job.scorers)
            try:
                return self._frame(("job", job.set_id, ids, job.key, item))
            except Exception:  # an input or output that does not pickle: send its stored form
                plain = dataclasses.replace(
                    item, input=_plain(item.input), output=_plain(item.output)
                )
                return self._frame(("job", job.set_id, ids, job.key, plain))
        except Exception as exc:
            self.count("failed", len(job.scorers))
            self._settled += 1
            logger.warning("live call not scored: its item could not be built: %r", exc)
            return None

    def _lose_queued(self) -> None:
        """Count what is left in the queue as lost (the child is dead)."""
        while True:
            try:
                message = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(message, LiveJob) and not self._closed:
                self.count("lost")
            elif isinstance(message, LiveJob):
                self.count("abandoned")

    def _read_logs(self, child: subprocess.Popen[bytes]) -> None:
        assert child.stdout is not None
        for raw in child.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            try:
                record = json.loads(line)
                level, message = int(record["level"]), str(record["message"])
            except (ValueError, KeyError, TypeError):
                level, message = logging.INFO, line
            logger.log(level, "%s", message)
        code = child.wait()
        if self._closed or self._closing:
            return
        c_queued, _, _, c_pending, _, c_dropped, *_ = self._read()
        lost = max(self._sent - (c_queued - c_pending + c_dropped), 0)
        self.count("lost", lost)
        self._dead.set()
        logger.error(
            "the live scoring process exited unasked (code %s): %d calls lost; later calls "
            "are dropped",
            code,
            lost,
        )
