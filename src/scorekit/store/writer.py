"""``ResultWriter``: how ``run_evals`` streams finished items into the store.

Group commit: finished items queue up; one background thread takes everything queued and writes
it in one transaction, and while it writes the next batch queues. Batches are therefore as large
as the store is slow, and an item is written within about one transaction's time of finishing:
a crash (or a kill) loses the items being scored and at most the batch being written — never a
whole run. The thread also writes the run's heartbeat every
:data:`~scorekit.store.records.HEARTBEAT_S` seconds (busy or idle, never more often: it is one
small transaction beside the batches), so a run whose process was killed outright is shown as
interrupted once its heartbeat stops. When the queue outgrows
``max_pending`` items (a store slower than the scorers), :meth:`ResultWriter.put` waits, so
memory stays bounded whatever the dataset's size.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from scorekit.errors import StoreError
from scorekit.items import ItemResult
from scorekit.store.labels import current_labels, label_rows, write_labels
from scorekit.store.records import HEARTBEAT_S, RunSource
from scorekit.store.repeats import trial_rows, write_trials
from scorekit.store.rows import result_rows

if TYPE_CHECKING:
    from scorekit.store.store import Store

__all__ = ["ResultWriter"]

_MAX_BATCH = 2000  # items per transaction: keeps one transaction's size and lock time bounded


@dataclass(frozen=True)
class _Finished:
    outcome: ItemResult
    created_at: datetime
    skip: frozenset[str]


class ResultWriter:
    """Writes finished items to a store from one background thread (group commit).

    Args:
        store: the store.
        run_id: the run the rows belong to.
        replace: delete stored rows of the same (item, scorer) pairs first (resumed runs).
        max_pending: queued items above which :meth:`put` waits for the writer, >= 1.
        source: the rows' source (``"TEST"``, ``"LIVE"`` or ``"TRACE"``).
        heartbeat_s: seconds between the run's heartbeats (the run's start writes the first);
            see :meth:`~scorekit.store.Store.beat`.
    """

    def __init__(
        self,
        store: Store,
        run_id: str,
        *,
        replace: bool = False,
        max_pending: int = 5000,
        source: RunSource = "TEST",
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        self._store = store
        self._heartbeat_s = heartbeat_s
        self._source: RunSource = source
        self._run_id = run_id
        self._replace = replace
        self._labelled: set[tuple[str, str]] | None = None  # a resumed run's labelled pairs
        self._max_pending = max_pending
        self._pending: list[_Finished] = []
        self._closing = False
        self._error: StoreError | None = None
        self._cond = threading.Condition()
        self.written = 0
        """Items written so far."""
        self._thread = threading.Thread(
            target=self._loop, name="scorekit-store-writer", daemon=True
        )
        self._thread.start()

    def _loop(self) -> None:
        next_beat = time.monotonic() + self._heartbeat_s
        while True:
            with self._cond:
                while not self._pending and not self._closing:
                    if not self._cond.wait(timeout=max(0.0, next_beat - time.monotonic())):
                        break  # a heartbeat is due
                if not self._pending and self._closing:
                    return
                batch = self._pending[:_MAX_BATCH]
                del self._pending[:_MAX_BATCH]
                self._cond.notify_all()
            if time.monotonic() >= next_beat:
                self._beat()
                next_beat = time.monotonic() + self._heartbeat_s
            if not batch:
                continue
            try:
                rows = [
                    row
                    for done in batch
                    for row in result_rows(
                        self._run_id,
                        done.outcome,
                        done.created_at,
                        source=self._source,
                        skip=done.skip,
                    )
                ]
                self._store.write_results(rows, replace=self._replace)
                write_labels(self._store, self._new_labels(batch))
                trial_batch = [row for done in batch for row in trial_rows(
                    self._run_id, done.outcome, done.created_at)]  # fmt: skip
                write_trials(self._store, trial_batch, replace=self._replace)  # fmt: skip
            except Exception as exc:
                with self._cond:
                    self._error = (
                        exc
                        if isinstance(exc, StoreError)
                        else StoreError(f"cannot write results: {exc}", run_id=self._run_id)
                    )
                    self._pending.clear()
                    self._closing = True
                    self._cond.notify_all()
                return
            with self._cond:
                self.written += len(batch)
                self._cond.notify_all()

    def _new_labels(self, batch: list[_Finished]) -> list[dict[str, Any]]:
        """The dataset labels of a batch's items, but those the run already holds.

        A resumed run scores some items again; their dataset labels are stored already, and
        a label set since (``scorekit label``, the viewer) must stay the latest.
        """
        rows = [row for done in batch for row in label_rows(self._run_id, done.outcome,
                                                            done.created_at)]  # fmt: skip
        if not rows or not self._replace:
            return rows
        if self._labelled is None:
            self._labelled = set(current_labels(self._store, self._run_id))
        return [r for r in rows if (r["item_id"], r["scorer_id"]) not in self._labelled]

    def _beat(self) -> None:
        """Write the run's heartbeat; a failure is not the run's (the results are what count)."""
        with contextlib.suppress(StoreError):
            self._store.beat(self._run_id)

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    async def put(
        self, outcome: ItemResult, created_at: datetime, *, skip: frozenset[str] = frozenset()
    ) -> None:
        """Queue one finished item; waits while the queue is full.

        Raises:
            StoreError: an earlier write failed (the run cannot be stored any further).
        """
        self._raise_error()
        with self._cond:
            self._pending.append(_Finished(outcome, created_at, skip))
            self._cond.notify_all()
            full = len(self._pending) >= self._max_pending
        while full:
            await asyncio.sleep(0.005)
            self._raise_error()
            with self._cond:
                full = len(self._pending) >= self._max_pending

    def close(self) -> None:
        """Write everything queued, then stop the thread (blocking).

        Raises:
            StoreError: a write failed; the items of that batch and later ones are not stored.
        """
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()
        self._raise_error()
