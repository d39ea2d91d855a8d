"""``run_evals``: a dataset through an optional target and a set of scorers.

For each item (Mastra ``runEvals``, mastra-core.md §5): the output is the item's own ``output``,
or the target's answer to the item's ``input``; then every scorer runs on the item, concurrently.
Items run up to ``concurrency`` at a time and are read lazily, so a generator of any length
streams through.

One failing item or scorer never ends the run (divergences.md row 8): its result gets status
``error`` with the cause kept, and the summary counts it.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import math
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from scorekit._sync import run_sync
from scorekit.errors import ConfigError, ScorerRunError
from scorekit.judge.model import JudgeUsage
from scorekit.metrics import ScorerSummary
from scorekit.pipeline import RunError, Scorer, ScorerRunResult

__all__ = [
    "EvalItem",
    "EvalRunResult",
    "ItemResult",
    "Target",
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


@dataclass
class EvalRunResult:
    """The outcome of :func:`run_evals`.

    Attributes:
        run_id: this run's id.
        run_name: the caller's name for it, if any.
        summaries: scorer id → summary (counts by status, mean, median, min, max).
        total_items: items processed.
        judge_usage: judge usage summed over every scorer run.
        items: per-item results, in completion order (empty when ``keep_items=False``).
        thresholds: scorer id → minimum mean, as given.
    """

    run_id: str
    run_name: str | None
    summaries: dict[str, ScorerSummary]
    total_items: int = 0
    judge_usage: JudgeUsage = field(default_factory=JudgeUsage)
    items: list[ItemResult] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)

    @property
    def scores(self) -> dict[str, float]:
        """Scorer id → mean score over ``ok`` results (scorers with none are left out)."""
        return {sid: s.mean for sid, s in self.summaries.items() if s.mean is not None}

    @property
    def verdict(self) -> Literal["passed", "failed"]:
        """``"failed"`` when a thresholded scorer's mean is below its minimum or missing."""
        for scorer_id, minimum in self.thresholds.items():
            mean = self.summaries[scorer_id].mean
            if mean is None or mean < minimum:
                return "failed"
        return "passed"


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


async def _call_target(target: Target, item: EvalItem) -> Any:
    positional = [
        p
        for p in inspect.signature(target).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    takes_context = len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)
    value = target(item.input, item.request_context) if takes_context else target(item.input)
    if inspect.isawaitable(value):
        value = await value
    return value


async def _score(scorer: Scorer, item: EvalItem, output: Any) -> ScorerRunResult:
    run_id = str(uuid.uuid4())
    try:
        return await scorer.run(
            input=item.input,
            output=output,
            ground_truth=item.ground_truth,
            request_context=item.request_context,
            run_id=run_id,
        )
    except ScorerRunError as exc:
        if exc.result is not None:
            return exc.result
        error = RunError(type=type(exc).__name__, message=str(exc), step=exc.failed_step)
        return _error_result(scorer, item, output, error, run_id)
    except Exception as exc:  # a scorer bug or bad input must not end the run
        error = RunError(type=type(exc).__name__, message=str(exc))
        return _error_result(scorer, item, output, error, run_id)


async def _process(item: EvalItem, scorers: Sequence[Scorer], target: Target | None) -> ItemResult:
    if item.load_error is not None:
        error = RunError(type="DatasetError", message=item.load_error, step="load")
        results = {s.id: _error_result(s, item, None, error, str(uuid.uuid4())) for s in scorers}
        return ItemResult(item, None, error, results)
    output = item.output
    if target is None and not item.has_output:
        error = RunError(
            type="ConfigError",
            message=f"item {item.id!r} has no 'output' and run_evals was given no target",
            step="target",
        )
        results = {s.id: _error_result(s, item, None, error, str(uuid.uuid4())) for s in scorers}
        return ItemResult(item, None, error, results)
    if target is not None and not item.has_output:
        try:
            output = await _call_target(target, item)
        except Exception as exc:
            error = RunError(type=type(exc).__name__, message=str(exc), step="target")
            results = {
                s.id: _error_result(s, item, None, error, str(uuid.uuid4())) for s in scorers
            }
            return ItemResult(item, None, error, results)
        if isinstance(output, Mapping) and "output" in output:
            context = output.get("context")
            output = output["output"]
            if context is not None:
                item = EvalItem(**{**item.__dict__, "context": context})
    scored = await asyncio.gather(*(_score(s, item, output) for s in scorers))
    return ItemResult(item, output, None, {r.scorer_id: r for r in scored})


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


async def run_evals(
    data: Iterable[Any] | AsyncIterator[Any],
    scorers: Sequence[Scorer],
    *,
    target: Target | None = None,
    concurrency: int = 8,
    on_item_complete: ItemCallback | None = None,
    thresholds: Mapping[str, float] | None = None,
    run_name: str | None = None,
    keep_items: bool = True,
) -> EvalRunResult:
    """Score every item of ``data`` with every scorer.

    Args:
        data: items (mappings with ``input``, optional ``output``, ``ground_truth``,
            ``context``, ``request_context``, ``metadata``, ``id``, or :class:`EvalItem`),
            as any iterable or async iterable; read lazily.
        scorers: the scorers, with distinct ids.
        target: the application under test (see :data:`Target`); called for items without
            their own ``output``. Without a target, items must carry ``output``.
        concurrency: items processed at once, >= 1.
        on_item_complete: called as ``(item, output, scorer_results)`` after each item; sync or
            async. An exception in it ends the run (it is the caller's code).
        thresholds: scorer id → minimum mean score for the verdict to pass.
        run_name: a name for the run.
        keep_items: keep per-item results in the returned value (turn off for very large runs;
            summaries are kept either way).

    Returns:
        The run's summaries, judge usage, verdict and (optionally) per-item results.

    Raises:
        ConfigError: bad ``scorers``, ``concurrency`` or ``thresholds`` (before any item runs).
    """
    _check_scorers(scorers)
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(
            f"concurrency must be an integer >= 1, got {concurrency!r}", field="concurrency"
        )
    ids = {s.id for s in scorers}
    limits = dict(thresholds or {})
    for scorer_id, minimum in limits.items():
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

    result = EvalRunResult(
        run_id=str(uuid.uuid4()),
        run_name=run_name,
        summaries={s.id: ScorerSummary(s.id) for s in scorers},
        thresholds={k: float(v) for k, v in limits.items()},
    )
    source = _items(data)
    lock = asyncio.Lock()

    async def next_item() -> EvalItem | None:
        async with lock:
            try:
                return await source.__anext__()
            except StopAsyncIteration:
                return None

    async def worker() -> None:
        while (item := await next_item()) is not None:
            outcome = await _process(item, scorers, target)
            result.total_items += 1
            for scorer_result in outcome.scorer_results.values():
                result.summaries[scorer_result.scorer_id].add(scorer_result)
                result.judge_usage = result.judge_usage + scorer_result.judge_usage
            if keep_items:
                result.items.append(outcome)
            if on_item_complete is not None:
                done = on_item_complete(outcome.item, outcome.output, outcome.scorer_results)
                if inspect.isawaitable(done):
                    await done

    await asyncio.gather(*(worker() for _ in itertools.repeat(None, concurrency)))
    return result


def run_evals_sync(
    data: Iterable[Any],
    scorers: Sequence[Scorer],
    **options: Any,
) -> EvalRunResult:
    """Blocking :func:`run_evals` (same arguments); works inside a running event loop too."""
    return run_sync(run_evals(data, scorers, **options))
