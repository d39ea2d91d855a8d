"""What a scorer's steps see and may return: the run, earlier results, and two sentinels.

A step receives a :class:`StepContext` (the record being scored and the results of the steps
before it); it may return :func:`not_scorable` to end the run as ``skipped``, and a prompt
step's ``create_prompt`` may return :func:`local_result` to settle the step without a judge
call. :mod:`scorekit.pipeline` re-exports all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "LocalResult",
    "NotScorable",
    "ScorerRun",
    "StepContext",
    "StepResults",
    "local_result",
    "not_scorable",
]


@dataclass(frozen=True)
class ScorerRun:
    """The record being scored, as steps see it (``ctx.run``).

    Attributes:
        input: the user's input in any shape :mod:`scorekit.inputs.messages` accepts, or ``None``.
        output: the output being scored.
        ground_truth: the expected output or reference, or ``None``.
        request_context: any per-request data the caller passes through (a dict), or ``None``.
        run_id: the run's id (a uuid4 string when the caller gave none).
        context: the record's retrieved context pieces (a dataset item's ``context``, or what
            a ``run_evals`` target returned with its output), or ``None``. Context scorers use
            it when they are given neither a fixed context nor a context extractor.
        expected_trajectory: the steps the agent was expected to take (trajectory scorers): a
            trajectory ``{"steps": [...]}`` or a list of expected steps, or ``None``.
        additional_context: any further data for the judge (Mastra ``additionalContext``), or
            ``None``.
    """

    input: Any
    output: Any
    ground_truth: Any = None
    request_context: Any = None
    run_id: str = ""
    context: tuple[str, ...] | None = None
    expected_trajectory: Any = None
    additional_context: Any = None


@dataclass(frozen=True)
class StepResults:
    """Results of the steps that already ran (``None`` where a step has not run or is absent)."""

    preprocess_step_result: Any = None
    analyze_step_result: Any = None
    generate_score_step_result: float | None = None


@dataclass(frozen=True)
class StepContext:
    """What each step receives.

    Attributes:
        run: the record being scored.
        results: the results of earlier steps.
        score: the score (only set for ``generate_reason``).
    """

    run: ScorerRun
    results: StepResults
    score: float | None = None


@dataclass(frozen=True)
class NotScorable:
    """Sentinel a step returns to end the run with status ``skipped`` (see :func:`not_scorable`)."""

    reason: str


def not_scorable(reason: str) -> NotScorable:
    """Return the sentinel that ends a run as ``skipped``, with ``reason`` as the result's reason.

    The results of earlier steps are kept; no score is given and no later step runs
    (Mastra ``notScorable``, current main).
    """
    return NotScorable(reason)


@dataclass(frozen=True)
class LocalResult:
    """What a prompt step's ``create_prompt`` returns to settle the step without the judge."""

    value: Any


def local_result(value: Any) -> LocalResult:
    """Return the sentinel that gives a prompt step its result without a judge call.

    ``create_prompt`` returns it when the answer is already known (e.g. an empty response has no
    claims to extract); ``value`` becomes the step's result as if the judge had returned it.
    """
    return LocalResult(value)
