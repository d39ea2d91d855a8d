"""``RunRecorder``: one stored run, from any source of items.

A recorder owns the run's row and its writer: :meth:`RunRecorder.start` (or
:meth:`~RunRecorder.resume`) opens the run, :meth:`~RunRecorder.record` queues each finished
item's results for the background writer (group commit, :mod:`scorekit.store.writer`), and
:meth:`~RunRecorder.finish` writes what is queued and the run's totals, status and verdict.
``run_evals`` records dataset runs with it (source ``TEST``); any other source of items records
its runs the same way, as ``LIVE`` (sampled calls of an application) or ``TRACE``.
"""

from __future__ import annotations

import contextlib
import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, get_args

from scorekit._sync import hold_interrupts
from scorekit.errors import ConfigError, StoreError
from scorekit.items import ItemResult
from scorekit.judge.cache import PROMPT_VERSION
from scorekit.judge.prices import PRICES_KEY, PriceTable, resumed_prices
from scorekit.pipeline import Scorer
from scorekit.results import ScorerRunResult
from scorekit.store.records import (
    ERROR_LIMITS_KEY,
    RUN_SOURCES,
    STALE_AFTER_S,
    ResultRecord,
    RunSource,
    RunStatus,
    stored_error_limits,
)
from scorekit.usage import JudgeUsage

if TYPE_CHECKING:  # imported when a store is used: SQLAlchemy is a large import
    from scorekit.store.store import Store
    from scorekit.store.writer import ResultWriter

__all__ = ["ERROR_LIMITS_KEY", "ResumedRun", "RunRecorder", "stored_error_limits", "stored_result"]


def stored_result(record: ResultRecord) -> ScorerRunResult:
    """The :class:`~scorekit.results.ScorerRunResult` of a stored row (its light columns)."""
    return ScorerRunResult(
        scorer_id=record.scorer_id,
        run_id=record.scorer_run_id,
        status=record.status,
        score=record.score,
        reason=record.reason,
        judge_usage=record.judge_usage,
        duration_s=record.duration_s,
    )


@dataclass
class ResumedRun:
    """What a stored run holds when it is resumed.

    Attributes:
        run_id: the run's full id.
        name: its stored name.
        done: (item id, scorer id) → the stored ``ok`` or ``skipped`` result; these pairs are
            not scored again.
        failed: (item id, scorer id) → the stored ``error`` result; these pairs are scored
            again, and their new rows replace the old.
        thresholds: the stored thresholds (scorer id → minimum mean).
        scorer_ids: the stored run's scorer ids.
        max_error_rates: the stored error-rate limits (scorer id → share), or ``None`` for a
            run stored before that gate existed.
        config: the stored run's config (its agreement gates among it).

    Take an item's pairs out with :meth:`take`; what is left in both at the end belongs to
    items the new data did not hold, whose stored rows still count in the run's summaries
    (:meth:`untouched`).
    """

    run_id: str
    name: str | None
    done: dict[tuple[str, str], ScorerRunResult] = field(default_factory=dict)
    failed: dict[tuple[str, str], ScorerRunResult] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    scorer_ids: list[str] = field(default_factory=list)
    max_error_rates: dict[str, float] | None = None
    config: dict[str, Any] = field(default_factory=dict)

    def take(self, item_id: str, scorer_ids: Sequence[str]) -> dict[str, ScorerRunResult]:
        """Remove one item's pairs; return its ``done`` results (scorer id → result)."""
        found = {}
        for scorer_id in scorer_ids:
            self.failed.pop((item_id, scorer_id), None)
            result = self.done.pop((item_id, scorer_id), None)
            if result is not None:
                found[scorer_id] = result
        return found

    def untouched(self) -> tuple[int, list[ScorerRunResult]]:
        """Remove and return what is left: (items not in the new data, their stored results)."""
        left = {**self.failed, **self.done}
        self.done, self.failed = {}, {}
        return len({item_id for item_id, _ in left}), list(left.values())


def _spec_of(scorer: Scorer) -> dict[str, Any] | None:
    """A registry-built scorer's spec as JSON data (how to build it again), else ``None``."""
    if scorer.spec is None or not hasattr(scorer.spec, "to_dict"):
        return None
    try:
        spec: dict[str, Any] = scorer.spec.to_dict()
    except TypeError:  # an option JSON cannot describe (a lambda): the spec is not stored
        return None
    return spec


def _scorer_row(scorer: Scorer | Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(scorer, Scorer):
        if not isinstance(scorer, Mapping) or "id" not in scorer:
            raise ConfigError(
                f"scorers must be Scorer objects or {{'id', 'name', 'description'}} rows, not "
                f"{scorer!r}",
                field="scorers",
            )
        return dict(scorer)
    row: dict[str, Any] = {"id": scorer.id, "name": scorer.name, "description": scorer.description}
    spec = _spec_of(scorer)
    if spec is not None:
        row["spec"] = spec
        options = _options_with_defaults(scorer)
        if options is not None:  # defaults filled: the same scorer compares equal however given
            row["options"] = options
    if scorer.judge is not None:  # what an agreement measured on the run is tied to
        row["judge"] = scorer.judge.model_id
        row["prompt_version"] = PROMPT_VERSION
    if scorer.judge_models != ([row["judge"]] if "judge" in row else []):
        row["judges"] = scorer.judge_models  # its steps ask judges of their own (its cost reads it)
    return row


def _judge_models(scorers: Sequence[Scorer | Mapping[str, Any]]) -> list[str]:
    """The judge models of a run's scorers (a row's ``judge``), once each, in order."""
    found: dict[str, None] = {}
    for scorer in scorers:
        if isinstance(scorer, Scorer):
            found.update(dict.fromkeys(scorer.judge_models))
        elif isinstance(scorer, Mapping):
            named = scorer.get("judges") or [scorer.get("judge")]
            found.update(dict.fromkeys(m for m in named if isinstance(m, str) and m))
    return list(found)


def _options_with_defaults(scorer: Scorer) -> dict[str, Any] | None:
    """A registry-built scorer's options with its factory's defaults filled in, as JSON data."""
    from scorekit.scorers.registry import ScorerSpec, get_entry  # loaded by build_scorer already

    spec = scorer.spec
    if not isinstance(spec, ScorerSpec):
        return None
    try:
        parameters = inspect.signature(get_entry(spec.name).factory).parameters.values()
    except (ConfigError, TypeError, ValueError):
        return None
    full = {p.name: p.default for p in parameters
            if p.default is not inspect.Parameter.empty and p.name != "model"}  # fmt: skip
    full.update(spec.options)
    data: dict[str, Any] = json.loads(json.dumps(full, sort_keys=True, default=repr))
    return data


class RunRecorder:
    """Records one run in a store: its row, its items' results as they finish, its totals.

    Args:
        store: a :class:`~scorekit.store.Store`, a SQLAlchemy URL or a SQLite file path (then
            the recorder opens the store and closes it in :meth:`close`).
        source: where the run's items come from: ``"TEST"`` (a dataset), ``"LIVE"`` or
            ``"TRACE"``.
        max_pending: finished items queued for the writer above which :meth:`record` waits.

    Raises:
        ConfigError: ``source`` is not one of the three (``field="source"``).
        StoreError: the store cannot be opened.

    Example (``uuid`` imported)::

        with RunRecorder("results.db") as recorder:
            run_id = recorder.start(str(uuid.uuid4()), scorers=[scorer], name="nightly")
            await recorder.record(await score_item(item, [scorer]))
            recorder.finish("finished", total_items=1)
    """

    def __init__(
        self,
        store: Store | str | Path,
        *,
        source: RunSource = "TEST",
        max_pending: int = 5000,
    ) -> None:
        if source not in RUN_SOURCES:
            raise ConfigError(
                f"source must be one of {', '.join(RUN_SOURCES)}, not {source!r}", field="source"
            )
        from scorekit.store.store import Store

        self._owns_store = not isinstance(store, Store)
        self.store: Store = store if isinstance(store, Store) else Store(store)
        """The store the run is recorded in."""
        self.source: RunSource = source
        """Where the run's items come from."""
        self._max_pending = max_pending
        self._writer: ResultWriter | None = None
        self._scorer_ids: frozenset[str] = frozenset()
        self._models: list[str] | None = None  # the judge models of a loaded run's scorers
        self._finished = False
        self.run_id: str | None = None
        """The recorded run's id, once started or resumed."""

    @property
    def finished(self) -> bool:
        """Whether :meth:`finish` was called (the run's ending is written, or failed to be)."""
        return self._finished

    @property
    def url(self) -> str:
        """The store's URL, password masked."""
        return self.store.url

    def __enter__(self) -> RunRecorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _open_writer(self, run_id: str, *, replace: bool) -> None:
        from scorekit.store.writer import ResultWriter

        self.run_id = run_id
        self._writer = ResultWriter(
            self.store, run_id, replace=replace, max_pending=self._max_pending, source=self.source
        )

    def start(
        self,
        run_id: str,
        *,
        scorers: Sequence[Scorer | Mapping[str, Any]],
        name: str | None = None,
        config: Mapping[str, Any] | None = None,
        thresholds: Mapping[str, float] | None = None,
        max_error_rates: Mapping[str, float] | None = None,
        prices: PriceTable | None = None,
    ) -> str:
        """Record a new run (status ``running``) and start its writer.

        Args:
            run_id: the new run's id (a uuid4 string).
            scorers: the run's scorers, or their ``{"id", "name", "description"}`` rows.
            name: a name for the run.
            config: JSON data describing what was run.
            thresholds: scorer id → minimum mean.
            max_error_rates: scorer id → the error-rate limit of the verdict; stored in the
                run's config under ``max_error_rate`` (:data:`ERROR_LIMITS_KEY`).
            prices: the prices the run uses (``None``: the price table); the price of each
                judge model of ``scorers`` that has one is stored in the run's config under
                ``prices`` (model → ``Price.to_dict()``), so the views show what the run cost
                at the prices it ran with.

        Returns:
            The run's id.

        Raises:
            StoreError: the run cannot be written (a duplicate id, a broken database).
        """
        rows = [_scorer_row(scorer) for scorer in scorers]
        self._scorer_ids = frozenset(str(row["id"]) for row in rows)
        stored_config = dict(config or {})
        if max_error_rates is not None:
            stored_config[ERROR_LIMITS_KEY] = dict(max_error_rates)
        models = _judge_models(scorers)
        stored_config[PRICES_KEY] = (prices or PriceTable()).to_stored(models)
        self.store.start_run(
            run_id,
            name=name,
            scorers=rows,
            config=stored_config,
            thresholds=thresholds,
            source=self.source,
        )
        self._open_writer(run_id, replace=False)
        return run_id

    def load(self, ref: str, *, scorers: Sequence[Scorer]) -> ResumedRun:
        """Read a stored run to resume: its id, name, thresholds and the pairs already done.

        Nothing is written; :meth:`resume` then reopens it.

        Args:
            ref: the run's id, a unique prefix of it, or ``"latest"``.
            scorers: the scorers of the resumed run: the stored run's ids, and, where both
                the stored run and the scorer carry a registry spec, the same spec (name,
                options, judge), so a resumed run never mixes scores made with other options.

        Raises:
            StoreError: no such run.
            ConfigError: the stored run was scored with other scorers, or with other options,
                was recorded by live or trace scoring, or is still running in another process
                (its heartbeat is fresh and its writer, on this host, is alive; on another
                host, the heartbeat alone tells) (``field="resume"``).
        """
        stored = self.store.get_run(ref)
        if stored.source != "TEST":
            raise ConfigError(
                f"run {stored.id} holds {stored.source} results (live or trace scoring); "
                "only a dataset run can be resumed with run_evals / scorekit run",
                field="resume",
            )
        if stored.status == "running" and stored.stale_since() is None and not stored.writer_gone():
            last = stored.heartbeat_at or stored.started_at
            raise ConfigError(
                f"run {stored.id} is still running in another process (last heartbeat "
                f"{last:%Y-%m-%d %H:%M:%S} UTC); resume it once it has ended, or once its "
                f"heartbeat has stopped for {STALE_AFTER_S:g} s",
                field="resume",
            )
        scorer_ids = [s.id for s in scorers]
        if set(stored.scorer_ids) != set(scorer_ids):
            raise ConfigError(
                f"run {stored.id} was scored with {', '.join(stored.scorer_ids)}; resume it "
                f"with the same scorers, not {', '.join(scorer_ids)}",
                field="resume",
            )
        stored_specs = {str(row["id"]): row.get("spec") for row in stored.scorers}
        for scorer in scorers:
            was, now = stored_specs.get(scorer.id), _spec_of(scorer)
            if was is not None and now is not None and was != now:
                raise ConfigError(
                    f"run {stored.id} scored {scorer.id} as {was}; resume it with the same "
                    f"options, not {now}",
                    field="resume",
                )
        done = {pair: stored_result(r) for pair, r in self.store.done_pairs(stored.id).items()}
        failed = {
            (r.item_id, r.scorer_id): stored_result(r)
            for r in self.store.results(stored.id, statuses=("error",), light=True)
        }
        self._scorer_ids = frozenset(stored.scorer_ids)
        self._models = _judge_models(scorers)
        return ResumedRun(
            stored.id,
            stored.name,
            done,
            failed,
            dict(stored.thresholds),
            list(stored.scorer_ids),
            stored_error_limits(stored.config),
            dict(stored.config) if isinstance(stored.config, dict) else {},
        )

    def resume(self, run_id: str, *, prices: PriceTable | None = None) -> None:
        """Mark a stored run ``running`` again and start its writer.

        Pairs scored again replace their old rows. The run's stored prices are kept, except
        where ``prices`` overrides one or a judge model had none
        (:func:`~scorekit.judge.prices.resumed_prices`).

        Raises:
            StoreError: no such run, or the write failed.
        """
        self.store.reopen_run(run_id)
        if self._models is not None:  # loaded: its scorers are known
            stored = self.store.get_run(run_id).config.get(PRICES_KEY)
            kept = resumed_prices(stored, prices or PriceTable(), self._models)
            self.store.update_config(run_id, {PRICES_KEY: kept})
        self._open_writer(run_id, replace=True)

    async def record(self, outcome: ItemResult, *, finished_at: datetime | None = None) -> None:
        """Queue one finished item's new results for writing.

        Results it read back from the store are not written again. Waits while the writer is
        ``max_pending`` items behind.

        Args:
            outcome: the item's results.
            finished_at: when the item finished (UTC); now when omitted.

        Raises:
            ConfigError: the run was not started or resumed.
            StoreError: an earlier write failed (the run cannot be stored any further).
        """
        if self._writer is None:
            raise ConfigError("start or resume the run before recording items", field="run_id")
        if not isinstance(outcome, ItemResult):
            raise ConfigError(
                f"record takes an ItemResult, not {type(outcome).__name__}", field="outcome"
            )
        strangers = set(outcome.scorer_results) - self._scorer_ids
        if strangers and self._scorer_ids:
            raise ConfigError(
                f"item {outcome.item.id!r} has results of scorers this run does not have: "
                f"{', '.join(sorted(strangers))}",
                field="scorer_results",
            )
        if len(outcome.stored) == len(outcome.scorer_results):
            return
        await self._writer.put(outcome, finished_at or datetime.now(timezone.utc))

    def finish(
        self,
        status: RunStatus,
        *,
        total_items: int,
        judge_usage: JudgeUsage | None = None,
        verdict: str | None = None,
    ) -> RunStatus:
        """Write everything queued, then the run's status, totals and verdict.

        The totals are the summaries of the stored rows, computed by the store
        (:meth:`~scorekit.store.Store.finish_run`). A write that failed while the run went on
        makes the run ``failed`` (the row says so) and raises.

        Args:
            status: how the run ended.
            total_items: items processed.
            judge_usage: the run's judge usage totals.
            verdict: ``"passed"`` / ``"failed"``; stored for a ``finished`` run, and for an
                ``interrupted`` one that has a verdict (its judge budget stopped it: failed).

        Returns:
            The status written.

        Raises:
            StoreError: queued results or the run row could not be written.
        """
        if self.run_id is None:
            raise ConfigError("finish needs a started or resumed run", field="run_id")
        if self._finished:
            raise ConfigError(f"run {self.run_id} is already finished", field="status")
        if status not in get_args(RunStatus) or status == "running":
            raise ConfigError(
                f"a run ends as finished, interrupted or failed, not {status!r}", field="status"
            )
        if isinstance(total_items, bool) or not isinstance(total_items, int) or total_items < 0:
            raise ConfigError(
                f"total_items must be an integer >= 0, got {total_items!r}", field="total_items"
            )
        self._finished = True
        failure: StoreError | None = None
        # a Ctrl-C now would leave the run `running` with its last batch unwritten: held
        with hold_interrupts():
            try:
                if self._writer is not None:
                    # synchronous on purpose: a second cancellation must not lose the last batch
                    self._writer.close()
            except StoreError as exc:
                failure, status = exc, "failed"
            finally:
                self._writer = None
            self.store.finish_run(
                self.run_id,
                status=status,
                total_items=total_items,
                judge_usage=(judge_usage or JudgeUsage()).to_dict(),
                verdict=verdict if status != "failed" else None,
            )
        if failure is not None:
            raise failure
        return status

    def close(self) -> None:
        """Stop a writer still running and close the store when the recorder opened it."""
        if self._writer is not None:
            # only reached when finish() was not: the caller is already raising its own error
            with contextlib.suppress(StoreError):
                self._writer.close()
            self._writer = None
        if self._owns_store:
            self.store.close()
