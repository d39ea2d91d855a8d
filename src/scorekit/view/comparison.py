"""Two runs compared: each scorer's change, and the pairs of both runs ordered by regression.

Each scorer's mean and error-rate change from run A to run B; the (item, scorer) pairs of both
runs, paged in SQL, most regressed first.

A pair is an item id and a scorer with a result in both runs. Its change ranks it:

====  =========================================================
rank  the pair
====  =========================================================
0     newly failing: ``ok`` in A, ``error`` or ``skipped`` in B
1     regressed: ``ok`` in both, lower in B (largest drop first)
2     unchanged: the same score, or not ``ok`` in either run
3     improved: ``ok`` in both, higher in B
4     newly scored: not ``ok`` in A, ``ok`` in B
====  =========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import ColumnElement, Connection, Join, and_, case, func, select
from sqlalchemy.sql.selectable import NamedFromClause

from scorekit.results import Status
from scorekit.store.records import RunRecord
from scorekit.store.tables import results
from scorekit.verdict import error_rate
from scorekit.view.paging import Page
from scorekit.view.queries import run_summaries

__all__ = ["PairFilter", "PairRow", "ScorerDelta", "list_pairs", "scorer_deltas"]

Show = Literal["all", "regressed", "changed"]


@dataclass(frozen=True)
class ScorerDelta:
    """One scorer's numbers in run A and run B.

    Attributes:
        scorer_id: the scorer.
        mean_a: its mean in A (``None``: no ``ok`` result there, or not a scorer of A).
        mean_b: its mean in B.
        mean_change: the change of the mean over the paired items (scored ``ok`` in both
            runs), ``None`` without any: means of different items are never subtracted.
        error_rate_a: its error rate in A (errors / results), ``None`` without results.
        error_rate_b: its error rate in B.
        error_rate_change: ``error_rate_b - error_rate_a``, ``None`` when either is missing.
        paired: items scored ``ok`` in both runs.
        regressed: of those, items scored lower in B.
        improved: of those, items scored higher in B.
        newly_failing: items ``ok`` in A and ``error`` or ``skipped`` in B.
    """

    scorer_id: str
    mean_a: float | None
    mean_b: float | None
    mean_change: float | None
    error_rate_a: float | None
    error_rate_b: float | None
    error_rate_change: float | None
    paired: int
    regressed: int
    improved: int
    newly_failing: int


@dataclass(frozen=True)
class PairFilter:
    """Which pairs the compare page lists.

    Attributes:
        scorer: only this scorer's pairs, or ``None`` for every scorer.
        show: ``"all"``, ``"regressed"`` (ranks 0 and 1) or ``"changed"`` (all but rank 2).
    """

    scorer: str | None = None
    show: Show = "all"


@dataclass(frozen=True)
class PairRow:
    """One (item, scorer) pair of the compare page."""

    item_id: str
    scorer_id: str
    status_a: Status
    score_a: float | None
    status_b: Status
    score_b: float | None
    change: float | None
    """``score_b - score_a`` when both are ``ok``, else ``None``."""
    rank: int
    """See the module's table."""


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def scorer_deltas(conn: Connection, a: RunRecord, b: RunRecord) -> list[ScorerDelta]:
    """Each scorer of either run (A's order first) with its change from A to B."""
    stats_a, stats_b = run_summaries(conn, a), run_summaries(conn, b)
    ra, rb = results.alias("ra"), results.alias("rb")
    both_ok = and_(ra.c.status == "ok", rb.c.status == "ok")

    def count(cond: ColumnElement[bool]) -> ColumnElement[int]:
        return func.sum(case((cond, 1), else_=0))

    query = (
        select(
            ra.c.scorer_id,
            count(both_ok),
            count(and_(both_ok, rb.c.score < ra.c.score)),
            count(and_(both_ok, rb.c.score > ra.c.score)),
            count(and_(ra.c.status == "ok", rb.c.status != "ok")),
            func.sum(case((both_ok, rb.c.score - ra.c.score), else_=0.0)),
        )
        .select_from(_joined(ra, rb, b.id))
        .where(ra.c.run_id == a.id)
        .group_by(ra.c.scorer_id)
    )
    counts: dict[str, tuple[int, int, int, int]] = {}
    changed: dict[str, float] = {}
    for sid, paired_n, lower, higher, lost, total_change in conn.execute(query):
        counts[sid] = (int(paired_n or 0), int(lower or 0), int(higher or 0), int(lost or 0))
        changed[sid] = float(total_change or 0.0)
    deltas = []
    for sid in dict.fromkeys([*stats_a, *stats_b]):
        sa, sb = stats_a.get(sid), stats_b.get(sid)
        mean_a = sa.mean if sa else None
        mean_b = sb.mean if sb else None
        rate_a = error_rate(sa) if sa else None
        rate_b = error_rate(sb) if sb else None
        paired, regressed, improved, failing = counts.get(sid, (0, 0, 0, 0))
        deltas.append(
            ScorerDelta(
                sid,
                mean_a,
                mean_b,
                changed[sid] / paired if paired else None,
                rate_a,
                rate_b,
                _minus(rate_a, rate_b),
                paired,
                regressed,
                improved,
                failing,
            )
        )
    return deltas


def _joined(ra: NamedFromClause, rb: NamedFromClause, run_b: str) -> Join:
    return ra.join(
        rb,
        and_(
            ra.c.item_id == rb.c.item_id,
            ra.c.scorer_id == rb.c.scorer_id,
            rb.c.run_id == run_b,
        ),
    )


def list_pairs(
    conn: Connection, a: RunRecord, b: RunRecord, where: PairFilter, number: int, size: int
) -> Page[PairRow]:
    """One page of the pairs of both runs, most regressed first (see the module's table).

    Args:
        conn: an open connection.
        a: the baseline run.
        b: the run compared with it.
        where: which pairs.
        number: the page, from 1.
        size: pairs per page, >= 1.
    """
    ra, rb = results.alias("ra"), results.alias("rb")
    ok_a, ok_b = ra.c.status == "ok", rb.c.status == "ok"
    change = case((and_(ok_a, ok_b), rb.c.score - ra.c.score), else_=None)
    rank = case(
        (and_(ok_a, ~ok_b), 0),
        (and_(ok_a, ok_b, rb.c.score < ra.c.score), 1),
        (and_(ok_a, ok_b, rb.c.score > ra.c.score), 3),
        (and_(~ok_a, ok_b), 4),
        else_=2,
    )
    conds: list[ColumnElement[bool]] = [ra.c.run_id == a.id]
    if where.scorer is not None:
        conds.append(ra.c.scorer_id == where.scorer)
    if where.show == "regressed":
        conds.append(rank <= 1)
    elif where.show == "changed":
        conds.append(rank != 2)
    joined = _joined(ra, rb, b.id)
    total_query = select(func.count()).select_from(joined).where(*conds)
    total = int(conn.execute(total_query).scalar_one())
    query = (
        select(
            ra.c.item_id,
            ra.c.scorer_id,
            ra.c.status,
            ra.c.score,
            rb.c.status,
            rb.c.score,
            change,
            rank,
        )
        .select_from(joined)
        .where(*conds)
        .order_by(rank, change.nulls_last(), ra.c.item_id, ra.c.scorer_id)
        .limit(size)
        .offset((number - 1) * size)
    )
    rows = [
        PairRow(item, sid, st_a, sc_a, st_b, sc_b, ch, int(rk))
        for item, sid, st_a, sc_a, st_b, sc_b, ch, rk in conn.execute(query)
    ]
    return Page(rows, number, size, total)
