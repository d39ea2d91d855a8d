"""The viewer's pages: each reads its parameters, queries one page of data, renders a template.

Every page is a ``GET`` (the viewer is read-only). Runs are addressed by id; a unique prefix,
a name or ``latest`` redirects to the run's full id. Item ids travel in the query string
(``?id=``), so any id (slashes, spaces, markup) has an address.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Connection, select
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from scorekit.judge.spending import stored_budget_text
from scorekit.report.costs import cost_line, scorer_costs, stored_run_cost
from scorekit.report.histogram import bins_of
from scorekit.store import Store
from scorekit.store.alignments import latest_alignments
from scorekit.store.labels import current_labels, has_labels, label_history
from scorekit.store.records import RUN_SOURCES, RunRecord, run_record, stored_error_limits
from scorekit.store.scorer_usage import scorer_usage
from scorekit.store.tables import runs
from scorekit.trust.alignment import align, stored_alignment_notes
from scorekit.trust.min_agreement import stored_agreement_failures
from scorekit.trust.paired_runs import compare_runs
from scorekit.verdict import error_rate, scorer_failures
from scorekit.view import params
from scorekit.view.comparison import list_pairs, scorer_deltas
from scorekit.view.database import ViewDatabase
from scorekit.view.queries import (
    item_count,
    item_results,
    list_items,
    list_runs,
    other_runs,
    progress,
    run_summaries,
)

__all__ = [
    "compare_item_page",
    "compare_page",
    "item_page",
    "progress_data",
    "run_page",
    "runs_page",
]

_PICKER_RUNS = 200  # runs offered by the compare page's pickers
_LIVE_RUNS = 50  # runs one progress poll may ask about


def _database(request: Request) -> ViewDatabase:
    database: ViewDatabase = request.app.state.database
    return database


def _render(request: Request, template: str, **context: Any) -> HTMLResponse:
    page = request.app.state.templates.get_template(template)
    context.setdefault("live", None)
    html = page.render(db_url=_database(request).url, path=request.url.path, **context)
    return HTMLResponse(html)


def _progress_text(conn: Connection, run_ids: Iterable[str]) -> str:
    found = {run_id: progress(conn, run_id) for run_id in dict.fromkeys(run_ids)}
    return json.dumps(found, sort_keys=True, separators=(",", ":"))


def _live(conn: Connection, records: Iterable[RunRecord]) -> dict[str, str] | None:
    """What a page with running runs polls: the progress address and its state now."""
    running = [r.id for r in records if r.shown_status() == "running"][:_LIVE_RUNS]
    if not running:
        return None
    url = "/progress?" + "&".join(f"run={run_id}" for run_id in running)
    return {"url": url, "state": _progress_text(conn, running)}


def _names(record: RunRecord) -> dict[str, str]:
    return {str(s["id"]): str(s.get("name") or s["id"]) for s in record.scorers}


def _redirect(request: Request, path: str, **replace: str) -> Response:
    """The same page under the runs' full ids (a prefix, a name or ``latest`` was given)."""
    query = {**request.query_params, **replace}
    return RedirectResponse(params.address(path, query), status_code=307)


def runs_page(request: Request) -> Response:
    """``/``: the stored runs, newest first, filtered by name, source and day, paged."""
    query = request.query_params
    where = params.run_filter(query)
    number, size = params.page_number(query), params.page_size(query)
    with _database(request).connect() as conn:
        page = list_runs(conn, where, number, size)
        live = _live(conn, (row.run for row in page.rows))
    return _render(
        request,
        "runs.html.j2",
        page=page,
        where=where,
        sources=RUN_SOURCES,
        query=dict(query),
        error_rate=error_rate,
        live=live,
    )


def _trust_store(request: Request) -> Store:
    """A read-only :class:`~scorekit.store.Store` of the viewer's database, opened once per app.

    The trust statistics read through the store's own queries.
    """
    store: Store | None = getattr(request.app.state, "trust_store", None)
    if store is None:
        store = Store(_database(request).source, create=False, read_only=True)
        request.app.state.trust_store = store
    return store


def _trust(request: Request, run: RunRecord) -> tuple[dict[str, Any], list[str]]:
    """A run's agreement with its labels, and the notes of agreements stored for its scorers.

    The agreement reads every score, so only a run with labels gets one; it is read through a
    read-only store of the same database, opened once per app.
    """
    database = _database(request)
    labelled = has_labels(database, run.id)
    trust = align(_trust_store(request), run.id) if labelled else {}
    return trust, stored_alignment_notes(latest_alignments(database, run), own=run.id)


def run_page(request: Request) -> Response:
    """``/runs/{run}``: the summary, histograms and judge usage; the items, paged and sorted."""
    ref = request.path_params["run"]
    query = request.query_params
    database = _database(request)
    with database.connect() as conn:
        run = database.find_run(conn, ref)
        if ref != run.id:
            return _redirect(request, f"/runs/{run.id}")
        stats = run_summaries(conn, run)
        scorer_ids = list(stats)
        where = params.item_filter(query, scorer_ids)
        order = params.item_sort(query, scorer_ids)
        number, size = params.page_number(query), params.page_size(query)
        items = list_items(conn, run, where, order, number, size)
        total_items = item_count(conn, run)
        live = _live(conn, [run])
        cost = stored_run_cost(run, lambda found: scorer_usage(conn, found))
    limits = stored_error_limits(run.config)
    failures = (
        scorer_failures(stats, run.thresholds, limits, stored_agreement_failures(run.config))
        if run.status == "finished"
        else {}
    )
    ended = run.finished_at or datetime.now(timezone.utc)
    trust, notes = _trust(request, run)
    return _render(
        request,
        "run.html.j2",
        trust=trust,
        trust_notes=notes,
        run=run,
        stats=stats,
        names=_names(run),
        failures=failures,
        error_limits=limits,
        error_rates={sid: error_rate(s) for sid, s in stats.items()},
        bins={sid: bins_of(s.histogram()) for sid, s in stats.items()},
        items=items,
        total_items=total_items,
        where=where,
        order=order,
        sort=params.sort_value(order),
        query=dict(query),
        duration_s=(ended - run.started_at).total_seconds(),
        config=run.config,
        live=live,
        costs=scorer_costs(cost, run.scorers),
        cost_line=cost_line(cost, run.scorers),
        budget_stop=stored_budget_text(run.config),
    )


def item_page(request: Request) -> Response:
    """``/runs/{run}/item?id=``: one item's data and every scorer's result; other runs."""
    ref = request.path_params["run"]
    item_id = request.query_params.get("id", "")
    database = _database(request)
    with database.connect() as conn:
        run = database.find_run(conn, ref)
        if ref != run.id:
            return _redirect(request, f"/runs/{run.id}/item")
        records = item_results(conn, run.id, item_id)
        others = other_runs(conn, run.id, item_id) if records else []
    labels = {
        sid: lab for (_, sid), lab in current_labels(database, run.id, item_id=item_id).items()
    }
    history = {
        sid: label_history(database, run.id, item_id, sid)[:-1] for sid in labels
    }  # earlier labels, oldest first
    annotator = request.app.state.annotator
    status = 200 if records else 404
    response = _render(
        request,
        "item.html.j2",
        run=run,
        item_id=item_id,
        records=records,
        names=_names(run),
        others=others,
        labels=labels,
        history=history,
        token=annotator.token if annotator is not None else None,
    )
    response.status_code = status
    return response


def _pair(
    conn: Connection, database: ViewDatabase, query: Mapping[str, str]
) -> tuple[RunRecord, RunRecord]:
    return database.find_run(conn, query.get("a", "")), database.find_run(conn, query.get("b", ""))


def _picker(conn: Connection) -> list[RunRecord]:
    newest = select(runs).order_by(runs.c.started_at.desc(), runs.c.id).limit(_PICKER_RUNS)
    return [run_record(row) for row in conn.execute(newest)]


def compare_page(request: Request) -> Response:
    """``/compare?a=&b=``: each scorer's change from A to B, the pairs by regression."""
    query = request.query_params
    database = _database(request)
    with database.connect() as conn:
        if not query.get("a") or not query.get("b"):
            return _render(request, "pick.html.j2", runs=_picker(conn), query=dict(query))
        a, b = _pair(conn, database, query)
        if (a.id, b.id) != (query["a"], query["b"]):
            return _redirect(request, "/compare", a=a.id, b=b.id)
        deltas = scorer_deltas(conn, a, b)
        where = params.pair_filter(query, [d.scorer_id for d in deltas])
        number, size = params.page_number(query), params.page_size(query)
        pairs = list_pairs(conn, a, b, where, number, size)
        live = _live(conn, [a, b])
    paired = compare_runs(_trust_store(request), a.id, b.id)
    return _render(
        request,
        "compare.html.j2",
        paired=paired,
        a=a,
        b=b,
        names={**_names(b), **_names(a)},
        deltas=deltas,
        pairs=pairs,
        where=where,
        query=dict(query),
        live=live,
    )


def compare_item_page(request: Request) -> Response:
    """``/compare/item?a=&b=&id=``: one item in both runs, side by side."""
    query = request.query_params
    item_id = query.get("id", "")
    database = _database(request)
    with database.connect() as conn:
        a, b = _pair(conn, database, query)
        records_a = item_results(conn, a.id, item_id)
        records_b = item_results(conn, b.id, item_id)
    response = _render(
        request,
        "compare_item.html.j2",
        a=a,
        b=b,
        item_id=item_id,
        sides=[(a, records_a, _names(a)), (b, records_b, _names(b))],
    )
    if not records_a and not records_b:
        response.status_code = 404
    return response


def progress_data(request: Request) -> Response:
    """``/progress?run=ID&run=ID``: ``{id: {"status", "results"}}`` as JSON (live pages poll)."""
    run_ids = request.query_params.getlist("run")[:_LIVE_RUNS]
    with _database(request).connect() as conn:
        text = _progress_text(conn, run_ids)
    return Response(text, media_type="application/json", headers={"cache-control": "no-store"})
