"""A stored run's judge usage per scorer: read from its result and trial rows, or from its row.

The money a view shows for a scorer is its judge usage at its judge's stored price
(:mod:`scorekit.report.costs`). Its usage follows the rule of the summaries
(:mod:`scorekit.store.stored_summaries`):

* the rows are the truth: :func:`read_scorer_usage` sums each scorer's judge calls, prompt
  tokens and completion tokens over its ``results`` rows and its repeated trials (``trials``
  rows), so a scorer's usage covers everything stored of it;
* when a run ends, :meth:`~scorekit.store.Store.finish_run` writes those sums in the run row's
  ``judge_usage`` under :data:`SCORER_USAGE_KEY`, in the transaction that ends the run, so
  listing runs reads no result row;
* :func:`stored_scorer_usage` trusts them for a run that has ended; a running run (or a
  crashed one) and a run stored before the sums were kept are read from the rows again.

What a run spent on results it did not store (a judge budget's dropped results) is in the run's
total usage, not in any scorer's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, func, inspect, select

from scorekit.store.records import RunRecord
from scorekit.store.tables import results, trials
from scorekit.usage import JudgeUsage

__all__ = [
    "SCORER_USAGE_KEY",
    "read_scorer_usage",
    "scorer_usage",
    "stored_scorer_usage",
    "usage_data",
]

SCORER_USAGE_KEY = "scorers"
"""The key of a run row's ``judge_usage`` holding scorer id → ``{calls, input_tokens,
output_tokens}``, written when the run ends."""


def read_scorer_usage(conn: Connection, run_id: str) -> dict[str, JudgeUsage]:
    """Each scorer's judge calls and tokens, summed over its result and trial rows.

    Args:
        conn: an open connection.
        run_id: the run (its full id).

    Returns:
        Scorer id → its usage (``calls``, ``input_tokens``, ``output_tokens``; the other
        fields 0); a scorer without rows is absent.

    Raises:
        SQLAlchemyError: the read failed.
    """
    found: dict[str, JudgeUsage] = {}
    # a database written before repeated trials has no trials table (read-only: none is made)
    tables = (results, trials) if inspect(conn).has_table(trials.name) else (results,)
    for table in tables:
        query = (
            select(
                table.c.scorer_id,
                func.sum(table.c.judge_calls),
                func.sum(table.c.judge_input_tokens),
                func.sum(table.c.judge_output_tokens),
            )
            .where(table.c.run_id == run_id)
            .group_by(table.c.scorer_id)
        )
        for scorer_id, calls, prompt, completion in conn.execute(query):
            usage = JudgeUsage(
                calls=int(calls or 0),
                input_tokens=int(prompt or 0),
                output_tokens=int(completion or 0),
            )
            found[scorer_id] = found.get(scorer_id, JudgeUsage()) + usage
    return found


def usage_data(found: Mapping[str, JudgeUsage]) -> dict[str, dict[str, int]]:
    """What :data:`SCORER_USAGE_KEY` holds: scorer id → ``{calls, input_tokens, output_tokens}``."""
    return {
        sid: {"calls": u.calls, "input_tokens": u.input_tokens, "output_tokens": u.output_tokens}
        for sid, u in found.items()
    }


def stored_scorer_usage(run: RunRecord) -> dict[str, JudgeUsage] | None:
    """The per-scorer usage written when ``run`` ended, or ``None`` when it must be read.

    ``None`` while the run is ``running`` (or crashed), and for a run stored before the sums
    were kept.
    """
    if run.status == "running":
        return None
    found: Any = (
        run.judge_usage.get(SCORER_USAGE_KEY) if isinstance(run.judge_usage, dict) else None
    )
    if not isinstance(found, dict):
        return None
    return {str(sid): JudgeUsage.from_dict(data) for sid, data in found.items()}


def scorer_usage(conn: Connection, run: RunRecord) -> dict[str, JudgeUsage]:
    """A run's judge usage per scorer for every view: the stored sums, else its rows.

    Raises:
        SQLAlchemyError: the read failed.
    """
    stored = stored_scorer_usage(run)
    return stored if stored is not None else read_scorer_usage(conn, run.id)
