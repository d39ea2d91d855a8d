"""What the store hands back: runs, stored results and comparisons.

Per-scorer statistics are :class:`~scorekit.summary.ScoreSummary` values
(:meth:`~scorekit.store.Store.run_summaries`).

Plain frozen values, read from the database; nothing here talks to it.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, cast

from scorekit.results import Status
from scorekit.steps import RECORD_FIELDS, ItemRecord
from scorekit.usage import JudgeUsage

__all__ = [
    "ERROR_LIMITS_KEY",
    "HEARTBEAT_S",
    "ORIGIN_FIELDS",
    "RUN_SOURCES",
    "STALE_AFTER_S",
    "ResultRecord",
    "RunRecord",
    "RunSource",
    "RunStatus",
    "ScoreRegression",
    "ScorerChange",
    "run_record",
    "stored_error_limits",
    "this_writer",
    "utc",
]

PROMPT_STEPS = ("preprocess", "analyze", "generate_score", "generate_reason")
"""The steps whose prompts have a column of their own (``<step>_prompt``)."""


def utc(value: datetime | None) -> datetime | None:
    """Return ``value`` as an aware UTC time; ``None`` stays ``None``.

    Every stored time is UTC. SQLite hands back naive datetimes; PostgreSQL aware ones in the
    session's time zone, converted here.
    """
    if value is None:
        return None
    if value.tzinfo is not None:
        return value.astimezone(timezone.utc)
    return value.replace(tzinfo=timezone.utc)


RunSource = Literal["TEST", "LIVE", "TRACE"]
"""Where a stored run's items came from (Mastra's ``source``): a dataset run (``TEST``), sampled
live calls of an application (``LIVE``), or recorded traces (``TRACE``)."""

RUN_SOURCES: tuple[RunSource, ...] = ("TEST", "LIVE", "TRACE")
"""Every :data:`RunSource`, in that order."""

ORIGIN_FIELDS: tuple[str, ...] = (
    "entity_id",
    "entity_type",
    "entity",
    "call_run_id",
    "trace_id",
    "span_id",
    "thread_id",
    "resource_id",
)
"""The ``results`` columns that say where an item came from (Mastra's score row fields
``entityId``, ``entityType``, ``entity``, ``runId``, ``traceId``, ``spanId``, ``threadId``,
``resourceId``): a live call or a trace span sets them through its item's ``trace`` mapping
(:func:`scorekit.store.rows.origin_values`); dataset items leave them ``None``."""

RunStatus = Literal["running", "finished", "interrupted", "failed"]
"""How a stored run ended: still going (or crashed), completed, stopped by Ctrl-C or
cancellation, or ended by an error outside any item (the store, the caller's callback)."""


HEARTBEAT_S = 30.0
"""Seconds between two heartbeats of a running run's writer."""
STALE_AFTER_S = 4 * HEARTBEAT_S
"""Seconds without a heartbeat after which a ``running`` run is shown as interrupted."""


@dataclass(frozen=True)
class RunRecord:
    """A stored run.

    Attributes:
        id: the run's uuid4.
        name: the caller's name for it, or ``None``.
        status: how it ended (see :data:`RunStatus`).
        started_at: when it started (UTC).
        finished_at: when it ended (UTC), ``None`` while running or after a crash.
        config: what the caller ran (dataset, target, scorer options, model...), JSON data.
        scorers: ``[{"id", "name", "description"}]`` in run order.
        thresholds: scorer id → minimum mean.
        total_items: items processed (written when the run ends).
        totals: scorer id → :meth:`ScoreSummary.to_dict() <scorekit.summary.ScoreSummary.to_dict>`
            of the run's stored rows (``{"counts", "mean", "median", "min", "max",
            "histogram"}``; older rows lack ``histogram``), written when the run ends and
            cleared when it is resumed; read them through ``Store.run_summaries``.
        judge_usage: judge usage totals of the run (``JudgeUsage.to_dict()`` shape).
        verdict: ``"passed"`` / ``"failed"``, ``None`` until the run finishes.
        source: where the run's items came from (see :data:`RunSource`).
        heartbeat_at: the last sign of life of the process writing the run (UTC; written at
            its start, then every :data:`HEARTBEAT_S` seconds), or
            ``None`` for a run stored before heartbeats.
        writer: ``"host:pid"`` of the process that started (or resumed) the run, or ``None``.
    """

    id: str
    name: str | None
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None
    config: dict[str, Any]
    scorers: list[dict[str, Any]]
    thresholds: dict[str, float]
    total_items: int
    totals: dict[str, dict[str, Any]]
    judge_usage: dict[str, Any]
    verdict: str | None
    source: str = "TEST"
    heartbeat_at: datetime | None = None
    writer: str | None = None

    def writer_gone(self) -> bool:
        """Whether the process writing this run is known to be dead (its pid, on this host).

        ``False`` when it is alive, runs on another host, or is not known.
        """
        host, _, pid = (self.writer or "").rpartition(":")
        if host != socket.gethostname() or not pid.isdigit():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # alive, another user's
            return False
        return False

    def stale_since(self, now: datetime | None = None) -> datetime | None:
        """When a ``running`` run last showed life, if that is over :data:`STALE_AFTER_S` ago.

        A process killed outright (``kill -9``, a lost machine) leaves its run ``running``
        for ever; its heartbeat stops. ``None`` for a run that is not ``running`` or is alive.

        Args:
            now: the time to judge at (UTC; default now).
        """
        if self.status != "running":
            return None
        last = self.heartbeat_at or self.started_at
        now = now or datetime.now(timezone.utc)
        return last if (now - last).total_seconds() > STALE_AFTER_S else None

    def shown_status(self, now: datetime | None = None) -> str:
        """The status every view shows: ``interrupted`` for a run whose heartbeat stopped."""
        return "interrupted" if self.stale_since(now) is not None else self.status

    @property
    def scorer_ids(self) -> list[str]:
        """The ids of the run's scorers, in run order."""
        return [str(s["id"]) for s in self.scorers]


def this_writer() -> str:
    """``"host:pid"`` of this process, as :attr:`RunRecord.writer` records it."""
    return f"{socket.gethostname()}:{os.getpid()}"


def run_record(row: Any) -> RunRecord:
    """The :class:`RunRecord` of a row of the ``runs`` table (the store and the viewer read it)."""
    return RunRecord(
        id=row.id,
        name=row.name,
        status=row.status,
        started_at=cast(datetime, utc(row.started_at)),
        finished_at=utc(row.finished_at),
        config=row.config or {},
        scorers=row.scorers or [],
        thresholds=row.thresholds or {},
        total_items=row.total_items or 0,
        totals=row.totals or {},
        judge_usage=row.judge_usage or {},
        verdict=row.verdict,
        source=row.source or "TEST",
        heartbeat_at=utc(getattr(row, "heartbeat_at", None)),
        writer=getattr(row, "writer", None),
    )


@dataclass(frozen=True)
class ResultRecord(ItemRecord):
    """One stored (item, scorer) result.

    The item record's fields (:class:`~scorekit.steps.ItemRecord`: ``input``, ``output``,
    ``ground_truth``, ``context``, ...) hold the values as read back (JSON: the context a list
    of strings). The other attributes mirror :class:`~scorekit.pipeline.ScorerRunResult` (step
    results as plain dicts/lists), plus the item's id and metadata, the storage
    ``source`` (``"TEST"``, ``"LIVE"``, ``"TRACE"``) and when the row was written, and where
    the item came from (:data:`ORIGIN_FIELDS`, ``None`` for dataset items): ``entity_id``
    (the scored function or span name), ``entity_type``, ``entity`` (a dict), ``call_run_id``
    (the run id of the scored call, Mastra's ``runId``), ``trace_id`` (32 hex digits),
    ``span_id`` (16 hex digits), ``thread_id``, ``resource_id``.
    """

    run_id: str
    item_id: str
    scorer_id: str
    scorer_run_id: str
    status: Status
    score: float | None
    reason: str | None
    preprocess_step_result: Any
    analyze_step_result: Any
    prompts: dict[str, str]
    judge_usage: JudgeUsage
    error: dict[str, Any] | None
    metadata: dict[str, Any]
    source: str
    duration_s: float
    created_at: datetime
    entity_id: str | None = None
    entity_type: str | None = None
    entity: dict[str, Any] | None = None
    call_run_id: str | None = None
    trace_id: str | None = None
    span_id: str | None = None
    thread_id: str | None = None
    resource_id: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ResultRecord:
        """Return the record of a ``results`` row.

        Args:
            row: column name → value; columns left out of a light read are ``None``.
        """
        prompts = {
            step: row[f"{step}_prompt"]
            for step in PROMPT_STEPS
            if row.get(f"{step}_prompt") is not None
        }
        return cls(
            run_id=row["run_id"],
            item_id=row["item_id"],
            scorer_id=row["scorer_id"],
            scorer_run_id=row["scorer_run_id"],
            status=row["status"],
            score=row["score"],
            reason=row["reason"],
            preprocess_step_result=row.get("preprocess_step_result"),
            analyze_step_result=row.get("analyze_step_result"),
            prompts=prompts,
            judge_usage=JudgeUsage(
                calls=row["judge_calls"],
                input_tokens=row["judge_input_tokens"],
                output_tokens=row["judge_output_tokens"],
                latency_s=row["judge_latency_s"],
                cache_hits=row["judge_cache_hits"],
            ),
            error=row["error"],
            **{name: row.get(name) for name in RECORD_FIELDS},
            metadata=row.get("item_metadata") or {},
            source=row["source"],
            duration_s=row["duration_s"],
            created_at=cast(datetime, utc(row["created_at"])),
            entity_id=row.get("entity_id"),
            entity_type=row.get("entity_type"),
            entity=row.get("entity"),
            call_run_id=row.get("call_run_id"),
            trace_id=row.get("trace_id"),
            span_id=row.get("span_id"),
            thread_id=row.get("thread_id"),
            resource_id=row.get("resource_id"),
        )


@dataclass(frozen=True)
class ScorerChange:
    """A scorer's mean in two runs, and its change over the items both runs scored.

    Attributes:
        scorer_id: the scorer.
        mean_a: its mean in the first run (``None``: no ``ok`` result there).
        mean_b: its mean in the second run.
        delta: the change over the paired items, ``paired_mean_b - paired_mean_a``; ``None``
            when no item is paired. Means over different items are never subtracted: two runs
            of different items would show a change that no item made.
        paired: items scored ``ok`` in both runs.
        newly_failed: items ``ok`` in the first run and ``error`` in the second.
        paired_mean_a: the first run's mean over the paired items (``None`` without any).
        paired_mean_b: the second run's mean over the paired items.
    """

    scorer_id: str
    mean_a: float | None
    mean_b: float | None
    delta: float | None
    paired: int
    newly_failed: int
    paired_mean_a: float | None = None
    paired_mean_b: float | None = None


@dataclass(frozen=True)
class ScoreRegression:
    """An item whose score dropped from one run to the other.

    Attributes:
        item_id: the item.
        scorer_id: the scorer.
        score_a: its score in the first run.
        score_b: its score in the second run.
        delta: ``score_b - score_a`` (negative).
    """

    item_id: str
    scorer_id: str
    score_a: float
    score_b: float
    delta: float


ERROR_LIMITS_KEY = "max_error_rate"
"""The key of a stored run's ``config`` that holds its error-rate limits (scorer id → share)."""


def stored_error_limits(config: Mapping[str, Any]) -> dict[str, float] | None:
    """A stored run's error-rate limits (scorer id → share), ``None`` when it has none.

    A run stored before the error-rate gate existed has none: its verdict did not use it.
    """
    raw = config.get(ERROR_LIMITS_KEY) if isinstance(config, Mapping) else None
    if not isinstance(raw, Mapping):
        return None
    return {
        str(sid): float(v)
        for sid, v in raw.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    }
