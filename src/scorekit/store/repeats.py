"""The repeated trials of a run (``run_evals(trials=k)``): written beside the results, read back.

Trial 0 of each (item, scorer) is its row in ``results`` (what every view shows as the run's
result); trials 1 to k-1 are rows of the ``trials`` table, with their status, score and judge
usage. :func:`trial_scores` puts them together per scorer and item, in trial order.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.exc import SQLAlchemyError

from scorekit.errors import StoreError
from scorekit.items import ItemResult
from scorekit.store.engines import Database
from scorekit.store.tables import results, trials

__all__ = ["trial_rows", "trial_scores", "write_trials"]


def trial_rows(run_id: str, outcome: ItemResult, created_at: datetime) -> list[dict[str, Any]]:
    """The ``trials`` rows of one item's repeats (trial 1 first)."""
    return [
        {
            "run_id": run_id,
            "item_id": outcome.item.id,
            "scorer_id": scorer_id,
            "trial": number,
            "status": result.status,
            "score": result.score,
            "judge_calls": result.judge_usage.calls,
            "judge_input_tokens": result.judge_usage.input_tokens,
            "judge_output_tokens": result.judge_usage.output_tokens,
            "created_at": created_at,
        }
        for scorer_id, repeats in outcome.trials.items()
        for number, result in enumerate(repeats, start=1)
    ]


def write_trials(db: Database, rows: Sequence[dict[str, Any]], *, replace: bool = False) -> None:
    """Insert ``trials`` rows in one transaction.

    Args:
        db: the results database.
        rows: from :func:`trial_rows`.
        replace: first delete the stored trials of the same (run, item, scorer) pairs (a
            resumed run scoring again items that failed before).

    Raises:
        StoreError: the write failed; none of the rows is stored.
    """
    db.insert(trials, rows, what="trials", replace=replace)


def trial_scores(db: Database, run_id: str) -> dict[str, dict[str, list[float | None]]]:
    """Scorer id → item id → its scores in trial order (``None``: not ``ok``).

    Only the items with repeats; a run without trials gives ``{}``.

    Raises:
        StoreError: the read failed.
    """
    if not inspect(db.engine).has_table(trials.name):
        return {}
    found: dict[str, dict[str, dict[int, float | None]]] = {}
    try:
        with db.engine.connect() as conn:
            rows = conn.execute(
                select(
                    trials.c.scorer_id,
                    trials.c.item_id,
                    trials.c.trial,
                    trials.c.status,
                    trials.c.score,
                ).where(trials.c.run_id == run_id)
            )
            for scorer_id, item_id, number, status, score in rows:
                value = score if status == "ok" else None
                found.setdefault(scorer_id, {}).setdefault(item_id, {})[number] = value
            if not found:
                return {}
            first = conn.execute(
                select(
                    results.c.scorer_id, results.c.item_id, results.c.status, results.c.score
                ).where(results.c.run_id == run_id)
            )
            for scorer_id, item_id, status, score in first:
                if item_id in found.get(scorer_id, {}):
                    found[scorer_id][item_id][0] = score if status == "ok" else None
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read trials: {exc}", run_id=run_id) from exc
    return {
        sid: {
            item: [by_trial.get(t) for t in range(max(by_trial) + 1)]
            for item, by_trial in items.items()
        }
        for sid, items in found.items()
    }
