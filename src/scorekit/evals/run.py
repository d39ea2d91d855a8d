"""``run_evals``: the wiring of data source → executor → recorder → result.

Items are read lazily from the data (:class:`~scorekit.evals.source.ItemSource`), scored by an
executor (:class:`~scorekit.evals.executor.LocalExecutor` unless told otherwise) with the
per-item function (:class:`~scorekit.evals.per_item.ItemJob`), counted in the result's summaries,
and, with a store, recorded as they finish (:class:`~scorekit.evals.recorder.RunRecorder`,
source ``TEST``). One failing item or scorer never ends the run (divergences.md row 8).

``resume=RUN_ID`` continues a stored run, skipping the (item, scorer) pairs stored as ``ok`` or
``skipped``. Cancelling the run (Ctrl-C in :func:`run_evals_sync`, ``task.cancel()`` in async
code) stops it cleanly: everything finished so far is stored and the run is marked
``interrupted``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typing_extensions import Unpack

from scorekit._sync import run_sync
from scorekit.errors import ConfigError, StoreError
from scorekit.evals.agreement_gates import (
    check_agreement_gates,
    resumed_agreement_gates,
    store_label_agreement,
    with_agreement_gates,
)
from scorekit.evals.executor import DEFAULT_CONCURRENCY, Executor, ItemTask, LocalExecutor
from scorekit.evals.gates import (
    check_max_error_rate,
    check_threshold_ranges,
    check_thresholds,
    resolve_scorer_keys,
)
from scorekit.evals.heap import FrozenHeap
from scorekit.evals.per_item import ItemJob
from scorekit.evals.progress import check_progress, run_progress, total_of
from scorekit.evals.recorder import ResumedRun, RunRecorder
from scorekit.evals.result import DataSourceError, EvalInterrupted, EvalRunResult
from scorekit.evals.run_options import ItemCallback, RunEvalsOptions, check_option_names
from scorekit.evals.scorer_threads import DEFAULT_SCORER_TIMEOUT
from scorekit.evals.source import ItemSource
from scorekit.evals.target_calls import DEFAULT_TARGET_TIMEOUT
from scorekit.evals.text_limits import DEFAULT_MAX_TEXT_CHARS
from scorekit.items import EvalItem, ItemResult
from scorekit.judge.prices import PriceTable, stored_prices
from scorekit.judge.spending import (
    BUDGET_STOP_KEY,
    JUDGE_LEDGER,
    JudgeBudget,
    SpendingLedger,
    check_prices,
)
from scorekit.pipeline import Scorer
from scorekit.store.records import RunStatus
from scorekit.summary import ScoreSummary

if TYPE_CHECKING:
    from rich.progress import Progress


__all__ = ["ItemCallback", "RunEvalsOptions", "run_evals", "run_evals_sync"]


def _executor(executor: Executor | None, concurrency: int | None) -> Executor:
    if executor is None:
        return LocalExecutor(DEFAULT_CONCURRENCY if concurrency is None else concurrency)
    if concurrency is not None:
        raise ConfigError(
            "give concurrency to the executor, not to run_evals, when passing executor=",
            field="concurrency",
        )
    if isinstance(executor, type) or not inspect.iscoroutinefunction(
        getattr(executor, "run", None)
    ):
        raise ConfigError(
            f"executor must have an async run(job, tasks, emit) method, not "
            f"{type(executor).__name__}",
            field="executor",
        )
    return executor


class _Run:
    """One ``run_evals`` call, wired: validated settings, the live result, the recorder.

    Built synchronously, so argument errors raise before any work and the sync bridge keeps a
    handle on the partial result; then :meth:`execute` runs it once.
    """

    def __init__(
        self,
        data: Iterable[Any] | AsyncIterator[Any],
        scorers: Sequence[Scorer],
        options: RunEvalsOptions,
    ) -> None:
        check_option_names(options)
        target = options.get("target")
        concurrency = options.get("concurrency")
        executor = options.get("executor")
        on_item_complete = options.get("on_item_complete")
        thresholds = options.get("thresholds")
        max_error_rate = options.get("max_error_rate")
        min_agreement = options.get("min_agreement")
        store = options.get("store")
        resume = options.get("resume")
        run_id = options.get("run_id")
        run_name = options.get("run_name")
        keep_items = options.get("keep_items", True)
        config = options.get("config")
        scorer_timeout = options.get("scorer_timeout", DEFAULT_SCORER_TIMEOUT)
        target_timeout = options.get("target_timeout", DEFAULT_TARGET_TIMEOUT)
        max_text_chars = options.get("max_text_chars", DEFAULT_MAX_TEXT_CHARS)
        progress = options.get("progress")
        self.show_progress = check_progress(progress)
        self.total = total_of(data)
        trials = options.get("trials", 1)
        self.budget = JudgeBudget.from_options(options)
        given_prices = options.get("prices")
        self.prices = (
            given_prices
            if isinstance(given_prices, PriceTable)
            else PriceTable(given_prices, source="run_evals")
        )
        self.ledger: SpendingLedger | None = None
        self.unscored = 0  # items a budget stop left unscored (in part or whole)
        self.job = ItemJob(
            scorers,  # type: ignore[arg-type]
            target,
            scorer_timeout,
            target_timeout,
            trials,
            max_text_chars,
        )
        if options.get("resume") is None:  # a resumed run's stored prices count: checked below
            self._check_prices()
        self.source = ItemSource(
            data,
            require_output=target is None,
            label_keys=functools.partial(
                resolve_scorer_keys, scorer_ids=self.job.scorer_ids, field="human_labels"
            ),
        )
        self.executor = _executor(executor, concurrency)
        if self.budget is not None and not isinstance(self.executor, LocalExecutor):
            raise ConfigError(
                "a judge budget (max_judge_calls, max_judge_tokens, max_cost) is kept on this "
                "event loop: "
                "it needs the local executor, not "
                f"{type(self.executor).__name__}",
                field="max_judge_calls",
            )
        if target is not None and not callable(target):
            raise ConfigError(
                f"target must be callable, not {type(target).__name__}", field="target"
            )
        scorer_ids = self.job.scorer_ids
        limits = check_thresholds(thresholds, scorer_ids)
        check_threshold_ranges(limits, self.job.scorers)
        error_limits = check_max_error_rate(max_error_rate, scorer_ids)
        gates = check_agreement_gates(min_agreement, scorer_ids)
        if resume is not None and store is None:
            raise ConfigError("resume= needs a store= to resume from", field="resume")
        if run_id is not None and (not isinstance(run_id, str) or not run_id.strip()):
            raise ConfigError(f"run_id must be a non-empty string, not {run_id!r}", field="run_id")
        if on_item_complete is not None and not callable(on_item_complete):
            raise ConfigError(
                f"on_item_complete must be callable, not {type(on_item_complete).__name__}",
                field="on_item_complete",
            )
        if config is not None and not isinstance(config, Mapping):
            raise ConfigError(
                f"config must be a mapping (JSON data), not {type(config).__name__}",
                field="config",
            )
        if store is not None and not isinstance(store, (str, Path)) and not hasattr(store, "url"):
            raise ConfigError(
                f"store must be a Store, a SQLAlchemy URL or a SQLite path, not "
                f"{type(store).__name__}",
                field="store",
            )
        self.on_item_complete = on_item_complete
        self.heap = FrozenHeap()
        self.bar: Progress | None = None
        self.keep_items = keep_items
        self.config = dict(config or {})
        if trials > 1:  # the views read the repeats with the run
            self.config["trials"] = trials
        self.recorder = RunRecorder(store) if store is not None else None
        self.resumed: ResumedRun | None = None
        new_id = run_id or str(uuid.uuid4())
        if self.recorder is not None and resume is not None:
            try:
                self.resumed = self.recorder.load(resume, scorers=self.job.scorers)
                # the prices stored with the run stand where none is given now
                self.prices = self.prices.with_stored(stored_prices(self.resumed.config) or {})
                self._check_prices()
                limits = self._resumed_thresholds(limits, self.resumed)
                error_limits = self._resumed_error_limits(
                    error_limits if max_error_rate is not None else None, self.resumed
                )
                gates = resumed_agreement_gates(gates, self.resumed.config)
                stored_trials = int(self.resumed.config.get("trials", 1))
                if "trials" in options and trials != stored_trials:
                    raise ConfigError(
                        f"run {self.resumed.run_id} was scored with trials={stored_trials}; "
                        "resume with the same or none",
                        field="trials",
                    )
                if trials != stored_trials:  # none given: the stored count goes on
                    trials = stored_trials
                    self.job = dataclasses.replace(self.job, trials=trials)
                if run_id is not None and run_id != self.resumed.run_id:
                    raise ConfigError(
                        f"run_id {run_id!r} is not the resumed run {self.resumed.run_id}",
                        field="run_id",
                    )
            except BaseException:
                self.recorder.close()
                raise
            new_id = self.resumed.run_id
            run_name = run_name or self.resumed.name
        self.result = EvalRunResult(
            run_id=new_id,
            run_name=run_name,
            summaries={s.id: ScoreSummary(s.id) for s in self.job.scorers},
            thresholds=limits,
            max_error_rates=error_limits,
            min_agreement=gates,
            trials=trials,
            store_url=self.recorder.url if self.recorder is not None else None,
            resumed=resume is not None,
        )

    def _check_prices(self) -> None:
        """Refuse a money budget over a judge model without a price (before anything runs)."""
        check_prices(
            self.budget, self.prices, (m for s in self.job.scorers for m in s.judge_models)
        )

    @staticmethod
    def _resumed_thresholds(given: dict[str, float], resumed: ResumedRun) -> dict[str, float]:
        """A resumed run keeps its stored thresholds: none given means those; others refused."""
        if not given:
            return dict(resumed.thresholds)
        if given != resumed.thresholds:
            raise ConfigError(
                f"run {resumed.run_id} has the thresholds {resumed.thresholds or 'none'}; resume "
                f"it with those (or none), not {given}",
                field="thresholds",
            )
        return given

    @staticmethod
    def _resumed_error_limits(
        given: dict[str, float] | None, resumed: ResumedRun
    ) -> dict[str, float]:
        """A resumed run keeps its stored error-rate limits, as it keeps its thresholds."""
        if resumed.max_error_rates is None:  # stored before the gate: the default applies
            return given if given is not None else check_max_error_rate(None, resumed.scorer_ids)
        if given is None or given == resumed.max_error_rates:
            return dict(resumed.max_error_rates)
        raise ConfigError(
            f"run {resumed.run_id} has the error-rate limits {resumed.max_error_rates}; resume "
            f"it with those (or none), not {given}",
            field="max_error_rate",
        )

    def _open(self) -> None:
        if self.recorder is None:
            return
        if self.resumed is not None:
            self.recorder.resume(self.result.run_id, prices=self.prices)
        else:
            self.recorder.start(
                self.result.run_id,
                scorers=self.job.scorers,
                name=self.result.run_name,
                config=with_agreement_gates(self.config, self.result.min_agreement),
                thresholds=self.result.thresholds,
                max_error_rates=self.result.max_error_rates,
                prices=self.prices,
            )

    async def _tasks(self) -> AsyncIterator[ItemTask]:
        ids = self.job.scorer_ids
        async for item in self.source:
            if self.ledger is not None and self.ledger.exhausted and not self._stored_whole(item):
                self.unscored += 1  # no new item starts once the budget is spent; its stored
                continue  # results (a resumed run) stay counted as the run's (_count_untouched)
            done = self.resumed.take(item.id, ids) if self.resumed is not None else {}
            yield ItemTask(item, done)

    def _stored_whole(self, item: EvalItem) -> bool:
        """Whether a resumed run holds every scorer's ``ok``/``skipped`` result of ``item``."""
        done = self.resumed.done if self.resumed is not None else {}
        return bool(done) and all((item.id, sid) in done for sid in self.job.scorer_ids)

    def _within_budget(self, outcome: ItemResult) -> ItemResult | None:
        """The outcome without the results a budget refusal touched (``None``: nothing left)."""
        refused = outcome.refused_by_budget()  # a refused trial drops its scorer's whole item
        if not refused:
            return outcome
        self.unscored += 1
        for sid in refused:  # what the dropped results spent is the run's all the same
            for result in (outcome.scorer_results[sid], *outcome.trials.get(sid, ())):
                self.result.judge_usage = self.result.judge_usage + result.judge_usage
        kept = {s: r for s, r in outcome.scorer_results.items() if s not in refused}
        if not kept or set(kept) <= outcome.stored:
            return None  # nothing new was measured: the item is left for a resume
        trials = {s: r for s, r in outcome.trials.items() if s not in refused}
        return dataclasses.replace(outcome, scorer_results=kept, trials=trials)

    async def _emit(self, outcome: ItemResult) -> None:
        if self.ledger is not None:
            within = self._within_budget(outcome)
            if within is None:
                return
            outcome = within
        self.result.add(outcome)
        if self.bar is not None:
            self.bar.advance(self.bar.task_ids[0])
        if self.recorder is not None:
            await self.recorder.record(outcome)
        if self.keep_items:
            self.result.items.append(outcome)
        if self.on_item_complete is not None:
            called = self.on_item_complete(outcome.item, outcome.output, outcome.scorer_results)
            if inspect.isawaitable(called):
                await called

    def _count_untouched(self) -> None:
        """Count the stored results of items this data did not hold (a resumed run).

        The summary then covers the whole run, as its stored rows do.
        """
        if self.resumed is None:
            return
        items, stored = self.resumed.untouched()
        for result in stored:
            self.result.summaries[result.scorer_id].add(result)
            self.result.judge_usage = self.result.judge_usage + result.judge_usage
        self.result.total_items += items

    async def execute(self) -> EvalRunResult:
        status: RunStatus = "failed"
        try:
            self._open()
        except BaseException:
            if self.recorder is not None:
                self.recorder.close()
            raise
        self.bar = run_progress() if self.show_progress else None
        if self.bar is not None:
            self.bar.add_task("scoring", total=self.total)
            self.bar.start()
        try:
            # the objects older than the run stay out of the collector's full scans
            # (scorekit.evals.heap): a scan stalls the loop and every reply in flight
            with self.heap:
                if self.budget is not None:
                    self.ledger = SpendingLedger(self.budget, self.prices)
                token = JUDGE_LEDGER.set(self.ledger)  # the items' tasks copy this context
                try:
                    await self.executor.run(self.job, self._tasks(), self._emit)
                finally:
                    JUDGE_LEDGER.reset(token)
            if self.source.error is not None:
                error = self.source.error
                raise DataSourceError(
                    f"the data source raised after {self.result.total_items} items "
                    f"({type(error).__name__}: {error}); the items read before it were scored "
                    "and stored",
                    partial=self.result,
                ) from error
            self._count_untouched()
            status = "finished"
            if self.ledger is not None and self.unscored:
                status = "interrupted"  # resumable: what is left waits for a larger budget
                self.result.budget_stop = {**self.ledger.to_dict(), "unscored": self.unscored}
        except (asyncio.CancelledError, KeyboardInterrupt):
            status = "interrupted"
            raise
        finally:
            if self.bar is not None:
                self.bar.stop()
            self.result.status = status
            if self.recorder is not None and not self.recorder.finished:
                try:
                    if status == "finished" and self.result.min_agreement:
                        store_label_agreement(self.recorder, self.result)
                    stopped_before = self.resumed is not None and bool(
                        self.resumed.config.get(BUDGET_STOP_KEY)
                    )
                    if self.result.budget_stop is not None or stopped_before:
                        # None: a run a budget stopped before was resumed to its end
                        stop = {BUDGET_STOP_KEY: self.result.budget_stop}
                        self.recorder.store.update_config(self.result.run_id, stop)
                    self.result.status = self.recorder.finish(
                        status,
                        total_items=self.result.total_items,
                        judge_usage=self.result.judge_usage,
                        verdict=self.result.verdict,
                    )
                except StoreError:  # the row says failed; a held Ctrl-C changes nothing
                    self.result.status = "failed"
                    raise
                finally:
                    self.recorder.close()
        return self.result

    def abandon(self) -> None:
        """End a run whose task was stopped at once (a second Ctrl-C) as ``interrupted``.

        The task never reached its own ending, so the stored run would stay ``running`` while
        the caller reports it interrupted. What was queued is written, then the run's row;
        a run that did end is left as it is.
        """
        if self.result.status == "running":
            self.result.status = "interrupted"
        self.heap.release()  # its `with` block may never end
        if self.recorder is None or self.recorder.finished:
            return
        try:
            self.result.status = self.recorder.finish(
                "interrupted",
                total_items=self.result.total_items,
                judge_usage=self.result.judge_usage,
            )
        except StoreError:
            self.result.status = "failed"
        finally:
            self.recorder.close()


async def run_evals(
    data: Iterable[Any] | AsyncIterator[Any],
    scorers: Sequence[Scorer],
    **options: Unpack[RunEvalsOptions],
) -> EvalRunResult:
    """Score every item of ``data`` with every scorer.

    Args:
        data: items (mappings with ``input``, optional ``output``, ``ground_truth``,
            ``context``, ``request_context``, ``expected_trajectory``, ``additional_context``,
            ``metadata``, ``trace``, ``id``, or :class:`~scorekit.items.EvalItem`), as any
            iterable or async iterable; read lazily, one item per free worker. Or a pandas
            DataFrame: one item per row, columns mapped as in dataset files, a missing cell
            (``NaN``) a missing field (:func:`scorekit.datasets.frames.frame_items`).
        scorers: the scorers, with distinct ids. The scorers of one item run concurrently.
        target: the application under test (see :data:`~scorekit.items.Target`); called for
            items without their own ``output``. Without a target, items must carry ``output``.
        concurrency: items processed at once, >= 1 (default 8); for the default executor only.
        executor: where items are scored (an :class:`~scorekit.evals.executor.Executor`);
            default a :class:`~scorekit.evals.executor.LocalExecutor` on this event loop.
        on_item_complete: called as ``(item, output, scorer_results)`` after each item; sync or
            async. An exception in it ends the run (it is the caller's code).
        thresholds: scorer → minimum mean score for the verdict to pass; a scorer is named by
            its id or any name the registry knows for it (``"faithfulness"``), as on the
            command line.
        max_error_rate: the largest share of ``error`` results (errors / results) a scorer
            may have for the verdict to pass: one number from 0 to 1 for every scorer, or
            scorer → number (scorers left out keep the default). ``None``: the default, 0
            (any error fails the verdict; :data:`~scorekit.verdict.DEFAULT_MAX_ERROR_RATE`),
            or a resumed run's stored limits. 1 turns the gate off.
        min_agreement: scorer (id or name) → the least agreement of its scores with the
            items' ``human_labels`` for the verdict to pass, ``{figure: minimum}`` with the
            figures ``auroc``, ``kappa``, ``balanced_accuracy``, ``pearson``, ``spearman``, and
            ``"bound": "low"`` to gate the 95 % interval's lower bound
            (:mod:`scorekit.trust.min_agreement`; fewer than 20 labelled items fail the gate).
            Stored with the run; a resumed run keeps its own.
        trials: how many times each scorer scores each item (default 1): the repeats sample
            the judge anew where it allows (:mod:`scorekit.judge.trial`), are stored beside
            the results, and give each scorer's self-consistency, per-item spread and a mean
            interval that includes the judge's noise (:meth:`EvalRunResult.trial_summaries`,
            :mod:`scorekit.trust.trials`). Trial 0 is the run's result; the others are extra
            judge calls (``k`` times the cost).
        max_judge_calls: a hard budget of judge calls (cache hits are free); ``None``: none.
        max_judge_tokens: a hard budget of judge tokens, prompt + completion; a call is sent
            only when its upper bound fits (:mod:`scorekit.judge.spending`). When a budget
            would be crossed no new item starts, calls in flight finish, results a refused call
            touched are not stored, and the run ends ``interrupted`` with the verdict
            ``failed`` and :attr:`EvalRunResult.budget_stop`; ``resume=`` with a larger budget
            scores what is left. The local executor only.
        max_cost: a hard budget of judge money in US dollars (a finite number > 0): a call is
            sent only when its upper bound at its model's price fits, and settles at the
            reported tokens' price; every judge model of the scorers needs a price (``prices``,
            the table, or a free ``local/`` or ``test/`` model), or the run is refused before
            it starts. It stops the run as the other limits do.
        prices: judge model (``"provider/model"``) → price, US dollars per million tokens, as
            ``{"input_per_mtok": IN, "output_per_mtok": OUT}``, ``[IN, OUT]``, a
            :class:`~scorekit.judge.prices.Price`, or a whole
            :class:`~scorekit.judge.prices.PriceTable`; they win over the pinned table
            (:data:`~scorekit.judge.prices.PRICE_TABLE`). The price of each judge model that
            has one is stored with the run (its config's ``prices``), and the views show the
            run's cost at those prices.
        store: where to store the run: a :class:`~scorekit.store.Store`, a SQLAlchemy URL or
            a SQLite file path. ``None``: nothing is stored.
        resume: the id (or unique prefix) of a stored run to continue: (item id, scorer id)
            pairs stored as ``ok`` or ``skipped`` are not run again, the rest (errors, and
            items never reached) are, and their new rows replace the old. Needs ``store`` and
            the same scorer ids; items are matched by ``id``.
        run_id: the new run's id (default a new uuid4), e.g. to name it before it starts; a
            resumed run keeps its own (``run_id`` may only repeat it).
        run_name: a name for the run (a resumed run keeps its stored name by default).
        keep_items: keep per-item results in the returned value (turn off for large runs:
            what is then kept per item is each ``ok`` score, packed, and a digest of its id,
            under 0.1 KiB per item, docs/run-evals.md "Memory").
        config: JSON data describing the run (dataset, options), stored with it.
        scorer_timeout: seconds one call of a local scorer (function steps only, no judge) may
            take on one item (default 60); past it that item gets ``error``
            (``ScorerTimeoutError``) and the run goes on. Local scorers run in worker threads,
            so they never block the event loop (:mod:`scorekit.evals.scorer_threads`). ``None``: no
            limit. Judge calls have their own timeout (``Judge(timeout=...)``).
        target_timeout: seconds one call of ``target`` may take on one item (default 300);
            past it that item gets ``error`` (``TargetTimeoutError``, naming the limit) and the
            run goes on. A sync target runs on a daemon thread, so one that hangs never keeps
            the process alive (Ctrl-C stops the run within seconds). ``None``: no limit
            (:mod:`scorekit.evals.target_calls`).
        max_text_chars: characters one item field may hold, its strings added up (default a
            million); a longer input, output, ground truth, context or other field, or a
            target's output, makes that item ``error`` (``TextLimitError``, naming the field,
            its length and the limit) before any scorer sees it, and the run goes on.
            ``None``: no limit (:mod:`scorekit.evals.text_limits`).
        progress: show the progress bar ``scorekit run`` shows (on stderr; in Jupyter as a
            widget, which needs ``ipywidgets``): ``True``, ``False``, or ``None`` (the
            default: only in a notebook). The total is known when ``data`` has a length.

    Returns:
        The run's summaries, judge usage, verdict (``failed`` when a scorer got no ``ok``
        result, missed its threshold, or had more errors than its ``max_error_rate``) and,
        optionally, per-item results.

    Raises:
        ConfigError: bad ``data``, ``scorers``, ``concurrency``, ``executor``, ``thresholds``,
            ``max_error_rate``, ``run_id``, ``resume``, ``scorer_timeout``,
            ``target_timeout``, ``max_text_chars``, a budget or ``prices``, or a ``max_cost``
            over a judge model without a price (before any item runs).
        StoreError: the store cannot be opened or written; the run stops (its row says
            ``failed``).
        DataSourceError: ``data`` raised while being read; the items read before it were
            scored and stored, and the run is marked ``failed``.
        asyncio.CancelledError: the run was cancelled; what finished is stored and the run is
            marked ``interrupted``.
    """
    run = _Run(data, scorers, options)
    return await run.execute()


def run_evals_sync(
    data: Iterable[Any] | AsyncIterator[Any],
    scorers: Sequence[Scorer],
    **options: Unpack[RunEvalsOptions],
) -> EvalRunResult:
    """Blocking :func:`run_evals` (same arguments); works inside a running event loop too.

    From the main thread with no event loop running (a script, the CLI), Ctrl-C cancels the
    run cleanly (through the one sync bridge, :func:`scorekit._sync.run_sync`): what finished
    is stored, the run is marked ``interrupted``, and :class:`EvalInterrupted` (a
    ``KeyboardInterrupt``) carries the partial result (no verdict). A second Ctrl-C stops at
    once: items in flight and their cleanup are abandoned, but the run is still marked
    ``interrupted`` (never left ``running``) with what was written.

    Raises:
        EvalInterrupted: Ctrl-C stopped the run.
        ConfigError, StoreError, DataSourceError: as :func:`run_evals`.
    """
    run = _Run(data, scorers, options)
    try:
        return run_sync(run.execute(), interruptible=True)
    except KeyboardInterrupt:
        run.abandon()
        raise EvalInterrupted(run.result) from None
