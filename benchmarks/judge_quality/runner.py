"""Run the variants of a task on its rows and collect per-row outcomes.

A variant is the scorekit scorer (with ``scoring="label"`` or ``"expected"``), the plain baseline
prompt, or (context relevance only) ``reference``: the shared README's reference prompt, read at its
label position as the label probe reads it (:mod:`judge_quality.probe`), its score the expected
weight, so that a full scorer run has the measuring stick beside it on the same judge, rows and cut.
Every row is scored once with the run's seed; the first ``repeat_rows`` rows are scored again with
``seed + 1`` for the run-to-run agreement. The judge-call cache is off for every call (timings and
tokens are those of real calls). Rows run one after another, so each row's wall time is its own.

Per row: the status (``ok`` / ``error`` / ``skipped``), the oriented score, the predicted
label, judge calls, prompt and completion tokens (``ScorerRunResult.judge_usage``, or the
baseline's ``JudgeResult.usage``), wall seconds (``time.perf_counter``) and CPU seconds of
this process (``time.process_time``: with the in-process llama.cpp judge it counts the judge's
own threads too, and is steadier than wall time on a shared machine).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from judge_quality.baselines import BASELINE_INSTRUCTIONS, Baseline
from judge_quality.data import Row
from judge_quality.probe import probe_one
from judge_quality.probe_variants import PROBE_VARIANTS
from judge_quality.tasks import Task, accepts
from scorekit.errors import JudgeError, ScorerRunError
from scorekit.judge import Judge, JudgeModel, JudgeUsage

__all__ = ["JudgeOptions", "Outcome", "VariantRun", "VariantRunner", "cut_row", "run_variant"]


@dataclass(frozen=True)
class JudgeOptions:
    """How the benchmark's judges are built (``None`` keeps the judge's default).

    ``model`` is a model string (``local/PATH.gguf``) or, in tests, a ``JudgeModel``.
    """

    model: str | JudgeModel
    seed: int = 0
    temperature: float = 0.0
    timeout: float = 900.0
    max_tokens: int | None = None
    context_window: int | None = None

    def judge(
        self, instructions: str | None = None, *, seed: int | None = None, **extra: Any
    ) -> Judge:
        """A judge on the model, cache off; ``seed`` overrides the options' seed."""
        given: dict[str, Any] = {
            "timeout": self.timeout,
            "temperature": self.temperature,
            "seed": self.seed if seed is None else seed,
            "cache": False,
        }
        if self.max_tokens is not None:
            given["max_tokens"] = self.max_tokens
        if self.context_window is not None:
            given["context_window"] = self.context_window
        return Judge(self.model, instructions, **{**given, **extra})


@dataclass(frozen=True)
class Outcome:
    """One row's result under one variant (no text of the row: ids and figures only)."""

    key: str
    label: int
    status: str
    score: float | None = None
    predicted: int | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    error: str | None = None


@dataclass
class VariantRun:
    """A variant's outcomes on a task's rows, and on the repeated first rows."""

    task: str
    variant: str
    outcomes: list[Outcome] = field(default_factory=list)
    repeat: list[Outcome] = field(default_factory=list)
    skipped: str | None = None


def cut_row(row: Row, cut: Any) -> Row:
    """The row with each document (and, for pairs, each response and the reference) cut."""
    return replace(
        row,
        contexts=tuple(cut(c) for c in row.contexts),
        answer=cut(row.answer) if row.other is not None else row.answer,
        other=cut(row.other) if row.other is not None else None,
        reference=cut(row.reference) if row.reference is not None else None,
    )


def _outcome(
    row: Row,
    status: str,
    usage: JudgeUsage,
    clocks: tuple[float, float],
    score: float | None = None,
    predicted: int | None = None,
    error: str | None = None,
) -> Outcome:
    """The row's outcome; ``clocks`` are the ``perf_counter`` and ``process_time`` at start."""
    return Outcome(
        row.key,
        row.label,
        status,
        score,
        predicted,
        calls=usage.calls,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        wall_s=time.perf_counter() - clocks[0],
        cpu_s=time.process_time() - clocks[1],
        error=error,
    )


async def _scorer_row(task: Task, row: Row, judge: Judge, extra: dict[str, Any]) -> Outcome:
    clocks = time.perf_counter(), time.process_time()
    usage = JudgeUsage()
    scores: list[float] = []
    status, error = "ok", None
    for output in (row.answer, row.other) if task.pair else (row.answer,):
        scorer = task.build(judge, row, extra)
        try:
            result = await scorer.run(input=row.question, output=output, ground_truth=row.reference)
        except ScorerRunError as exc:
            status = "error"
            run_error = exc.result.error if exc.result is not None else None
            error = f"{run_error.type} at {run_error.step}" if run_error else type(exc).__name__
            print(f"    {row.key}: error: {str(exc).splitlines()[0][:300]}", file=sys.stderr)
            if exc.result is not None:
                usage = usage + exc.result.judge_usage
            break
        usage = usage + result.judge_usage
        if result.status != "ok" or result.score is None:
            status = "skipped"
            break
        scores.append(result.score)
    score = predicted = None
    if status == "ok":
        raw = (scores[1] - scores[0] + 1) / 2 if task.pair else scores[0]
        score = task.orient(raw)
        predicted = task.predict(score)
    return _outcome(row, status, usage, clocks, score, predicted, error)


async def _baseline_row(baseline: Baseline, row: Row, judge: Judge) -> Outcome:
    prompt = baseline.prompt(row.question, row.contexts, row.answer, row.reference, row.other)
    clocks = time.perf_counter(), time.process_time()
    try:
        result = await judge.generate_object(prompt, baseline.schema, step="baseline")
    except JudgeError as exc:
        print(f"    {row.key}: baseline error: {str(exc).splitlines()[0][:300]}", file=sys.stderr)
        usage = exc.usage or JudgeUsage()
        return _outcome(row, "error", usage, clocks, error=type(exc).__name__)
    predicted = baseline.positive(result.value)
    return _outcome(row, "ok", result.usage, clocks, float(predicted), predicted)


class VariantRunner:
    """Builds the judges once and runs any task's variants; baseline replies are memoised.

    Two tasks asking the same baseline prompt of the same rows (faithfulness and hallucination
    on one data set) share the baseline's outcomes: the call is made once.
    """

    def __init__(self, options: JudgeOptions, baseline_max_tokens: int = 32) -> None:
        self.options = options
        self._judges: dict[tuple[str, int], Judge] = {}
        self._baseline_max_tokens = baseline_max_tokens
        self._memo: dict[tuple[str, int, str], Outcome] = {}
        self.server: Any = None
        """The local judge's server, for the ``reference`` variant (set by the caller)."""

    def judge(self, kind: str, seed: int) -> Judge:
        """The scorer's (``"scorer"``) or the baseline's (``"baseline"``) judge for ``seed``."""
        key = (kind, seed)
        if key not in self._judges:
            if kind == "baseline":
                self._judges[key] = self.options.judge(
                    BASELINE_INSTRUCTIONS, seed=seed, max_tokens=self._baseline_max_tokens
                )
            else:
                self._judges[key] = self.options.judge(seed=seed)
        return self._judges[key]

    async def row(self, task: Task, variant: str, row: Row, seed: int) -> Outcome:
        """One row under one variant: ``"baseline"``, ``"reference"`` or ``"scorer:<scoring>"``."""
        if variant == "reference":
            return self._reference_row(task, row)
        if variant == "baseline":
            prompt = task.baseline.prompt(
                row.question, row.contexts, row.answer, row.reference, row.other
            )
            memo = (prompt, seed, task.baseline.name)
            if memo not in self._memo:
                self._memo[memo] = await _baseline_row(
                    task.baseline, row, self.judge("baseline", seed)
                )
            return replace(self._memo[memo], key=row.key, label=row.label)
        scoring = variant.partition(":")[2] or "label"
        extra = {"scoring": scoring} if scoring != "label" else {}
        return await _scorer_row(task, row, self.judge("scorer", seed), extra)

    def _reference_row(self, task: Task, row: Row) -> Outcome:
        if self.server is None:
            raise ValueError("the reference variant needs the local judge's server")
        clocks = time.perf_counter(), time.process_time()
        reference = PROBE_VARIANTS["reference"]
        probed = probe_one(self.server, reference, row)
        score = sum(p * reference.weights[label] for label, p in probed.probabilities.items())
        usage = JudgeUsage(calls=1, input_tokens=probed.prompt_tokens, output_tokens=1)
        return _outcome(row, "ok", usage, clocks, score, task.predict(task.orient(score)))


async def run_variant(
    runner: VariantRunner, task: Task, variant: str, rows: Sequence[Row], repeat_rows: int
) -> VariantRun:
    """Score ``rows`` (already cut) under ``variant``, then repeat the first ``repeat_rows``.

    A ``scorer:expected`` variant whose factory takes no ``scoring`` option is returned
    with ``skipped`` set and no outcomes.
    """
    run = VariantRun(task.name, variant)
    if variant == "reference" and task.name != "ares-context-relevance":
        run.skipped = "the reference prompt is a context relevance prompt"
        return run
    scoring = variant.partition(":")[2]
    if scoring and scoring != "label" and not accepts(task.factory, "scoring"):
        run.skipped = f"{task.factory.__name__} takes no scoring= option"
        return run
    seed = runner.options.seed
    for index, row in enumerate(rows, start=1):
        outcome = await runner.row(task, variant, row, seed)
        run.outcomes.append(outcome)
        _progress(task, variant, index, len(rows), outcome)
    for index, row in enumerate(rows[:repeat_rows], start=1):
        outcome = await runner.row(task, variant, row, seed + 1)
        run.repeat.append(outcome)
        _progress(task, f"{variant} (repeat)", index, min(repeat_rows, len(rows)), outcome)
    return run


def _progress(task: Task, variant: str, index: int, total: int, outcome: Outcome) -> None:
    score = "-" if outcome.score is None else f"{outcome.score:.2f}"
    print(
        f"  {task.name} {variant} {index}/{total} {outcome.key}: {outcome.status} "
        f"score {score} label {outcome.label} calls {outcome.calls} "
        f"tokens {outcome.input_tokens}/{outcome.output_tokens} {outcome.wall_s:.1f}s",
        file=sys.stderr,
        flush=True,
    )
