"""The scoring process of live scoring: :func:`main`, in an interpreter of its own.

:class:`scorekit.live.process.ProcessWorker` starts it. It reads length-prefixed pickled
messages from its standard input, in order:

* ``("init", settings)``: the store's URL, the worker's concurrency and scorer time limit, the
  parent's ``sys.path`` (so ``module:factory`` scorer specs import here too) and the file its
  counters are published in;
* ``("scorers", set_id, blob)``: a wrapped function's scorers, pickled as their specs; unpickling
  builds them again (:meth:`scorekit.pipeline.Scorer.__reduce__`);
* ``("job", set_id, scorer_ids, key, item)``: one sampled call, scored by a
  :class:`~scorekit.live.worker.LiveWorker` of its own (its event loop thread) into the live runs
  of the store, as the in-process worker does. The queue of calls waiting to be scored is
  this worker's (``queue_size`` places; a job that finds it full is dropped and counted), so
  the application's process keeps no backlog: the pipe is read as fast as it is written;
* ``("flush", token)``: score everything received, write the runs, publish ``token``;
* ``("close", deadline)``: close the worker by that ``time.monotonic()`` deadline (what is left
  is counted abandoned), publish, exit. ``SIGTERM`` (the application's ``close`` ran out of
  time) does the same at once.

Its counters (:data:`COUNTERS`) are written after every job into a small file both processes
map (:mod:`mmap`), so the application reads them without a thread or a message. Its log records
(scorer failures, store errors) are written to standard output, one JSON object a line, and
logged again in the application on the ``scorekit.live`` logger. When its input ends without a
``close`` (the application died) it closes the worker within :data:`ORPHAN_CLOSE_S` and exits.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import mmap
import os
import pickle
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import IO, Any

from scorekit.judge.prices import PriceTable
from scorekit.live.daily_budget import DailyBudget
from scorekit.live.worker import LiveJob, LiveWorker
from scorekit.pipeline import Scorer

__all__ = ["COUNTERS", "HEADER", "NICE", "ORPHAN_CLOSE_S", "main", "read_message"]

HEADER = struct.Struct(">I")
"""The length prefix of each message (4 bytes, big-endian)."""

COUNTERS = struct.Struct("<9q")
"""The published counters: queued, scored, failed, pending, abandoned, dropped, flushed token,
closed, over budget."""

NICE = 10
"""How much the scoring process lowers its scheduling priority (``os.nice``): on a busy machine
the application's threads get the cores first, and scoring waits."""

ORPHAN_CLOSE_S = 5.0
"""Seconds an orphaned scoring process (its input closed without ``close``) goes on scoring."""


def read_message(stream: IO[bytes]) -> Any:
    """The next message of ``stream``, or ``None`` at its end.

    Raises:
        pickle.UnpicklingError: a message that is not a pickle.
    """
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    body = stream.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)


class _Stopped(BaseException):  # not an Exception: no handler of a message swallows it
    """SIGTERM arrived: stop reading, close the worker now."""


def _stop(signum: int, frame: object) -> None:
    raise _Stopped


def _same(item: Any) -> Any:
    return item


class _LineHandler(logging.Handler):
    """Writes each record as a JSON line: ``{"level", "message"}``, the traceback included."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self._stream = stream
        self._lock_out = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
        line = json.dumps({"level": record.levelno, "message": message})
        with self._lock_out:
            self._stream.write(line + "\n")
            self._stream.flush()


def main() -> None:
    """Run the scoring process until ``close`` or the end of its input."""
    stdin = sys.stdin.buffer
    handler = _LineHandler(sys.stdout)
    sys.stdout = sys.stderr  # a scorer's print() must not corrupt the log lines
    live_logger = logging.getLogger("scorekit.live")
    live_logger.addHandler(handler)
    live_logger.setLevel(logging.INFO)
    live_logger.propagate = False
    first = read_message(stdin)
    if not isinstance(first, tuple) or first[0] != "init":
        return
    settings: Mapping[str, Any] = first[1]
    with contextlib.suppress(OSError):  # background work: the application's threads come first
        os.nice(NICE)
    sys.path[:0] = [p for p in settings["path"] if p not in sys.path]

    from scorekit.store import Store

    with open(settings["counters"], "r+b") as file:
        shared = mmap.mmap(file.fileno(), COUNTERS.size)
    state = {"flushed": 0, "closed": 0}
    publish_lock = threading.Lock()
    worker: LiveWorker | None = None

    def publish() -> None:
        if worker is None:
            return
        stats = worker.stats()
        with publish_lock:
            COUNTERS.pack_into(
                shared,
                0,
                stats.queued,
                stats.scored,
                stats.failed,
                stats.pending,
                stats.abandoned,
                stats.dropped,
                state["flushed"],
                state["closed"],
                stats.over_budget,
            )

    store = Store(settings["store"])
    prices = PriceTable(settings.get("prices"))
    worker = LiveWorker(
        store,
        queue_size=settings["queue_size"],
        concurrency=settings["concurrency"],
        scorer_timeout=settings["scorer_timeout"],
        on_done=publish,
        budget=DailyBudget.from_settings(settings.get("budget"), prices),
        prices=prices,
    )
    sets: dict[int, tuple[Scorer, ...] | None] = {}
    deadline: float | None = None
    signal.signal(signal.SIGTERM, _stop)
    try:
        deadline = _serve(stdin, worker, sets, state, publish)
    except _Stopped:
        deadline = time.monotonic()
    left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    worker.close(left)
    state["closed"] = 1
    publish()
    store.close()
    shared.flush()


def _serve(
    stdin: IO[bytes],
    worker: LiveWorker,
    sets: dict[int, tuple[Scorer, ...] | None],
    state: dict[str, int],
    publish: Callable[[], None],
) -> float | None:
    """Read and handle messages until ``close`` (its deadline) or the input's end."""
    live_logger = logging.getLogger("scorekit.live")
    while True:
        message = read_message(stdin)
        if message is None:  # the application is gone: close within ORPHAN_CLOSE_S
            return time.monotonic() + ORPHAN_CLOSE_S
        kind = message[0]
        if kind == "scorers":
            try:
                sets[message[1]] = tuple(pickle.loads(message[2]))
            except Exception:
                sets[message[1]] = None
                live_logger.exception("live scorers could not be built in the scoring process")
        elif kind == "job":
            _, set_id, scorer_ids, key, item = message
            scorers = sets.get(set_id)
            if scorers is None:
                worker.count("queued")
                worker.count("failed", len(scorer_ids))
                publish()
                continue
            chosen = tuple(s for s in scorers if s.id in scorer_ids)
            job = LiveJob(functools.partial(_same, item), chosen, key, scorers, set_id)
            worker.submit(job)
            publish()
        elif kind == "flush":
            worker.flush(None)
            state["flushed"] = message[1]
            publish()
        elif kind == "close":
            deadline: float | None = message[1]
            return deadline


if __name__ == "__main__":
    main()
