"""``Store``: the results database, read and written through SQLAlchemy.

SQLite by default (``.scorekit/scorekit.db`` under the working directory), or PostgreSQL
(``postgresql://user@host/db``, the ``scorekit[postgres]`` extra; see
:mod:`scorekit.store.engines`). Methods are synchronous and each uses its own connection from
the engine's pool, so ``run_evals`` can write from a background thread while the CLI or the
report reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    and_,
    case,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import SQLAlchemyError

from scorekit.errors import StoreError
from scorekit.results import Status
from scorekit.steps import RECORD_FIELDS
from scorekit.store.engines import DEFAULT_DB_PATH, Database, resolve_url, short_error
from scorekit.store.records import (
    ResultRecord,
    RunRecord,
    RunSource,
    RunStatus,
    ScorerChange,
    ScoreRegression,
    run_record,
    this_writer,
)
from scorekit.store.run_refs import find_run
from scorekit.store.scorer_usage import (
    SCORER_USAGE_KEY,
    read_scorer_usage,
    scorer_usage,
    usage_data,
)
from scorekit.store.stored_summaries import read_summaries, stored_summaries
from scorekit.store.tables import ensure_schema, results, runs
from scorekit.summary import ScoreSummary
from scorekit.usage import JudgeUsage

__all__ = ["DEFAULT_DB_PATH", "Store", "resolve_url"]


class Store(Database):
    """The results database.

    Args:
        db: ``None`` (the default SQLite file ``.scorekit/scorekit.db``), a path to a SQLite
            file, a PostgreSQL URL (``postgresql://user:password@host:5432/db``), or any
            SQLAlchemy URL. The tables are created when missing.
        create: ``False``: a SQLite file must already exist (the reading commands, ``show``,
            ``report``, never create an empty database where a path was mistyped).

    Raises:
        StoreError: the database cannot be opened or its tables created, or (``create=False``)
            its SQLite file does not exist, or a PostgreSQL URL is given without the driver
            (``pip install 'scorekit[postgres]'``); the message holds the URL with any
            password masked.

    Example:
        >>> with Store("sqlite:///:memory:") as store:
        ...     store.list_runs()
        []
    """

    def __init__(
        self, db: str | Path | None = None, *, create: bool = True, read_only: bool = False
    ) -> None:
        super().__init__(db, create=create and not read_only, read_only=read_only)

    def _prepare(self, create: bool) -> None:
        ensure_schema(self._engine, create=create, read_only=self.read_only)

    def _fail(self, action: str, exc: Exception, run_id: str | None = None) -> StoreError:
        return StoreError(
            f"{action} failed on {self.url}: {short_error(exc)}", url=self.url, run_id=run_id
        )

    # -- writing ---------------------------------------------------------------------------

    def start_run(
        self,
        run_id: str,
        *,
        name: str | None,
        scorers: Sequence[Mapping[str, Any]],
        config: Mapping[str, Any] | None = None,
        thresholds: Mapping[str, float] | None = None,
        started_at: datetime | None = None,
        source: RunSource = "TEST",
    ) -> None:
        """Record a new run with status ``running``.

        Args:
            run_id: the run's uuid4.
            name: a name for it, or ``None``.
            scorers: ``[{"id", "name", "description"}]``.
            config: JSON data describing what was run.
            thresholds: scorer id → minimum mean.
            started_at: the start time (UTC); now when omitted.
            source: where its items come from (``"TEST"``, ``"LIVE"`` or ``"TRACE"``).

        Raises:
            StoreError: the write failed (for example a duplicate id).
        """
        started_at = started_at or datetime.now(timezone.utc)
        try:
            with self._engine.begin() as conn:
                conn.execute(
                    insert(runs).values(
                        id=run_id,
                        name=name,
                        status="running",
                        source=source,
                        started_at=started_at,
                        heartbeat_at=started_at,
                        writer=this_writer(),
                        config=dict(config or {}),
                        scorers=[dict(s) for s in scorers],
                        thresholds=dict(thresholds or {}),
                        total_items=0,
                    )
                )
        except SQLAlchemyError as exc:
            raise self._fail("starting a run", exc, run_id) from exc

    def reopen_run(self, run_id: str) -> None:
        """Mark a stored run as ``running`` again (to resume it); its totals are cleared.

        Raises:
            StoreError: no such run, or the write failed.
        """
        self.get_run(run_id)
        try:
            with self._engine.begin() as conn:
                conn.execute(
                    update(runs)
                    .where(runs.c.id == run_id)
                    .values(
                        status="running",
                        finished_at=None,
                        verdict=None,
                        totals=None,
                        heartbeat_at=datetime.now(timezone.utc),
                        writer=this_writer(),
                    )
                )
        except SQLAlchemyError as exc:
            raise self._fail("reopening a run", exc, run_id) from exc

    def update_config(self, run_id: str, values: Mapping[str, Any]) -> None:
        """Add keys to a stored run's ``config``; the other keys are kept.

        For what a command learns after the run, such as its agreement with human labels.

        Raises:
            StoreError: no such run, or the write failed.
        """
        record = self.get_run(run_id)
        try:
            with self._engine.begin() as conn:
                conn.execute(
                    update(runs)
                    .where(runs.c.id == record.id)
                    .values(config={**record.config, **dict(values)})
                )
        except SQLAlchemyError as exc:
            raise self._fail("updating a run's config", exc, run_id) from exc

    def delete_empty_run(self, run_id: str) -> bool:
        """Remove a run that holds no result (a command that found nothing to score).

        Returns:
            Whether it was removed: a run with results is never removed.

        Raises:
            StoreError: the read or write failed.
        """
        try:
            with self._engine.begin() as conn:
                held = conn.execute(
                    select(func.count()).select_from(results).where(results.c.run_id == run_id)
                ).scalar_one()
                if held:
                    return False
                conn.execute(delete(runs).where(runs.c.id == run_id))
                return True
        except SQLAlchemyError as exc:
            raise self._fail("removing an empty run", exc, run_id) from exc

    def beat(self, run_id: str) -> None:
        """Record that the process writing a ``running`` run is alive (its heartbeat).

        A run whose heartbeat stopped over
        :data:`~scorekit.store.records.STALE_AFTER_S` ago is shown as interrupted
        (:meth:`~scorekit.store.records.RunRecord.shown_status`).

        Raises:
            StoreError: the write failed.
        """
        try:
            with self._engine.begin() as conn:
                conn.execute(
                    update(runs)
                    .where(runs.c.id == run_id, runs.c.status == "running")
                    .values(heartbeat_at=datetime.now(timezone.utc))
                )
        except SQLAlchemyError as exc:
            raise self._fail("writing the heartbeat", exc, run_id) from exc

    def finish_run(
        self,
        run_id: str,
        *,
        status: RunStatus,
        total_items: int,
        judge_usage: Mapping[str, Any],
        verdict: str | None,
        finished_at: datetime | None = None,
    ) -> None:
        """Record how a run ended, and its totals: the summaries of its stored rows.

        The totals are computed here, from the rows, in the transaction that ends the run (see
        :mod:`scorekit.store.stored_summaries`), so every view reads the same numbers; so is
        each scorer's judge usage, kept in ``judge_usage`` under ``"scorers"``
        (:mod:`scorekit.store.scorer_usage`).

        Raises:
            StoreError: no such run, or the read or write failed.
        """
        record = self.get_run(run_id)
        try:
            with self._engine.begin() as conn:
                summaries = read_summaries(conn, record.id, record.scorer_ids)
                per_scorer = usage_data(read_scorer_usage(conn, record.id))
                conn.execute(
                    update(runs)
                    .where(runs.c.id == record.id)
                    .values(
                        status=status,
                        finished_at=finished_at or datetime.now(timezone.utc),
                        total_items=total_items,
                        totals={sid: s.to_dict() for sid, s in summaries.items()},
                        judge_usage={**judge_usage, SCORER_USAGE_KEY: per_scorer},
                        verdict=verdict,
                    )
                )
        except SQLAlchemyError as exc:
            raise self._fail("finishing a run", exc, run_id) from exc

    def write_results(self, rows: Sequence[Mapping[str, Any]], *, replace: bool = False) -> None:
        """Insert result rows in one transaction.

        Args:
            rows: values for the ``results`` table (see :mod:`scorekit.store.tables`).
            replace: first delete stored rows of the same (run, item, scorer) pairs (a resumed
                run re-scoring pairs that failed before).

        Raises:
            StoreError: the write failed; none of the rows is stored.
        """
        self.insert(results, rows, what="results", replace=replace)

    # -- reading ---------------------------------------------------------------------------

    def list_runs(
        self, limit: int | None = 50, *, source: RunSource | None = None
    ) -> list[RunRecord]:
        """Return stored runs, newest first.

        Args:
            limit: the most runs to return (``None``: all).
            source: only runs of this source (``TEST``, ``LIVE``, ``TRACE``); ``None``: all.

        Raises:
            StoreError: the read failed.
        """
        where = [] if source is None else [runs.c.source == source]
        query = select(runs).where(*where).order_by(runs.c.started_at.desc(), runs.c.id)
        if limit is not None:
            query = query.limit(limit)
        try:
            with self._engine.connect() as conn:
                return [run_record(row) for row in conn.execute(query)]
        except SQLAlchemyError as exc:
            raise self._fail("listing runs", exc) from exc

    def get_run(self, ref: str) -> RunRecord:
        """Return one run by its id, a unique prefix of it (``"3f2a"``), its name, or ``"latest"``.

        An exact id wins; otherwise the runs whose id starts with ``ref`` or whose name is
        ``ref`` must be exactly one.

        Raises:
            StoreError: no run matches, or several do (the message lists them: id, name,
                start).
        """
        try:
            with self._engine.connect() as conn:
                return find_run(conn, ref, self.url)
        except SQLAlchemyError as exc:
            raise self._fail("reading a run", exc, ref) from exc

    def done_pairs(self, run_id: str) -> dict[tuple[str, str], ResultRecord]:
        """Return the run's (item id, scorer id) pairs stored as ``ok`` or ``skipped``.

        A resumed run skips these pairs and counts their stored results.

        Raises:
            StoreError: the read failed.
        """
        found: dict[tuple[str, str], ResultRecord] = {}
        for record in self.results(run_id, statuses=("ok", "skipped"), light=True):
            found[(record.item_id, record.scorer_id)] = record
        return found

    def results(
        self,
        run_id: str,
        *,
        scorer_id: str | None = None,
        statuses: Sequence[Status] | None = None,
        limit: int | None = None,
        light: bool = False,
    ) -> Iterator[ResultRecord]:
        """Stream a run's stored results in the order they were written.

        Args:
            run_id: the run (its full id).
            scorer_id: only this scorer's results.
            statuses: only results with these statuses.
            limit: the most rows to return.
            light: leave out the bulky columns (input, output, ground truth, context, request
                context, step results, prompts); they read back as ``None``.

        Yields:
            One record per stored row.

        Raises:
            StoreError: the read failed.
        """
        bulky = {
            *RECORD_FIELDS,
            "item_metadata",
            "preprocess_step_result",
            "analyze_step_result",
            "preprocess_prompt",
            "analyze_prompt",
            "generate_score_prompt",
            "generate_reason_prompt",
        }
        columns = [c for c in results.c if not (light and c.name in bulky)]
        query = select(*columns).where(results.c.run_id == run_id).order_by(results.c.id)
        if scorer_id is not None:
            query = query.where(results.c.scorer_id == scorer_id)
        if statuses is not None:
            query = query.where(results.c.status.in_(list(statuses)))
        if limit is not None:
            query = query.limit(limit)
        try:
            with self._engine.connect() as conn:
                for row in conn.execute(query.execution_options(yield_per=1000)):
                    yield ResultRecord.from_row(dict(row._mapping))
        except SQLAlchemyError as exc:
            raise self._fail("reading results", exc, run_id) from exc

    def item_count(self, run_id: str) -> int:
        """Return how many distinct items have stored results in the run.

        Raises:
            StoreError: the read failed.
        """
        query = select(func.count(func.distinct(results.c.item_id))).where(
            results.c.run_id == run_id
        )
        try:
            with self._engine.connect() as conn:
                return int(conn.execute(query).scalar_one())
        except SQLAlchemyError as exc:
            raise self._fail("counting items", exc, run_id) from exc

    def scorer_stats(self, run_id: str) -> dict[str, ScoreSummary]:
        """Per-scorer summaries of a stored run read from its rows (views: run_summaries).

        Raises:
            StoreError: no such run, or the read failed.
        """
        run = self.get_run(run_id)
        try:
            with self._engine.connect() as conn:
                return read_summaries(conn, run.id, run.scorer_ids)
        except SQLAlchemyError as exc:
            raise self._fail("reading statistics", exc, run.id) from exc

    def run_summaries(self, run: RunRecord | str) -> dict[str, ScoreSummary]:
        """Per-scorer summaries of a run (or its id, prefix, ``"latest"``) for every view.

        The totals of an ended run (written from its rows by :meth:`finish_run`; they hold no
        scores but the default histogram), else its rows: a running or crashed run, or an
        older row. Either way the rows' summaries (see :mod:`scorekit.store.stored_summaries`).

        Raises:
            StoreError: no such run, or the read failed.
        """
        record = run if isinstance(run, RunRecord) else self.get_run(run)
        stored = stored_summaries(record)
        return stored if stored is not None else self.scorer_stats(record.id)

    def scorer_usage(self, run: RunRecord) -> dict[str, JudgeUsage]:
        """A run's judge usage per scorer (its result and trial rows' sums), for every view.

        Raises:
            StoreError: the read failed.
        """
        try:
            with self._engine.connect() as conn:
                return scorer_usage(conn, run)
        except SQLAlchemyError as exc:
            raise self._fail("reading judge usage", exc, run.id) from exc

    def results_frame(self, run_id: str, *, wide: bool = False) -> Any:
        """A stored run's results as a pandas DataFrame (``datasets.frames.records_frame``).

        Args:
            run_id: the run's id, a unique prefix, its name, or ``"latest"``.
            wide: one row per item (a score and a status column per scorer) instead of one
                row per item and scorer.

        Raises:
            StoreError: no such run, or the read failed.
            ImportError: pandas is not installed (``pip install 'scorekit[pandas]'``).
        """
        from scorekit.datasets.frames import records_frame

        return records_frame(self.results(self.get_run(run_id).id), wide=wide)

    def compare(
        self, run_a: str, run_b: str, *, limit: int = 10
    ) -> tuple[list[ScorerChange], list[ScoreRegression]]:
        """Compare two stored runs scorer by scorer, and find the items that regressed most.

        Args:
            run_a: the baseline run (id, prefix or ``"latest"``).
            run_b: the run compared with it.
            limit: how many regressed items to return (largest drops first).

        Returns:
            Each scorer's means in both runs (scorers of either run, first run's order first)
            with its change over the items scored ``ok`` in both (the paired items; no change
            without any), and the (item, scorer) pairs scored ``ok`` in both runs whose score
            dropped, the largest drop first.

        Raises:
            StoreError: a run does not exist, or the read failed.
        """
        a, b = self.get_run(run_a), self.get_run(run_b)
        stats_a, stats_b = self.run_summaries(a), self.run_summaries(b)
        ra, rb = results.alias("ra"), results.alias("rb")

        def both_ok(score: Any) -> Any:
            return case((and_(ra.c.status == "ok", rb.c.status == "ok"), score), else_=0.0)

        joined = ra.join(
            rb,
            and_(
                ra.c.item_id == rb.c.item_id,
                ra.c.scorer_id == rb.c.scorer_id,
                rb.c.run_id == b.id,
            ),
        )
        delta = (rb.c.score - ra.c.score).label("delta")
        try:
            with self._engine.connect() as conn:
                pairs = conn.execute(
                    select(
                        ra.c.scorer_id,
                        func.sum(
                            case((and_(ra.c.status == "ok", rb.c.status == "ok"), 1), else_=0)
                        ),
                        func.sum(
                            case((and_(ra.c.status == "ok", rb.c.status == "error"), 1), else_=0)
                        ),
                        func.sum(both_ok(ra.c.score)),
                        func.sum(both_ok(rb.c.score)),
                    )
                    .select_from(joined)
                    .where(ra.c.run_id == a.id)
                    .group_by(ra.c.scorer_id)
                )
                paired = {
                    sid: (int(n or 0), int(f or 0), float(sa or 0.0), float(sb or 0.0))
                    for sid, n, f, sa, sb in pairs
                }
                dropped = conn.execute(
                    select(ra.c.item_id, ra.c.scorer_id, ra.c.score, rb.c.score, delta)
                    .select_from(joined)
                    .where(
                        ra.c.run_id == a.id,
                        ra.c.status == "ok",
                        # rb's status inside the comparison, not an equality of its own: else
                        # SQLite may look rb up by (run, scorer, status) and scan every ok row
                        # of the scorer per item (quadratic: 258 s for two 20,000-row runs)
                        case((rb.c.status == "ok", rb.c.score), else_=None) < ra.c.score,
                    )
                    .order_by(delta, ra.c.item_id, ra.c.scorer_id)
                    .limit(limit)
                )
                regressions = [
                    ScoreRegression(item_id, sid, float(sa), float(sb), float(d))
                    for item_id, sid, sa, sb, d in dropped
                ]
        except SQLAlchemyError as exc:
            raise self._fail("comparing runs", exc) from exc
        changes = []
        for sid in dict.fromkeys([*stats_a, *stats_b]):
            mean_a = stats_a[sid].mean if sid in stats_a else None
            mean_b = stats_b[sid].mean if sid in stats_b else None
            n, failed, sum_a, sum_b = paired.get(sid, (0, 0, 0.0, 0.0))
            changes.append(
                ScorerChange(
                    scorer_id=sid,
                    mean_a=mean_a,
                    mean_b=mean_b,
                    delta=(sum_b - sum_a) / n if n else None,
                    paired=n,
                    newly_failed=failed,
                    paired_mean_a=sum_a / n if n else None,
                    paired_mean_b=sum_b / n if n else None,
                )
            )
        return changes, regressions
