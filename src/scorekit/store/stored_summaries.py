"""A stored run's score summaries: read from its result rows, or from its ``totals``.

Every view (``scorekit runs``, ``show``, ``compare``, the HTML report) gets a run's summaries
from :meth:`~scorekit.store.Store.run_summaries`, which follows one rule:

* the result rows are the truth; :func:`read_summaries` builds one
  :class:`~scorekit.summary.ScoreSummary` per scorer from them;
* when a run ends, :meth:`~scorekit.store.Store.finish_run` computes those summaries from the
  rows and writes them to the run row's ``totals`` in the same transaction, so the totals are
  the rows' summaries by construction (not the run loop's in-memory count, which misses, for
  example, the error rows of items a resumed run's data no longer holds);
* :func:`stored_summaries` therefore trusts the totals of a run that has ended (any status but
  ``running``) when they cover every scorer of the run in this format (with the
  ``histogram`` key that older rows lack); for a running run (or a crashed one, whose status
  stays ``running``), and for older rows, the summaries are read from the rows again.
  :meth:`~scorekit.store.Store.reopen_run` clears the totals of a resumed run.
* every summary read from rows gets its mean's 95 % bootstrap interval
  (:func:`scorekit.trust.estimates.with_mean_interval`, seeded), which the totals keep; totals
  written before that (``ok >= 2`` without ``mean_interval``) are read from the rows again.

So ``runs`` and ``show`` print the same numbers for every run: they read the same source
through the same function. Reading the totals keeps ``runs`` fast: a 100,000-result run takes
about 0.25 s to summarise from SQLite rows, and the listing shows 20 runs
(``benchmarks/bench_summaries.py`` measures it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import get_args

from sqlalchemy import Connection, select

from scorekit.errors import ConfigError, StoreError
from scorekit.results import Status
from scorekit.store.records import RunRecord
from scorekit.store.tables import results
from scorekit.summary import ScoreSummary
from scorekit.trust.estimates import with_mean_interval

__all__ = ["read_summaries", "stored_summaries"]

_STATUSES: tuple[Status, ...] = get_args(Status)
_FORMAT_KEY = "histogram"  # written by ScoreSummary.to_dict since totals came from the rows


def read_summaries(
    conn: Connection, run_id: str, scorer_ids: Sequence[str]
) -> dict[str, ScoreSummary]:
    """Summarise a run's result rows, scorer by scorer.

    Args:
        conn: an open connection (inside a transaction when the result is written back).
        run_id: the run (its full id).
        scorer_ids: the run's scorers, in run order; each gets a summary, rows or not.
            Scorers found only in the rows follow, in the order first seen.

    Returns:
        Scorer id → summary; scores in the order the rows were written.

    Raises:
        SQLAlchemyError: the read failed.
        StoreError: a row is not a result (an ``ok`` row without a finite score, an unknown
            status): a damaged database.
    """
    counts: dict[str, dict[Status, int]] = {sid: dict.fromkeys(_STATUSES, 0) for sid in scorer_ids}
    scores: dict[str, list[float]] = {sid: [] for sid in scorer_ids}
    query = (
        select(results.c.scorer_id, results.c.status, results.c.score)
        .where(results.c.run_id == run_id)
        .order_by(results.c.id)
    )
    # a plain loop rather than ScoreSummary.add_score per row (0.44 s -> 0.33 s for 100,000
    # rows here); the checks add_score makes follow, once per scorer
    try:
        # yield_per on the statement, not the connection: a connection's options would make
        # the caller's next statements (the update writing totals) server-side cursors too
        for sid, status, score in conn.execute(query.execution_options(yield_per=10_000)):
            by_status = counts.get(sid)
            if by_status is None:
                by_status = counts[sid] = dict.fromkeys(_STATUSES, 0)
                scores[sid] = []
            by_status[status] += 1
            if status == "ok":
                scores[sid].append(score)
    except KeyError as exc:
        raise StoreError(f"a result row of run {run_id} has an unknown status {exc}") from exc
    summaries = {}
    for sid, found in scores.items():
        try:
            finite = all(map(math.isfinite, found))
        except TypeError:  # a NULL score
            finite = False
        if not finite:
            raise StoreError(f"an ok result row of {sid!r} in run {run_id} has no finite score")
        summary = ScoreSummary(sid, counts[sid], [float(s) for s in found])
        summaries[sid] = with_mean_interval(summary)
    return summaries


def stored_summaries(run: RunRecord) -> dict[str, ScoreSummary] | None:
    """The run's summaries from its ``totals``, or ``None`` when they must be read from rows.

    ``None`` while the run is ``running``, when a scorer of the run has no entry, when an entry
    is in the format of older rows (no ``histogram``), or when an entry is malformed.
    """
    if run.status == "running":
        return None
    entries = run.totals
    order = list(dict.fromkeys([*run.scorer_ids, *entries]))
    if any(not isinstance(entries.get(sid), dict) for sid in order):
        return None
    if any(_FORMAT_KEY not in entries[sid] for sid in order):
        return None
    if any(_lacks_interval(entries[sid]) for sid in order):
        return None  # written before the mean's interval was kept: read the rows again
    try:
        return {sid: ScoreSummary.from_dict(sid, entries[sid]) for sid in order}
    except ConfigError:
        return None


def _lacks_interval(entry: dict[str, object]) -> bool:
    counts = entry.get("counts")
    ok = counts.get("ok") if isinstance(counts, dict) else None
    return isinstance(ok, int) and ok >= 2 and "mean_interval" not in entry
