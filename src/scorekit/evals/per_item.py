"""The per-item function: score one item (the target when needed, then every scorer).

For each item (Mastra ``runEvals``, mastra-core.md §5): the output is the item's own ``output``,
or the target's answer to the item's ``input``; then every scorer runs on the item,
concurrently. Nothing here raises for a failing item: a failed target, an unreadable item or a
scorer that raised becomes results with status ``error`` and the cause kept (divergences.md
row 8). An executor calls :class:`ItemJob` once per item, locally or in a worker process.

A *local* scorer (every step a function, no judge) runs in a worker thread, on that thread's
own event loop, under the job's ``scorer_timeout`` (:mod:`scorekit.evals.scorer_threads`): its
synchronous steps never block the run's loop, and a call that takes too long becomes that
item's ``ScorerTimeoutError``.
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor as ThreadPool
from dataclasses import dataclass
from typing import Any

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.evals.daemon_threads import check_seconds
from scorekit.evals.scorer_threads import (
    DEFAULT_SCORER_TIMEOUT,
    ScorerTimeoutError,
    check_scorer_timeout,
    is_local,
    run_local,
)
from scorekit.evals.target_calls import DEFAULT_TARGET_TIMEOUT, call_target
from scorekit.evals.text_limits import (
    DEFAULT_MAX_TEXT_CHARS,
    check_max_text_chars,
    text_limit_error,
)
from scorekit.items import EvalItem, ItemResult, Target
from scorekit.judge.trial import JUDGE_TRIAL
from scorekit.pipeline import Scorer
from scorekit.results import RunError, ScorerRunResult
from scorekit.steps import RESULT_FIELDS, record_values

__all__ = [
    "DEFAULT_SCORER_TIMEOUT",
    "DEFAULT_TARGET_TIMEOUT",
    "MAX_TRIALS",
    "ItemJob",
    "ScorerTimeoutError",
    "check_scorers",
    "score_item",
]


def check_scorers(scorers: Sequence[Scorer]) -> tuple[Scorer, ...]:
    """Return ``scorers`` as a tuple after checking them.

    Raises:
        ConfigError: no scorer, an object that is not a :class:`~scorekit.pipeline.Scorer`, or
            two scorers with one id (``field="scorers"``).
    """
    if isinstance(scorers, Scorer):
        raise ConfigError("scorers must be a list of scorers, not one Scorer", field="scorers")
    if isinstance(scorers, (str, bytes, Mapping)) or not hasattr(scorers, "__iter__"):
        raise ConfigError(
            f"scorers must be a list of Scorer objects, not {type(scorers).__name__}",
            field="scorers",
        )
    chosen = tuple(scorers)  # once: a generator is read here, and only here
    if not chosen:
        raise ConfigError("run_evals needs at least one scorer", field="scorers")
    seen: set[str] = set()
    for scorer in chosen:
        if not isinstance(scorer, Scorer):
            raise ConfigError(
                f"scorers must be Scorer objects, got {type(scorer).__name__}", field="scorers"
            )
        if scorer.id in seen:
            raise ConfigError(f"two scorers share the id {scorer.id!r}", field="scorers")
        seen.add(scorer.id)
    return chosen


def _error_result(
    scorer: Scorer, item: EvalItem, output: Any, error: RunError, run_id: str
) -> ScorerRunResult:
    return ScorerRunResult(
        scorer_id=scorer.id,
        run_id=run_id,
        status="error",
        **{**record_values(item, RESULT_FIELDS), "output": output},
        error=error,
    )


async def _score(
    scorer: Scorer, item: EvalItem, output: Any, timeout: float | None
) -> ScorerRunResult:
    run_id = str(uuid.uuid4())
    call = functools.partial(scorer.run, item.scorer_run(output, run_id))
    try:
        if is_local(scorer):
            return await run_local(call, scorer_id=scorer.id, timeout=timeout)
        return await call()
    except ScorerTimeoutError as exc:
        error = RunError(type=type(exc).__name__, message=str(exc))
        return _error_result(scorer, item, output, error, run_id)
    except ScorerRunError as exc:
        if exc.result is not None:
            return exc.result
        error = RunError(type=type(exc).__name__, message=str(exc), step=exc.failed_step)
        return _error_result(scorer, item, output, error, run_id)
    except Exception as exc:  # a scorer bug or bad input must not end the run
        error = RunError(type=type(exc).__name__, message=str(exc))
        return _error_result(scorer, item, output, error, run_id)


def _failed(
    item: EvalItem,
    scorers: Sequence[Scorer],
    error: RunError,
    done: Mapping[str, ScorerRunResult],
) -> ItemResult:
    results = {
        s.id: done.get(s.id) or _error_result(s, item, None, error, str(uuid.uuid4()))
        for s in scorers
    }
    return ItemResult(item, None, error, results, frozenset(done))


async def score_item(
    item: EvalItem,
    scorers: Sequence[Scorer],
    *,
    target: Target | None = None,
    done: Mapping[str, ScorerRunResult] | None = None,
    threads: ThreadPool | None = None,
    scorer_timeout: float | None = DEFAULT_SCORER_TIMEOUT,
    target_timeout: float | None = DEFAULT_TARGET_TIMEOUT,
    trials: int = 1,
    max_text_chars: int | None = DEFAULT_MAX_TEXT_CHARS,
) -> ItemResult:
    """Score one item: call the target when the item has no output, then run every scorer.

    Args:
        item: the item.
        scorers: the scorers (distinct ids); those of one item run concurrently.
        target: the application under test (see :data:`~scorekit.items.Target`), called with
            the item's input when the item carries no ``output``.
        done: scorer id → a result already stored for this item (a resumed run); those scorers
            are not run again, and the item's ``stored`` set names them.
        threads: where a sync target runs instead of scorekit's daemon threads (the caller
            then owns their exit; see :mod:`scorekit.evals.target_calls`).
        scorer_timeout: seconds one call of a local scorer (function steps only, no judge)
            may take; ``None``: no limit (see :mod:`scorekit.evals.scorer_threads`).
        target_timeout: seconds the target call may take; ``None``: no limit. Past it the
            item's results are ``error`` of type ``TargetTimeoutError``.
        trials: how many times each scorer scores the item, ``1`` to :data:`MAX_TRIALS`; the
            repeats (judge sampled anew) go to :attr:`ItemResult.trials`.
        max_text_chars: characters one item field (or the target's output) may hold; ``None``:
            no limit (:mod:`scorekit.evals.text_limits`). A longer one makes the item's
            results ``error`` of type ``TextLimitError`` naming the field.

    Returns:
        The item's results, one per scorer, in scorer order. Never raises for the item's own
        failures: an unreadable item, a text over the limit, a missing output, a failed target
        or a scorer that raised gives results with status ``error`` and the cause.

    Raises:
        ConfigError: ``item`` is not an :class:`~scorekit.items.EvalItem` (``field="item"``),
            ``scorers`` is not a list of scorers with distinct ids (``field="scorers"``), or
            ``scorer_timeout`` or ``target_timeout`` is not a number > 0 or ``None``,
            ``trials`` is not an integer in range, or ``max_text_chars`` not an integer >= 1 or
            ``None`` (``field`` names it).
    """
    if not isinstance(item, EvalItem):
        raise ConfigError(
            f"score_item needs an EvalItem, not {type(item).__name__} "
            "(EvalItem.from_value builds one from a mapping)",
            field="item",
        )
    job = ItemJob(scorers, target, scorer_timeout, target_timeout, trials, max_text_chars)  # type: ignore[arg-type]
    return await job(item, done, threads=threads)


async def _score_checked(
    item: EvalItem,
    scorers: tuple[Scorer, ...],
    target: Target | None,
    done: Mapping[str, ScorerRunResult] | None,
    threads: ThreadPool | None,
    timeout: float | None,
    target_timeout: float | None,
    trials: int = 1,
    max_text_chars: int | None = DEFAULT_MAX_TEXT_CHARS,
) -> ItemResult:
    """:func:`score_item` on scorers already checked (an :class:`ItemJob`'s, once per run).

    With ``trials > 1`` each scorer that runs scores the item that many times (the target is
    called once); the repeats go to :attr:`ItemResult.trials`.
    """
    done = dict(done or {})
    todo = [s for s in scorers if s.id not in done]
    if not todo:
        output = item.output if item.has_output else None
        return ItemResult(item, output, None, {s.id: done[s.id] for s in scorers}, frozenset(done))
    if item.load_error is not None:
        error = RunError(type="DatasetError", message=item.load_error, step="load")
        return _failed(item, scorers, error, done)
    too_long = text_limit_error(record_values(item).items(), max_text_chars)
    if too_long is not None:
        error = RunError(type="TextLimitError", message=str(too_long), step="load")
        return _failed(item, scorers, error, done)
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
            output = await call_target(target, item, timeout=target_timeout, threads=threads)
            if isinstance(output, Mapping) and "output" in output:
                context = output.get("context")
                output = output["output"]
                if context is not None:
                    item = item.with_context(context)
        except Exception as exc:
            error = RunError(type=type(exc).__name__, message=str(exc), step="target")
            return _failed(item, scorers, error, done)
        returned = (("output", output), ("context", item.context))
        too_long = text_limit_error(returned, max_text_chars)
        if too_long is not None:
            error = RunError(type="TextLimitError", message=str(too_long), step="target")
            return _failed(item, scorers, error, done)
    fresh = {r.scorer_id: r for r in await _scored(todo, item, output, timeout)}
    repeats: dict[str, list[ScorerRunResult]] = {s.id: [] for s in todo} if trials > 1 else {}
    for trial in range(1, trials):  # the judge samples anew (scorekit.judge.trial)
        token = JUDGE_TRIAL.set(trial)
        try:
            for result in await _scored(todo, item, output, timeout):
                repeats[result.scorer_id].append(result)
        finally:
            JUDGE_TRIAL.reset(token)
    results = {s.id: done.get(s.id) or fresh[s.id] for s in scorers}
    return ItemResult(item, output, None, results, frozenset(done), repeats)


async def _scored(
    todo: Sequence[Scorer], item: EvalItem, output: Any, timeout: float | None
) -> list[ScorerRunResult]:
    """One result per scorer of ``todo``, the scorers of the item run concurrently."""
    if len(todo) == 1:  # no task of its own for a lone scorer
        return [await _score(todo[0], item, output, timeout)]
    return list(await asyncio.gather(*(_score(s, item, output, timeout) for s in todo)))


MAX_TRIALS = 100
"""The most trials a run may ask for: an item's repeats are held in memory until it is done."""


@dataclass(frozen=True)
class ItemJob:
    """What an executor does to every item of a run: the scorers and the optional target.

    It pickles when its scorers and target do (scorers built with
    :func:`scorekit.scorers.build_scorer`, a module-level target function), so an executor can
    send it to worker processes once and call it there per item.

    Attributes:
        scorers: the run's scorers, distinct ids, in run order (any sequence or iterable of
            them is taken, and kept as a tuple).
        target: the application under test, or ``None`` when items carry their outputs.
        scorer_timeout: seconds one call of a local scorer may take (default
            :data:`~scorekit.evals.scorer_threads.DEFAULT_SCORER_TIMEOUT`); ``None``: no limit.
        target_timeout: seconds one target call may take (default
            :data:`~scorekit.evals.target_calls.DEFAULT_TARGET_TIMEOUT`); ``None``: no limit.
        trials: how many times each scorer scores each item (``run_evals(trials=k)``), >= 1.
        max_text_chars: characters one item field may hold (default
            :data:`~scorekit.evals.text_limits.DEFAULT_MAX_TEXT_CHARS`); ``None``: no limit.

    Raises:
        ConfigError: the scorers are not a non-empty list of scorers with distinct ids
            (``field="scorers"``), or a timeout is not a number > 0 or ``None`` (``field``
            names it); checked once, when the job is made.
    """

    scorers: tuple[Scorer, ...]
    target: Target | None = None
    scorer_timeout: float | None = DEFAULT_SCORER_TIMEOUT
    target_timeout: float | None = DEFAULT_TARGET_TIMEOUT
    trials: int = 1
    max_text_chars: int | None = DEFAULT_MAX_TEXT_CHARS

    def __post_init__(self) -> None:
        if (
            isinstance(self.trials, bool)
            or not isinstance(self.trials, int)
            or not 1 <= self.trials <= MAX_TRIALS
        ):
            raise ConfigError(
                f"trials must be an integer from 1 to {MAX_TRIALS}, not {self.trials!r}",
                field="trials",
            )
        # checked once here, so scoring an item does not check them again
        object.__setattr__(self, "scorers", check_scorers(self.scorers))
        object.__setattr__(self, "scorer_timeout", check_scorer_timeout(self.scorer_timeout))
        object.__setattr__(
            self, "target_timeout", check_seconds(self.target_timeout, "target_timeout")
        )
        object.__setattr__(self, "max_text_chars", check_max_text_chars(self.max_text_chars))

    @property
    def scorer_ids(self) -> tuple[str, ...]:
        """The scorers' ids, in run order."""
        return tuple(s.id for s in self.scorers)

    async def __call__(
        self,
        item: EvalItem,
        done: Mapping[str, ScorerRunResult] | None = None,
        *,
        threads: ThreadPool | None = None,
    ) -> ItemResult:
        """Score ``item`` (see :func:`score_item`)."""
        # the job's scorers were checked when the run was wired: not again per item
        return await _score_checked(
            item, self.scorers, self.target, done, threads, self.scorer_timeout,
            self.target_timeout, self.trials, self.max_text_chars,
        )  # fmt: skip
