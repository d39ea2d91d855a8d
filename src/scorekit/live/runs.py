"""The stored runs of live scoring: one per service, UTC day and set of scorers.

Live results are stored like any other (source ``LIVE``) and grouped into runs so that
``scorekit runs --source live``, ``show`` and the report read them as they read a dataset run:

* a run holds the calls of one *service* (the name given to
  :class:`~scorekit.live.LiveScoring`) made on one UTC day (the call's end time) and scored
  by one set of scorers (those attached to the wrapped function; functions sharing a set
  share the run, and each row names its function as ``entity_id``);
* its id is a name-based UUID (uuid5) of those three, so every process of the service — each
  worker of a web server, a restarted one — writes into the same run; its name is
  ``"<service> <day>"`` (e.g. ``"rag-api 2026-03-14"``);
* the run is ``running`` while calls are scored into it; :meth:`LiveScoring.flush
  <scorekit.live.LiveScoring.flush>`, :meth:`~scorekit.live.LiveScoring.close` (and exit)
  write what is scored and mark it ``finished`` with its totals (over every stored row of the
  run, whichever process wrote it); the next call reopens it. The first call of a new day
  finishes the open runs of the days before. A live run has no verdict.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from scorekit.errors import StoreError
from scorekit.evals.recorder import RunRecorder
from scorekit.judge.prices import PriceTable
from scorekit.pipeline import Scorer
from scorekit.store import Store
from scorekit.usage import JudgeUsage

__all__ = ["LiveRun", "RunKey", "live_run_id", "live_run_name"]

_NAMESPACE = uuid.UUID("5b0c3d7e-6f1a-4c59-9d3e-2a7f0e8b4c61")
"""The namespace of live run ids (fixed: changing it would split a day's run in two)."""


@dataclass(frozen=True)
class RunKey:
    """What a live run groups by.

    Attributes:
        service: the service's name.
        day: the UTC day of the calls.
        scorer_ids: the ids of the scorers attached to the wrapped function, sorted.
    """

    service: str
    day: date
    scorer_ids: tuple[str, ...]


def live_run_id(key: RunKey) -> str:
    """The run id of a service's calls on a day with a set of scorers (a uuid5 string).

    Example:
        >>> live_run_id(RunKey("rag-api", date(2026, 3, 14), ("faithfulness",)))[:8]
        '0fa94bc6'
    """
    name = "\n".join([key.service, key.day.isoformat(), *key.scorer_ids])
    return str(uuid.uuid5(_NAMESPACE, name))


def live_run_name(key: RunKey) -> str:
    """``"<service> <day>"``, the stored run's name."""
    return f"{key.service} {key.day.isoformat()}"


def _usage(data: object) -> JudgeUsage:
    if not isinstance(data, dict):
        return JudgeUsage()
    fields = ("calls", "input_tokens", "output_tokens", "cache_hits", "attempts")
    counts = {k: int(data[k]) for k in fields if isinstance(data.get(k), int)}
    latency = data.get("latency_s")
    return JudgeUsage(**counts, latency_s=float(latency) if isinstance(latency, float) else 0.0)


class LiveRun:
    """One live run opened in a store: started, or reopened when it exists.

    Args:
        store: the store.
        key: the run's service, day and scorer ids.
        scorers: the scorers (their rows are stored with a new run).
        prices: the service's prices (``None``: the table), stored with the run.

    Raises:
        StoreError: the run can be neither started nor reopened.
    """

    def __init__(
        self,
        store: Store,
        key: RunKey,
        scorers: Sequence[Scorer],
        prices: PriceTable | None = None,
    ) -> None:
        self.key = key
        """The run's service, day and scorer ids."""
        self.recorder = RunRecorder(store, source="LIVE")
        """The run's recorder (its writer)."""
        self.usage = JudgeUsage()
        """Judge usage of the results recorded into the run, its earlier usage included."""
        self.items = 0
        """Items in the run: its stored ones when it was reopened, plus those recorded since."""
        run_id = live_run_id(key)
        try:
            existing = store.get_run(run_id)
        except StoreError:
            existing = None
        if existing is not None and existing.id == run_id:
            self.usage = _usage(existing.judge_usage)
            self.recorder.resume(run_id, prices=prices)
            self.items = store.item_count(run_id)
            return
        config = {"service": key.service, "day": key.day.isoformat(), "live": True}
        try:
            self.recorder.start(
                run_id, scorers=scorers, name=live_run_name(key), config=config, prices=prices
            )
        except StoreError:  # another process of the service started it just now
            self.recorder.resume(run_id, prices=prices)
            self.items = store.item_count(run_id)

    @property
    def run_id(self) -> str:
        """The run's id."""
        return live_run_id(self.key)

    def finish(self) -> None:
        """Write what is queued; mark the run ``finished`` with its totals.

        Its item count is the items stored when this process opened it plus those it recorded
        (another process's rows written since are counted when that process finishes).

        Raises:
            StoreError: the results or the run row could not be written.
        """
        self.recorder.finish("finished", total_items=self.items, judge_usage=self.usage)
