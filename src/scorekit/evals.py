"""``run_evals``: a dataset through an optional target and a set of scorers.

For each item (Mastra ``runEvals``, mastra-core.md §5): the output is the item's own ``output``,
or the target's answer to the item's ``input``; then every scorer runs on the item, concurrently.
Items run up to ``concurrency`` at a time and are read lazily, so a generator of any length
streams through.

One failing item or scorer never ends the run (divergences.md row 8): its result gets status
``error`` with the cause kept, and the summary counts it.

With a store (``store=``), each finished item's results are written as the run goes (see
:mod:`scorekit.store.writer`); ``resume=RUN_ID`` continues a stored run, skipping the (item,
scorer) pairs stored as ``ok`` or ``skipped``. Cancelling the run (Ctrl-C in
:func:`run_evals_sync`, ``task.cancel()`` in async code) stops it cleanly: everything finished
so far is stored and the run is marked ``interrupted``.

An item's ``context`` (from the data, or from a target returning ``{"output", "context"}``)
reaches every scorer as ``ctx.run.context``, and context scorers built with
``context_extractor=item_context`` (:mod:`scorekit.context`; the CLI does this for them) judge
it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import math
import signal
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

from scorekit._sync import run_sync
from scorekit.context import item_context
from scorekit.errors import ConfigError, ScorekitError, ScorerRunError, StoreError
from scorekit.metrics import ScorerSummary
from scorekit.pipeline import RunError, Scorer, ScorerRunResult, Status
from scorekit.store.records import ResultRecord, RunStatus
from scorekit.usage import JudgeUsage

if TYPE_CHECKING:  # imported when a store is used: SQLAlchemy is a large import
    from scorekit.store.store import Store
    from scorekit.store.writer import ResultWriter

__all__ = [
    "DataSourceError",
    "EvalInterrupted",
    "EvalItem",
    "EvalRunResult",
    "ItemResult",
    "RunSummary",
    "Target",
    "item_context",
    "run_evals",
    "run_evals_sync",
]

Target = Callable[..., Any]
"""The application under test: ``target(input)`` or ``target(input, request_context)``, sync or
async, returning the output (a string, messages, or a dict with ``output`` and optional
``context``)."""

ItemCallback = Callable[["EvalItem", Any, dict[str, ScorerRunResult]], Any]

_ITEM_FIELDS = frozenset(
    {"id", "input", "output", "ground_truth", "context", "request_context", "metadata"}
)


@dataclass(frozen=True)
class EvalItem:
    """One dataset item.

    Attributes:
        id: the item's id (its position, as a string, when the data gives none).
        input: the input sent to the target and shown to scorers.
        output: an already produced output (then no target is needed), or ``None``.
        has_output: whether the item carries its own output.
        ground_truth: the expected output, or ``None``.
        context: retrieved context pieces for context scorers, or ``None``.
        request_context: per-request data passed to the target and the scorers.
        metadata: anything else the caller wants kept with the item.
        load_error: why the item could not be read (a malformed line): it is then recorded with
            status ``error`` for every scorer and never scored.
    """

    id: str
    input: Any = None
    output: Any = None
    has_output: bool = False
    ground_truth: Any = None
    context: Sequence[str] | None = None
    request_context: Any = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    load_error: str | None = None

    @classmethod
    def from_value(cls, value: Any, position: int) -> EvalItem:
        """Build an item from a dataset entry (an ``EvalItem`` or a mapping).

        Raises:
            ConfigError: the entry is not a mapping, has unknown keys, or lacks both ``input``
                and ``output``; the message names the item's position.
        """
        if isinstance(value, EvalItem):
            return value
        if not isinstance(value, Mapping):
            raise ConfigError(
                f"item {position}: expected a mapping with 'input', got {type(value).__name__}",
                field="data",
            )
        unknown = set(value) - _ITEM_FIELDS
        if unknown:
            raise ConfigError(
                f"item {position}: unknown field(s) {', '.join(sorted(map(str, unknown)))}; "
                f"known: {', '.join(sorted(_ITEM_FIELDS))}",
                field=sorted(map(str, unknown))[0],
            )
        if "input" not in value and "output" not in value:
            raise ConfigError(f"item {position}: needs 'input' or 'output'", field="input")
        item_id = value.get("id")
        context = value.get("context")
        if context is not None and (
            isinstance(context, str)
            or not isinstance(context, Sequence)
            or not all(isinstance(c, str) for c in context)
        ):
            raise ConfigError(
                f"item {position}: context must be a list of strings", field="context"
            )
        return cls(
            id=str(item_id) if item_id is not None else str(position),
            input=value.get("input"),
            output=value.get("output"),
            has_output="output" in value,
            ground_truth=value.get("ground_truth"),
            context=context,
            request_context=value.get("request_context"),
            metadata=value.get("metadata") or {},
        )


@dataclass(frozen=True)
class ItemResult:
    """What happened to one item.

    Attributes:
        item: the item.
        output: the output that was scored (the item's own or the target's), ``None`` on failure.
        target_error: why the target (or loading the item) failed, or ``None``.
        scorer_results: scorer id → result.
    """

    item: EvalItem
    output: Any
    target_error: RunError | None
    scorer_results: dict[str, ScorerRunResult]


@dataclass(frozen=True)
class RunSummary:
    """Counts over a whole run (``EvalRunResult.summary``).

    Attributes:
        total_items: items processed (Mastra ``summary.totalItems``).
        counts: scorer id → results per status (``ok``, ``skipped``, ``error``).
    """

    total_items: int
    counts: dict[str, dict[Status, int]]


@dataclass
class EvalRunResult:
    """The outcome of :func:`run_evals`.

    Attributes:
        run_id: this run's id (the stored run's id when a store is used).
        run_name: the caller's name for it, if any.
        summaries: scorer id → summary (counts by status, mean, median, min, max).
        total_items: items processed.
        judge_usage: judge usage summed over every scorer run (calls, tokens, cache hits).
        items: per-item results, in completion order (empty when ``keep_items=False``).
        thresholds: scorer id → minimum mean, as given.
        status: ``"finished"``, or ``"interrupted"`` for the partial result of a cancelled run.
        store_url: the database the run was stored in (password masked), or ``None``.
        resumed: whether this run continued a stored run (``resume=``); its summaries then
            cover the whole run, stored results included.
    """

    run_id: str
    run_name: str | None
    summaries: dict[str, ScorerSummary]
    total_items: int = 0
    judge_usage: JudgeUsage = field(default_factory=JudgeUsage)
    items: list[ItemResult] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)
    status: RunStatus = "running"
    store_url: str | None = None
    resumed: bool = False

    @property
    def scores(self) -> dict[str, float]:
        """Scorer id → mean score over ``ok`` results (scorers with none are left out)."""
        return {sid: s.mean for sid, s in self.summaries.items() if s.mean is not None}

    @property
    def summary(self) -> RunSummary:
        """Items processed and per-scorer counts by status."""
        return RunSummary(
            self.total_items, {sid: dict(s.counts) for sid, s in self.summaries.items()}
        )

    @property
    def verdict(self) -> Literal["passed", "failed"]:
        """``"failed"`` when a thresholded scorer's mean is below its minimum or missing."""
        for scorer_id, minimum in self.thresholds.items():
            mean = self.summaries[scorer_id].mean
            if mean is None or mean < minimum:
                return "failed"
        return "passed"

    def totals(self) -> dict[str, dict[str, Any]]:
        """Scorer id → ``{"counts", "mean", "median", "min", "max"}`` as JSON data."""
        return {
            sid: {
                "counts": dict(s.counts),
                "mean": s.mean,
                "median": s.median,
                "min": s.minimum,
                "max": s.maximum,
            }
            for sid, s in self.summaries.items()
        }


class DataSourceError(ScorekitError):
    """The dataset iterable raised while being read.

    The items read before it were scored (and stored, with a store); the run is marked
    ``failed``.

    Attributes:
        partial: the result of the items that were scored.
    """

    def __init__(self, message: str, *, partial: EvalRunResult | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class EvalInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`run_evals_sync`; everything finished before it is stored.

    A ``KeyboardInterrupt``, so code that does not care still stops as usual.

    Attributes:
        result: the partial result (``status == "interrupted"``), counting the items that
            finished.
    """

    def __init__(self, result: EvalRunResult) -> None:
        super().__init__(f"run {result.run_id} interrupted after {result.total_items} items")
        self.result = result


def _error_result(
    scorer: Scorer, item: EvalItem, output: Any, error: RunError, run_id: str
) -> ScorerRunResult:
    return ScorerRunResult(
        scorer_id=scorer.id,
        run_id=run_id,
        status="error",
        input=item.input,
        output=output,
        ground_truth=item.ground_truth,
        request_context=item.request_context,
        error=error,
    )


def _stored_result(record: ResultRecord) -> ScorerRunResult:
    return ScorerRunResult(
        scorer_id=record.scorer_id,
        run_id=record.scorer_run_id,
        status=record.status,
        score=record.score,
        reason=record.reason,
        judge_usage=record.judge_usage,
        duration_s=record.duration_s,
    )


async def _call_target(target: Target, item: EvalItem, threads: ThreadPoolExecutor) -> Any:
    positional = [
        p
        for p in inspect.signature(target).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    takes_context = len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)
    args = (item.input, item.request_context) if takes_context else (item.input,)
    if inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "__call__", None)  # noqa: B004 - an async __call__ method
    ):
        value = target(*args)
    else:
        # a sync target (an HTTP client, a model call) must not block the other items: it runs
        # in the run's own threads (as many as items in flight), with the caller's contextvars
        call = functools.partial(contextvars.copy_context().run, target, *args)
        value = await asyncio.get_running_loop().run_in_executor(threads, call)
    if inspect.isawaitable(value):
        value = await value
    return value


def _check_context(context: Any) -> tuple[str, ...]:
    if (
        isinstance(context, str)
        or not isinstance(context, Sequence)
        or not all(isinstance(piece, str) for piece in context)
    ):
        raise ConfigError(
            f"the target returned context of type {type(context).__name__}; "
            "expected a list of strings",
            field="context",
        )
    return tuple(context)


async def _score(scorer: Scorer, item: EvalItem, output: Any) -> ScorerRunResult:
    run_id = str(uuid.uuid4())
    try:
        return await scorer.run(
            input=item.input,
            output=output,
            ground_truth=item.ground_truth,
            request_context=item.request_context,
            run_id=run_id,
            context=item.context,
        )
    except ScorerRunError as exc:
        if exc.result is not None:
            return exc.result
        error = RunError(type=type(exc).__name__, message=str(exc), step=exc.failed_step)
        return _error_result(scorer, item, output, error, run_id)
    except Exception as exc:  # a scorer bug or bad input must not end the run
        error = RunError(type=type(exc).__name__, message=str(exc))
        return _error_result(scorer, item, output, error, run_id)


def _failed(
    item: EvalItem, scorers: Sequence[Scorer], error: RunError, done: dict[str, ScorerRunResult]
) -> ItemResult:
    results = {
        s.id: done.get(s.id) or _error_result(s, item, None, error, str(uuid.uuid4()))
        for s in scorers
    }
    return ItemResult(item, None, error, results)


async def _process(
    item: EvalItem,
    scorers: Sequence[Scorer],
    target: Target | None,
    done: dict[str, ScorerRunResult],
    threads: ThreadPoolExecutor,
) -> ItemResult:
    """Run the target (when needed) and the scorers not in ``done`` on one item."""
    todo = [s for s in scorers if s.id not in done]
    if not todo:
        return ItemResult(item, item.output if item.has_output else None, None, dict(done))
    if item.load_error is not None:
        return _failed(
            item, scorers, RunError(type="DatasetError", message=item.load_error, step="load"), done
        )
    output = item.output
    if target is None and not item.has_output:
        error = RunError(
            type="ConfigError",
            message=f"item {item.id!r} has no 'output' and run_evals was given no target",
            step="target",
        )
        return _failed(item, scorers, error, done)
    if target is not None and not item.has_output:
        try:
            output = await _call_target(target, item, threads)
            if isinstance(output, Mapping) and "output" in output:
                context = output.get("context")
                output = output["output"]
                if context is not None:
                    item = EvalItem(**{**item.__dict__, "context": _check_context(context)})
        except Exception as exc:
            error = RunError(type=type(exc).__name__, message=str(exc), step="target")
            return _failed(item, scorers, error, done)
    scored = await asyncio.gather(*(_score(s, item, output) for s in todo))
    fresh = {r.scorer_id: r for r in scored}
    return ItemResult(item, output, None, {s.id: done.get(s.id) or fresh[s.id] for s in scorers})


async def _items(data: Iterable[Any] | AsyncIterator[Any]) -> AsyncIterator[EvalItem]:
    position = 0
    if hasattr(data, "__aiter__"):
        async for value in data:
            yield _load(value, position)
            position += 1
        return
    for value in data:
        yield _load(value, position)
        position += 1


def _load(value: Any, position: int) -> EvalItem:
    try:
        return EvalItem.from_value(value, position)
    except ConfigError as exc:
        item_id = value.get("id") if isinstance(value, Mapping) else None
        return EvalItem(id=str(item_id if item_id is not None else position), load_error=str(exc))


def _check_scorers(scorers: Sequence[Scorer]) -> None:
    if not scorers:
        raise ConfigError("run_evals needs at least one scorer", field="scorers")
    seen: set[str] = set()
    for scorer in scorers:
        if not isinstance(scorer, Scorer):
            raise ConfigError(
                f"scorers must be Scorer objects, got {type(scorer).__name__}", field="scorers"
            )
        if scorer.id in seen:
            raise ConfigError(f"two scorers share the id {scorer.id!r}", field="scorers")
        seen.add(scorer.id)


def _check_thresholds(
    thresholds: Mapping[str, float] | None, scorers: Sequence[Scorer]
) -> dict[str, float]:
    ids = {s.id for s in scorers}
    limits: dict[str, float] = {}
    for scorer_id, minimum in (thresholds or {}).items():
        if scorer_id not in ids:
            raise ConfigError(
                f"threshold for unknown scorer {scorer_id!r}; scorers: {', '.join(sorted(ids))}",
                field="thresholds",
            )
        if (
            isinstance(minimum, bool)
            or not isinstance(minimum, (int, float))
            or not math.isfinite(minimum)
        ):
            raise ConfigError(
                f"threshold for {scorer_id!r} must be a finite number, got {minimum!r}",
                field="thresholds",
            )
        limits[scorer_id] = float(minimum)
    return limits


class _EvalRun:
    """One ``run_evals`` call: validated settings, the live result, the store and its writer.

    Built synchronously (so argument errors raise before any work and the sync bridge can
    keep a handle on the partial result), then :meth:`execute` runs it once.
    """

    def __init__(
        self,
        data: Iterable[Any] | AsyncIterator[Any],
        scorers: Sequence[Scorer],
        *,
        target: Target | None = None,
        concurrency: int = 8,
        on_item_complete: ItemCallback | None = None,
        thresholds: Mapping[str, float] | None = None,
        store: Store | str | Path | None = None,
        resume: str | None = None,
        run_name: str | None = None,
        keep_items: bool = True,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        _check_scorers(scorers)
        if isinstance(data, (str, bytes, Mapping)):
            raise ConfigError(
                f"data must be an iterable of items, not a single {type(data).__name__}",
                field="data",
            )
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError(
                f"concurrency must be an integer >= 1, got {concurrency!r}", field="concurrency"
            )
        if target is not None and not callable(target):
            raise ConfigError(
                f"target must be callable, not {type(target).__name__}", field="target"
            )
        limits = _check_thresholds(thresholds, scorers)
        if resume is not None and store is None:
            raise ConfigError("resume= needs a store= to resume from", field="resume")
        self.data = data
        self.scorers = tuple(scorers)
        self.target = target
        self.concurrency = concurrency
        self.on_item_complete = on_item_complete
        self.keep_items = keep_items
        self.owns_store = False
        self.store: Store | None = None
        if store is not None:
            from scorekit.store.store import Store

            self.owns_store = not isinstance(store, Store)
            self.store = store if isinstance(store, Store) else Store(store)
        self.done: dict[tuple[str, str], ResultRecord] = {}
        run_id = str(uuid.uuid4())
        if self.store is not None and resume is not None:
            stored = self.store.get_run(resume)
            if set(stored.scorer_ids) != {s.id for s in scorers}:
                self._close_store()
                raise ConfigError(
                    f"run {stored.id} was scored with {', '.join(stored.scorer_ids)}; resume it "
                    f"with the same scorers, not {', '.join(s.id for s in scorers)}",
                    field="resume",
                )
            run_id = stored.id
            run_name = run_name or stored.name
            self.done = self.store.done_pairs(stored.id)
        self.result = EvalRunResult(
            run_id=run_id,
            run_name=run_name,
            summaries={s.id: ScorerSummary(s.id) for s in scorers},
            thresholds=limits,
            store_url=self.store.url if self.store is not None else None,
            resumed=resume is not None,
        )
        self.config = dict(config or {})
        self.source_error: Exception | None = None
        self.seen_ids: dict[str, int] = {}

    def _unique(self, item: EvalItem) -> EvalItem:
        """Return ``item``, or, when its id was seen before in this run, an error item.

        Resume and compare match items by id, so a repeated id would mix two items' results:
        the repeat is recorded under ``<id>#<n>`` with status ``error`` saying why.
        """
        count = self.seen_ids.get(item.id, 0) + 1
        self.seen_ids[item.id] = count
        if count == 1:
            return item
        renamed = f"{item.id}#{count}"
        while renamed in self.seen_ids:
            renamed += "'"
        self.seen_ids[renamed] = 1
        return EvalItem(
            id=renamed,
            input=item.input,
            ground_truth=item.ground_truth,
            metadata=item.metadata,
            load_error=f"duplicate item id {item.id!r} (this is occurrence {count}); ids must "
            "be unique within a run, since resume and compare match items by id",
        )

    def _close_store(self) -> None:
        if self.owns_store and self.store is not None:
            self.store.close()

    def _open_run(self) -> ResultWriter | None:
        if self.store is None:
            return None
        if self.result.resumed:
            self.store.reopen_run(self.result.run_id)
        else:
            self.store.start_run(
                self.result.run_id,
                name=self.result.run_name,
                scorers=[
                    {"id": s.id, "name": s.name, "description": s.description} for s in self.scorers
                ],
                config=self.config,
                thresholds=self.result.thresholds,
            )
        from scorekit.store.writer import ResultWriter

        return ResultWriter(self.store, self.result.run_id, replace=self.result.resumed)

    def _done_for(self, item: EvalItem) -> dict[str, ScorerRunResult]:
        if not self.done:
            return {}
        found = {}
        for scorer in self.scorers:
            record = self.done.pop((item.id, scorer.id), None)
            if record is not None:
                found[scorer.id] = _stored_result(record)
        return found

    async def _workers(self, writer: ResultWriter | None) -> None:
        source = _items(self.data)
        lock = asyncio.Lock()
        result = self.result

        async def next_item() -> EvalItem | None:
            async with lock:
                if self.source_error is not None:
                    return None
                try:
                    item = await source.__anext__()
                except StopAsyncIteration:
                    return None
                except Exception as exc:  # the caller's data source broke: stop reading
                    self.source_error = exc
                    return None
                return self._unique(item)

        async def worker() -> None:
            while (item := await next_item()) is not None:
                done = self._done_for(item)
                outcome = await _process(item, self.scorers, self.target, done, threads)
                result.total_items += 1
                for scorer_result in outcome.scorer_results.values():
                    result.summaries[scorer_result.scorer_id].add(scorer_result)
                    result.judge_usage = result.judge_usage + scorer_result.judge_usage
                if writer is not None and len(done) < len(self.scorers):
                    now = datetime.now(timezone.utc)
                    await writer.put(outcome, now, skip=frozenset(done))
                if self.keep_items:
                    result.items.append(outcome)
                if self.on_item_complete is not None:
                    called = self.on_item_complete(
                        outcome.item, outcome.output, outcome.scorer_results
                    )
                    if inspect.isawaitable(called):
                        await called

        threads = ThreadPoolExecutor(self.concurrency, thread_name_prefix="scorekit-target")
        tasks = [asyncio.ensure_future(worker()) for _ in range(self.concurrency)]
        try:
            finished, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            # on an error or a cancellation, stop the other workers: their items are in flight
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            threads.shutdown(wait=False, cancel_futures=True)
        for task in finished:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        if self.source_error is not None:
            error = self.source_error
            raise DataSourceError(
                f"the data source raised after {result.total_items} items "
                f"({type(error).__name__}: {error}); the items read before it were scored and "
                "stored",
                partial=result,
            ) from error

    async def execute(self) -> EvalRunResult:
        status: RunStatus = "failed"
        try:
            writer = self._open_run()
        except BaseException:
            self._close_store()
            raise
        try:
            await self._workers(writer)
            self._count_untouched()
            status = "finished"
        except (asyncio.CancelledError, KeyboardInterrupt):
            status = "interrupted"
            raise
        finally:
            self.result.status = status
            try:
                # synchronous on purpose: a second cancellation must not lose the last batch
                if writer is not None:
                    writer.close()
            except StoreError:
                self.result.status = status = "failed"
                if self.store is not None:
                    self._finish(status)
                self._close_store()
                raise
            if self.store is not None:
                self._finish(status)
            self._close_store()
        return self.result

    def _count_untouched(self) -> None:
        """Count the stored results of a resumed run whose items this data did not hold.

        The summary then covers the whole run, as its stored rows do.
        """
        if not self.done:
            return
        items = set()
        for (item_id, _scorer_id), record in self.done.items():
            items.add(item_id)
            self.result.summaries[record.scorer_id].add(_stored_result(record))
            self.result.judge_usage = self.result.judge_usage + record.judge_usage
        self.result.total_items += len(items)
        self.done = {}

    def _finish(self, status: RunStatus) -> None:
        assert self.store is not None
        result = self.result
        self.store.finish_run(
            result.run_id,
            status=status,
            total_items=result.total_items,
            totals=result.totals(),
            judge_usage=result.judge_usage.to_dict(),
            verdict=result.verdict if status == "finished" else None,
        )


async def run_evals(
    data: Iterable[Any] | AsyncIterator[Any],
    scorers: Sequence[Scorer],
    *,
    target: Target | None = None,
    concurrency: int = 8,
    on_item_complete: ItemCallback | None = None,
    thresholds: Mapping[str, float] | None = None,
    store: Store | str | Path | None = None,
    resume: str | None = None,
    run_name: str | None = None,
    keep_items: bool = True,
    config: Mapping[str, Any] | None = None,
) -> EvalRunResult:
    """Score every item of ``data`` with every scorer.

    Args:
        data: items (mappings with ``input``, optional ``output``, ``ground_truth``,
            ``context``, ``request_context``, ``metadata``, ``id``, or :class:`EvalItem`),
            as any iterable or async iterable; read lazily, one item per free worker.
        scorers: the scorers, with distinct ids. The scorers of one item run concurrently.
        target: the application under test (see :data:`Target`); called for items without
            their own ``output``. Without a target, items must carry ``output``.
        concurrency: items processed at once, >= 1.
        on_item_complete: called as ``(item, output, scorer_results)`` after each item; sync or
            async. An exception in it ends the run (it is the caller's code).
        thresholds: scorer id → minimum mean score for the verdict to pass.
        store: where to store the run: a :class:`~scorekit.store.Store`, a SQLAlchemy URL or
            a SQLite file path. ``None``: nothing is stored.
        resume: the id (or unique prefix) of a stored run to continue: (item id, scorer id)
            pairs stored as ``ok`` or ``skipped`` are not run again, the rest (errors, and
            items never reached) are, and their new rows replace the old. Needs ``store`` and
            the same scorer ids; items are matched by ``id``.
        run_name: a name for the run (a resumed run keeps its stored name by default).
        keep_items: keep per-item results in the returned value (turn off for large runs:
            memory then stays flat whatever the dataset's size).
        config: JSON data describing the run (dataset, options), stored with it.

    Returns:
        The run's summaries, judge usage, verdict and (optionally) per-item results.

    Raises:
        ConfigError: bad ``scorers``, ``concurrency``, ``thresholds`` or ``resume`` (before
            any item runs).
        StoreError: the store cannot be opened or written; the run stops (its row says
            ``failed``).
        DataSourceError: ``data`` raised while being read; the items read before it were
            scored and stored, and the run is marked ``failed``.
        asyncio.CancelledError: the run was cancelled; what finished is stored and the run is
            marked ``interrupted``.
    """
    run = _EvalRun(
        data,
        scorers,
        target=target,
        concurrency=concurrency,
        on_item_complete=on_item_complete,
        thresholds=thresholds,
        store=store,
        resume=resume,
        run_name=run_name,
        keep_items=keep_items,
        config=config,
    )
    return await run.execute()


def run_evals_sync(
    data: Iterable[Any],
    scorers: Sequence[Scorer],
    **options: Any,
) -> EvalRunResult:
    """Blocking :func:`run_evals` (same arguments); works inside a running event loop too.

    From the main thread with no event loop running (a script, the CLI), Ctrl-C cancels the
    run cleanly: what finished is stored, the run is marked ``interrupted``, and
    :class:`EvalInterrupted` (a ``KeyboardInterrupt``) carries the partial result. A second
    Ctrl-C stops at once.

    Raises:
        EvalInterrupted: Ctrl-C stopped the run.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        return run_sync(run_evals(data, scorers, **options))
    if threading.current_thread() is not threading.main_thread():
        return run_sync(run_evals(data, scorers, **options))
    run = _EvalRun(data, scorers, **options)
    loop = asyncio.new_event_loop()
    task = loop.create_task(run.execute())
    previous = signal.getsignal(signal.SIGINT)

    def on_interrupt(_signum: int, _frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        loop.call_soon_threadsafe(task.cancel)

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        raise EvalInterrupted(run.result) from None
    finally:
        signal.signal(
            signal.SIGINT, previous if previous is not None else signal.default_int_handler
        )
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
