"""The viewer's reads: runs, a run's items (paged, sorted and filtered in SQL), one item.

Every query runs in the database and returns one page: a run of 100,000 items is never read
whole (``benchmarks/bench_view.py`` times the pages). The items of a run are the distinct
``item_id`` values of its result rows; an item's row in the items table shows each scorer's
status and score. The score summaries are the store's (:mod:`scorekit.store.stored_summaries`): the
totals of an ended run, else its rows, as every other view reads them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from typing import Any, Literal

from sqlalchemy import ColumnElement, Connection, Text, cast, func, or_, select

from scorekit.report.costs import stored_run_cost, total_text
from scorekit.results import Status
from scorekit.store.records import ResultRecord, RunRecord, run_record
from scorekit.store.scorer_usage import scorer_usage
from scorekit.store.stored_summaries import read_summaries, stored_summaries
from scorekit.store.tables import results, runs
from scorekit.summary import ScoreSummary
from scorekit.view.paging import Page

__all__ = [
    "SNIPPET_CHARS",
    "Cell",
    "ItemFilter",
    "ItemRow",
    "ItemSort",
    "OtherRun",
    "RunFilter",
    "RunRow",
    "cells_of",
    "item_count",
    "item_results",
    "list_items",
    "list_runs",
    "other_runs",
    "progress",
    "run_summaries",
    "snippet",
]

SNIPPET_CHARS = 300
"""Characters of an input or output the items table reads (a 5 MB output is never sent)."""

_OTHER_RUNS = 20  # newest other runs listed on an item's page


@dataclass(frozen=True)
class RunFilter:
    """Which runs the runs page lists.

    Attributes:
        name: runs whose name contains this text (any case), or ``None``.
        source: ``"TEST"``, ``"LIVE"`` or ``"TRACE"``, or ``None`` for every source.
        since: runs started on or after this day (UTC), or ``None``.
        until: runs started on or before this day (UTC), or ``None``.
    """

    name: str | None = None
    source: str | None = None
    since: date | None = None
    until: date | None = None


@dataclass(frozen=True)
class RunRow:
    """One line of the runs page.

    Attributes:
        run: the stored run.
        summaries: scorer id → its summary (as ``scorekit runs`` shows it).
        items: the run's items, counted as every view counts them.
        duration_s: seconds from its start to its end (to now while it runs).
        cost: its judge cost at its stored prices, as text
            (:func:`scorekit.report.costs.total_text`).
    """

    run: RunRecord
    summaries: dict[str, ScoreSummary]
    items: int
    duration_s: float
    cost: str = "—"


@dataclass(frozen=True)
class ItemFilter:
    """Which items of a run the items table shows: those with a result row matching all of it.

    Attributes:
        scorer: the scorer whose result must match (``None``: any scorer's).
        status: the result's status, or ``None``.
        min_score: the lowest score, inclusive (only ``ok`` results have one), or ``None``.
        max_score: the highest score, inclusive, or ``None``.
        text: text the item's id, input or output contains (any case), or ``None``.
    """

    scorer: str | None = None
    status: Status | None = None
    min_score: float | None = None
    max_score: float | None = None
    text: str | None = None

    @property
    def active(self) -> bool:
        """Whether any part is set."""
        return any(v is not None for v in (self.status, self.min_score, self.max_score, self.text))


@dataclass(frozen=True)
class ItemSort:
    """The order of the items table.

    Attributes:
        key: ``"written"`` (the order results were stored), ``"id"`` (item id), or
            ``"score"`` (``scorer``'s score; items without an ``ok`` result for it follow).
        scorer: the scorer of ``key="score"``.
        descending: largest first (newest first for ``"written"``).
    """

    key: Literal["written", "id", "score"] = "written"
    scorer: str | None = None
    descending: bool = False


@dataclass(frozen=True)
class Cell:
    """One scorer's result of an item, as the items table shows it."""

    status: Status
    score: float | None


@dataclass(frozen=True)
class ItemRow:
    """One item of the items table: its id, the start of its input, output and reference.

    Attributes:
        item_id: the item.
        input: the first :data:`SNIPPET_CHARS` characters of its input, as text.
        output: the same of its output.
        reference: the same of its ground truth (``""``: it has none).
        cells: scorer id → result.
    """

    item_id: str
    input: str
    output: str
    reference: str = ""
    cells: dict[str, Cell] = field(default_factory=dict)


@dataclass(frozen=True)
class OtherRun:
    """Another run holding the same item id, with that item's results there."""

    run: RunRecord
    cells: dict[str, Cell]


def run_summaries(conn: Connection, run: RunRecord) -> dict[str, ScoreSummary]:
    """A run's per-scorer summaries, as :meth:`scorekit.store.Store.run_summaries` reads them."""
    stored = stored_summaries(run)
    return stored if stored is not None else read_summaries(conn, run.id, run.scorer_ids)


def item_count(conn: Connection, run: RunRecord) -> int:
    """A run's items as every view counts them: an ended run's total, else distinct item ids."""
    if run.status != "running":
        return run.total_items
    query = select(func.count(func.distinct(results.c.item_id))).where(results.c.run_id == run.id)
    return int(conn.execute(query).scalar_one())


def _duration(run: RunRecord) -> float:
    ended = run.finished_at or datetime.now(timezone.utc)
    return max(0.0, (ended - run.started_at).total_seconds())


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def list_runs(conn: Connection, where: RunFilter, number: int, size: int) -> Page[RunRow]:
    """One page of stored runs, newest first.

    Args:
        conn: an open connection.
        where: which runs.
        number: the page, from 1.
        size: runs per page, >= 1.
    """
    conds: list[ColumnElement[bool]] = []
    if where.name:
        conds.append(runs.c.name.ilike(_like(where.name), escape="\\"))
    if where.source:
        conds.append(runs.c.source == where.source)
    if where.since is not None:
        conds.append(runs.c.started_at >= datetime.combine(where.since, time(), timezone.utc))
    if where.until is not None:
        end = datetime.combine(where.until + timedelta(days=1), time(), timezone.utc)
        conds.append(runs.c.started_at < end)
    total = int(conn.execute(select(func.count()).select_from(runs).where(*conds)).scalar_one())
    query = (
        select(runs)
        .where(*conds)
        .order_by(runs.c.started_at.desc(), runs.c.id)
        .limit(size)
        .offset((number - 1) * size)
    )
    rows = []
    for row in conn.execute(query).all():
        record = run_record(row)
        cost = total_text(stored_run_cost(record, lambda found: scorer_usage(conn, found)))
        summaries = run_summaries(conn, record)
        rows.append(RunRow(record, summaries, item_count(conn, record), _duration(record), cost))
    return Page(rows, number, size, total)


def _text_matches(text: str) -> ColumnElement[bool]:
    # JSON text escapes non-ASCII characters and quotes: match the text as typed or as JSON
    patterns = dict.fromkeys([text, json.dumps(text)[1:-1]])
    columns: list[Any] = [
        results.c.item_id,
        cast(results.c.input, Text),
        cast(results.c.output, Text),
    ]
    return or_(*(c.ilike(_like(p), escape="\\") for c in columns for p in patterns))


def _row_conditions(run_id: str, where: ItemFilter) -> list[ColumnElement[bool]]:
    conds: list[ColumnElement[bool]] = [results.c.run_id == run_id]
    if where.scorer is not None and where.active:
        conds.append(results.c.scorer_id == where.scorer)
    if where.status is not None:
        conds.append(results.c.status == where.status)
    if where.min_score is not None:
        conds.append(results.c.score >= where.min_score)
    if where.max_score is not None:
        conds.append(results.c.score <= where.max_score)
    if where.text:
        conds.append(_text_matches(where.text))
    return conds


def _page_ids(
    conn: Connection, run_id: str, where: ItemFilter, order: ItemSort, offset: int, size: int
) -> list[str]:
    conds = _row_conditions(run_id, where)
    if order.key == "written":
        first = func.min(results.c.id).label("first")
        grouped = select(results.c.item_id, first).where(*conds).group_by(results.c.item_id)
        sub = grouped.subquery()
        key = sub.c.first.desc() if order.descending else sub.c.first
        query = select(sub.c.item_id).order_by(key).limit(size).offset(offset)
        return [str(i) for i in conn.execute(query).scalars()]
    if order.key == "id":
        key = results.c.item_id.desc() if order.descending else results.c.item_id
        query = (
            select(results.c.item_id).where(*conds).distinct().order_by(key).limit(size)
        ).offset(offset)
        return [str(i) for i in conn.execute(query).scalars()]
    # by one scorer's score: read from that scorer's rows (one per item), NULLs (errors,
    # skips) last; items of the filter without a row for that scorer follow, by id
    scored = [results.c.run_id == run_id, results.c.scorer_id == order.scorer]
    if where.active and where.scorer == order.scorer:
        scored = conds  # the filter is on these very rows
    elif where.active:
        scored.append(results.c.item_id.in_(select(results.c.item_id).where(*conds)))
    score = results.c.score.desc() if order.descending else results.c.score.asc()
    query = (
        select(results.c.item_id)
        .where(*scored)
        .order_by(score.nulls_last(), results.c.item_id)
        .limit(size)
        .offset(offset)
    )
    ids = [str(i) for i in conn.execute(query).scalars()]
    if len(ids) == size:
        return ids
    with_row = select(func.count()).select_from(results).where(*scored)
    skipped = max(0, offset - int(conn.execute(with_row).scalar_one()))
    own = results.alias("own")
    lacks = ~(
        select(own.c.id)
        .where(
            own.c.run_id == run_id,
            own.c.scorer_id == order.scorer,
            own.c.item_id == results.c.item_id,
        )
        .exists()
    )
    missing = (
        select(results.c.item_id)
        .where(*conds, lacks)
        .distinct()
        .order_by(results.c.item_id)
        .limit(size - len(ids))
        .offset(skipped)
    )
    return ids + [str(i) for i in conn.execute(missing).scalars()]


def snippet(text: str | None, limit: int = SNIPPET_CHARS) -> str:
    """The start of a stored JSON value as plain text: a JSON string unquoted, else its JSON.

    Args:
        text: the first ``limit`` characters of the value's JSON text, or ``None``.
        limit: how many characters were read; a text this long was cut.
    """
    if text is None:
        return ""
    if len(text) < limit:
        try:
            value = json.loads(text)
        except ValueError:
            return text
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if text.startswith('"'):
        for cut in range(7):  # the cut may split an escape like \u00e9
            try:
                return str(json.loads(text[: len(text) - cut] + '"')) + "…"
            except ValueError:
                continue
    return text + "…"


def list_items(
    conn: Connection, run: RunRecord, where: ItemFilter, order: ItemSort, number: int, size: int
) -> Page[ItemRow]:
    """One page of a run's items with each scorer's result.

    Args:
        conn: an open connection.
        run: the run.
        where: which items.
        order: their order.
        number: the page, from 1.
        size: items per page, >= 1.
    """
    conds = _row_conditions(run.id, where)
    counted = select(func.count(func.distinct(results.c.item_id))).where(*conds)
    total = int(conn.execute(counted).scalar_one())
    ids = _page_ids(conn, run.id, where, order, (number - 1) * size, size)
    rows: dict[str, ItemRow] = {}
    if ids:
        text_in = func.substr(cast(results.c.input, Text), 1, SNIPPET_CHARS)
        text_out = func.substr(cast(results.c.output, Text), 1, SNIPPET_CHARS)
        text_ref = func.substr(cast(results.c.ground_truth, Text), 1, SNIPPET_CHARS)
        query = (
            select(
                results.c.item_id,
                results.c.scorer_id,
                results.c.status,
                results.c.score,
                text_in,
                text_out,
                text_ref,
            )
            .where(results.c.run_id == run.id, results.c.item_id.in_(ids))
            .order_by(results.c.id)
        )
        found: dict[str, ItemRow] = {}
        for item_id, scorer_id, status, score, raw_in, raw_out, raw_ref in conn.execute(query):
            row = found.get(item_id)
            if row is None:
                reference = "" if raw_ref in (None, "null") else snippet(raw_ref)
                row = found[item_id] = ItemRow(
                    item_id, snippet(raw_in), snippet(raw_out), reference
                )
            row.cells[scorer_id] = Cell(status, score)
        rows = {i: found[i] for i in ids if i in found}
    return Page(list(rows.values()), number, size, total)


def item_results(conn: Connection, run_id: str, item_id: str) -> list[ResultRecord]:
    """Every stored result of one item of a run, in the order written (``[]``: no such item)."""
    query = (
        select(results)
        .where(results.c.run_id == run_id, results.c.item_id == item_id)
        .order_by(results.c.id)
    )
    return [ResultRecord.from_row(dict(row._mapping)) for row in conn.execute(query)]


def cells_of(conn: Connection, run_ids: Sequence[str], item_id: str) -> dict[str, dict[str, Cell]]:
    """Run id → scorer id → the item's result there, for the runs holding the item."""
    query = (
        select(results.c.run_id, results.c.scorer_id, results.c.status, results.c.score)
        .where(results.c.run_id.in_(list(run_ids)), results.c.item_id == item_id)
        .order_by(results.c.id)
    )
    found: dict[str, dict[str, Cell]] = {}
    for run_id, scorer_id, status, score in conn.execute(query):
        found.setdefault(run_id, {})[scorer_id] = Cell(status, score)
    return found


def other_runs(conn: Connection, run_id: str, item_id: str) -> list[OtherRun]:
    """The newest other runs (up to 20) holding the same item id, with its results there."""
    holds = (
        select(results.c.id)
        .where(results.c.run_id == runs.c.id, results.c.item_id == item_id)
        .exists()
    )
    query = (
        select(runs)
        .where(runs.c.id != run_id, holds)
        .order_by(runs.c.started_at.desc(), runs.c.id)
        .limit(_OTHER_RUNS)
    )
    records = [run_record(row) for row in conn.execute(query)]
    cells = cells_of(conn, [r.id for r in records], item_id)
    return [OtherRun(r, cells.get(r.id, {})) for r in records]


def progress(conn: Connection, run_id: str) -> dict[str, Any]:
    """What a live page polls: ``{"status", "results"}`` (stored result rows so far).

    ``{"status": None, "results": 0}`` for an unknown run.
    """
    status = conn.execute(select(runs.c.status).where(runs.c.id == run_id)).scalar_one_or_none()
    count = select(func.count()).select_from(results).where(results.c.run_id == run_id)
    return {"status": status, "results": int(conn.execute(count).scalar_one())}
