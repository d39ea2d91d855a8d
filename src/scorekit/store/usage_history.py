"""What a scorer's judge calls cost in earlier stored runs: the measured means an estimate uses.

``estimate_run`` (:mod:`scorekit.cost.estimate`) takes a scorer's expected completion tokens
and seconds per call from here when the store holds earlier runs of the same scorer id with the
same judge model; only results whose every call was sent (no cache hit) and that did not fail
count, so that a cached reply (no tokens, no wait) or a cancelled call (no tokens reported)
does not pull the means down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from scorekit.errors import StoreError
from scorekit.store.records import RunRecord
from scorekit.store.store import Store
from scorekit.store.tables import results

__all__ = ["HISTORY_RUNS", "UsageHistory", "usage_history"]

HISTORY_RUNS = 5
"""The most recent stored runs of a scorer with its judge that the means are taken over."""


@dataclass(frozen=True)
class UsageHistory:
    """Judge usage of a scorer in earlier runs, over the results whose calls were all sent.

    Attributes:
        runs: the runs read (newest first, at most :data:`HISTORY_RUNS`).
        results: the results counted.
        calls: their judge calls.
        input_tokens: their prompt tokens.
        output_tokens: their completion tokens.
        latency_s: seconds they waited for the judge.
    """

    runs: tuple[str, ...] = ()
    results: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0

    @property
    def output_per_call(self) -> float | None:
        """Mean completion tokens per call, or ``None`` without a measured call."""
        return self.output_tokens / self.calls if self.calls else None

    @property
    def seconds_per_call(self) -> float | None:
        """Mean seconds per call, or ``None`` without a measured call."""
        return self.latency_s / self.calls if self.calls else None


def usage_history(
    store: Store,
    scorer_id: str,
    judge: str,
    *,
    runs: int = HISTORY_RUNS,
    listed: Sequence[RunRecord] | None = None,
) -> UsageHistory:
    """The judge usage of ``scorer_id`` with ``judge`` in the newest stored runs that have it.

    Args:
        store: the results database.
        scorer_id: the scorer's id in the runs.
        judge: its judge model string (``"openai/gpt-4o-mini"``), as runs store it.
        runs: how many of the newest such runs to read, >= 1.
        listed: the store's runs, newest first, when the caller has listed them already (an
            estimate asks for each of its scorers); ``None``: listed here.

    Returns:
        The totals (all zero when the store holds no such run).

    Raises:
        StoreError: the read failed.
    """
    matching: list[str] = []
    for run in store.list_runs(None) if listed is None else listed:
        if any(s.get("id") == scorer_id and s.get("judge") == judge for s in run.scorers):
            matching.append(run.id)
            if len(matching) >= runs:
                break
    if not matching:
        return UsageHistory()
    query = select(
        func.count(),
        func.coalesce(func.sum(results.c.judge_calls), 0),
        func.coalesce(func.sum(results.c.judge_input_tokens), 0),
        func.coalesce(func.sum(results.c.judge_output_tokens), 0),
        func.coalesce(func.sum(results.c.judge_latency_s), 0.0),
    ).where(
        results.c.run_id.in_(matching),
        results.c.scorer_id == scorer_id,
        results.c.judge_calls > 0,
        results.c.judge_cache_hits == 0,
        results.c.status != "error",  # a failed call (a timeout) reports no tokens
    )
    try:
        with store.engine.connect() as conn:
            row = conn.execute(query).one()
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the judge usage of {scorer_id}: {exc}") from exc
    count, calls, prompt, completion, seconds = row
    return UsageHistory(
        tuple(matching), int(count), int(calls), int(prompt), int(completion), float(seconds)
    )
