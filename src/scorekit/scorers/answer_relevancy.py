"""Answer Relevancy (LLM): how much of the answer addresses the user's question.

Score range ``[0, scale]``; higher is better. A judge splits the answer into statements, then
rates each ``yes`` (relevant), ``unsure`` (partly relevant, or a direct but wrong answer) or
``no`` (off the question), ignoring correctness. Then (Mastra evals 1.10.2 answer-relevancy)::

    score = round2((#yes + uncertainty_weight × #unsure) / #results × scale)
            (0 when there are no results)

Divergences (docs/divergences.md): 1 (``uncertainty_weight`` and ``scale`` default on their own;
Mastra yields NaN when only one is given), 4, 5, 6 (labels trimmed and lower-cased; other labels
refused), 10, 20 (an empty answer scores 0 without a judge call), 23, 26 (one result per statement:
asked for in the schema and checked).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

from scorekit.errors import ConfigError
from scorekit.judge.judge import Judge, to_judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.messages import get_assistant_message, get_user_message
from scorekit.options import check_scale
from scorekit.pipeline import (
    LocalResult,
    PromptStep,
    Scorer,
    StepContext,
    create_scorer,
    local_result,
)
from scorekit.rounding import format_score, round_to_two_decimals
from scorekit.scorers.replies import (
    LANGUAGE_RULE,
    CountedReply,
    JudgeReply,
    YesNoUnsure,
    item_limit,
)

__all__ = [
    "DEFAULT_UNCERTAINTY_WEIGHT",
    "SCORER_ID",
    "RelevancyResult",
    "RelevancyResults",
    "Statements",
    "answer_relevancy_score",
    "create_answer_relevancy_scorer",
]

SCORER_ID = "answer-relevancy-scorer"
"""The scorer's stable id (Mastra's)."""

DEFAULT_UNCERTAINTY_WEIGHT = 0.3
"""How much an ``unsure`` statement counts, relative to a ``yes`` (Mastra's default)."""

INSTRUCTIONS = (
    "You rate how relevant the parts of an AI answer are to the user's question. Partial "
    "relevance counts; correctness does not. Answer exactly in the format asked for."
)
"""System instructions of the Answer Relevancy judge."""


class Statements(CountedReply):
    """The preprocess step's result: the answer split into statements.

    Asked for with ``at_most(item_limit(answer))``.
    """

    ITEMS: ClassVar[str] = "statements"
    ITEM_OF: ClassVar[str] = "statement"

    statements: list[str]
    """The statements, in order."""


class RelevancyResult(JudgeReply):
    """The judge's verdict on one statement."""

    result: YesNoUnsure
    """``yes`` relevant, ``unsure`` partly relevant, ``no`` irrelevant."""
    reason: str
    """Why, in the language of the user's query."""


class RelevancyResults(CountedReply):
    """The analyze step's result (``expecting(n)``: exactly one result per statement)."""

    ITEMS: ClassVar[str] = "results"
    ITEM_OF: ClassVar[str] = "statement"

    results: list[RelevancyResult]
    """One verdict per statement, in statement order."""


def answer_relevancy_score(
    results: Sequence[str],
    *,
    uncertainty_weight: float = DEFAULT_UNCERTAINTY_WEIGHT,
    scale: float = 1.0,
) -> float:
    """Return the weighted share of relevant statements (formula in the module docstring).

    Args:
        results: normalised labels, one per statement.
        uncertainty_weight: the weight of ``unsure``, in ``[0, 1]``.
        scale: the maximum score, ``> 0``.

    Example:
        >>> answer_relevancy_score(["yes", "unsure", "no"])
        0.43
    """
    if not results:
        return 0.0
    total = sum(
        1.0 if label == "yes" else uncertainty_weight if label == "unsure" else 0.0
        for label in results
    )
    return round_to_two_decimals(total / len(results) * scale)


def _statements_prompt(answer: str) -> str:
    return f"""Split the text below into its statements.

A statement is one self-contained unit of meaning. Split sentences that join several facts
("and", lists), but do not split further than that. A single word is one statement; an error
message is one statement. An empty text has no statements.

Example: "Look! A bird! Birds are interesting animals." gives ["Look!", "A bird!", "Birds are
interesting animals."].

Text:
{answer}

Answer with JSON only: {{"statements": ["..."]}}"""


def _results_prompt(question: str, statements: Sequence[str]) -> str:
    numbered = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(statements))
    return f"""Rate how relevant each statement is to the question. Ignore whether it is true.

Question:
{question}

Statements ({len(statements)}):
{numbered}

Give exactly {len(statements)} results, one per statement, in the same order:
- "result": "yes" when the statement answers or directly addresses the question;
  "unsure" when it is partly relevant: it gives the right kind of answer but a wrong or vague
  one, or useful context that does not answer the question itself;
  "no" when it is off the question, even if it is about the same subject, or empty.
- "reason": one sentence.
{LANGUAGE_RULE}

Example: for "What colour is the sky during the day?", "The sky is blue on clear days." is yes,
"The sky is green." is unsure (a direct but wrong answer), and "Birds fly in the sky." is no.

Answer with JSON only: {{"results": [{{"result": "yes", "reason": "..."}}]}}"""


def _reason_prompt(
    question: str,
    answer: str,
    statements: Statements,
    results: RelevancyResults,
    score: str,
    scale: str,
) -> str:
    lines = "\n".join(
        f"- {s}: {r.result} ({r.reason})"
        for s, r in zip(statements.statements, results.results, strict=False)
    )
    return f"""Explain an answer relevancy score to a developer in two or three sentences.

Question:
{question}

Answer:
{answer}

Statements and verdicts:
{lines}

Score: {score} (0 is worst, {scale} is best)

Begin with "The score is {score} because" and say which parts of the answer were off the
question, if any. Write in the language the question is written in. Reply with the explanation
only."""


def _check_weight(value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise ConfigError(
            f"uncertainty_weight must be a number in [0, 1], got {value!r}",
            field="uncertainty_weight",
        )
    return float(value)


def create_answer_relevancy_scorer(
    *,
    model: str | JudgeModel | Judge,
    uncertainty_weight: float = DEFAULT_UNCERTAINTY_WEIGHT,
    scale: float = 1.0,
) -> Scorer:
    """Create the Answer Relevancy scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        uncertainty_weight: how much an ``unsure`` statement counts, in ``[0, 1]``.
        scale: the maximum score, a finite number > 0.

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`Statements` and
        ``analyze_step_result`` a :class:`RelevancyResults`. An empty answer scores 0 without a
        judge call.

    Raises:
        ConfigError: a bad ``uncertainty_weight`` or ``scale``.
    """
    weight = _check_weight(uncertainty_weight)
    scale = check_scale(scale)
    judge = to_judge(model, INSTRUCTIONS)

    def statements_step(ctx: StepContext) -> str | LocalResult:
        answer = get_assistant_message(ctx.run.output) or ""
        if not answer.strip():
            return local_result(Statements(statements=[]))
        return _statements_prompt(answer)

    def results_step(ctx: StepContext) -> str | LocalResult:
        statements: Statements = ctx.results.preprocess_step_result
        if not statements.statements:
            return local_result(RelevancyResults(results=[]))
        return _results_prompt(get_user_message(ctx.run.input) or "", statements.statements)

    def statements_schema(ctx: StepContext) -> SchemaSpec:
        return Statements.at_most(item_limit(get_assistant_message(ctx.run.output) or ""))

    def results_schema(ctx: StepContext) -> SchemaSpec:
        return RelevancyResults.expecting(len(ctx.results.preprocess_step_result.statements))

    def generate_score(ctx: StepContext) -> float:
        results: RelevancyResults = ctx.results.analyze_step_result
        labels = [r.result for r in results.results]
        return answer_relevancy_score(labels, uncertainty_weight=weight, scale=scale)

    def reason_step(ctx: StepContext) -> str | LocalResult:
        score = format_score(ctx.score or 0.0)
        statements: Statements = ctx.results.preprocess_step_result
        if not statements.statements:
            return local_result(f"The score is {score} because the answer is empty.")
        return _reason_prompt(
            get_user_message(ctx.run.input) or "",
            get_assistant_message(ctx.run.output) or "",
            statements,
            ctx.results.analyze_step_result,
            score,
            format_score(scale),
        )

    return (
        create_scorer(
            SCORER_ID,
            name="Answer Relevancy Scorer",
            description="Weighted share of the answer's statements that address the question",
            judge=judge,
        )
        .preprocess(
            PromptStep("Split the answer into statements", statements_step, statements_schema)
        )
        .analyze(PromptStep("Rate each statement's relevance", results_step, results_schema))
        .generate_score(generate_score)
        .generate_reason(PromptStep("Explain the score", reason_step))
    )
