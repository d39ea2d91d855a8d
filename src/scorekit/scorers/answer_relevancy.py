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
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from scorekit.errors import ConfigError
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.pipeline import Scorer
from scorekit.scorers import verdicts as recipe
from scorekit.scorers.expected import Scoring, check_scoring
from scorekit.scorers.options import ReasonMode, check_scale
from scorekit.scorers.replies import LANGUAGE_RULE, CountedReply, JudgeReply, YesNoUnsure

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
    return recipe.share_score(results, _weights(uncertainty_weight), scale=scale)


def _weights(uncertainty_weight: float) -> Mapping[str, float]:
    return {"yes": 1.0, "unsure": uncertainty_weight}


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


def _results_prompt(question: str, context: Sequence[str], statements: Sequence[str]) -> str:
    # the context is the whole answer (answer_shown): its statements are read within it
    answer = context[0] if context else ""
    return f"""Rate how relevant each statement of an answer is to the question. Ignore whether
it is true.

Question:
{question}

The whole answer, for what its statements refer to:
{answer}

Statements ({len(statements)}):
{recipe.numbered(statements)}

Give exactly {len(statements)} results, one per statement, in the same order:
- "result": "yes" when the statement answers or directly addresses the question;
  "unsure" when it is partly relevant: it gives the right kind of answer but a wrong or vague
  one, or useful context that does not answer the question itself;
  "no" when it is off the question, even if it is about the same subject; when it answers
  nothing: it only says that the answer is unknown or not given (by a document, the context or
  anyone), describes a source instead of answering, or repeats the question; or when it is
  empty.
- "reason": one sentence.
{LANGUAGE_RULE}

Example: for "What colour is the sky during the day?", "The sky is blue on clear days." is yes,
"The sky is green." is unsure (a direct but wrong answer), "Birds fly in the sky." is no, and
"The context does not say what colour the sky is." is no.

Answer with JSON only: {{"results": [{{"result": "yes", "reason": "..."}}]}}"""


def _reason_prompt(run: recipe.ToExplain[RelevancyResults]) -> str:
    question, answer, lines, score, scale = run.query, run.answer, run.lines, run.score, run.scale
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


RECIPE = recipe.VerdictRecipe(
    SCORER_ID,
    "Answer Relevancy Scorer",
    "Weighted share of the answer's statements that address the question",
    INSTRUCTIONS,
    recipe.Units(
        "Split the answer into statements",
        Statements,
        _statements_prompt,
        none_found="The judge found no statements in the answer, so there is nothing to check "
        "against the question.",
    ),
    recipe.VerdictStep(
        "Rate each statement's relevance",
        RelevancyResults,
        _results_prompt,
        label="result",
        answer_shown=True,
    ),
    recipe.ReasonStep(_reason_prompt, "the answer is empty."),
)
"""The scorer's parts: the answer's statements (``at_most(item_limit(answer))``), weighted by
their results; an empty answer gets a local reason."""


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
    scoring: Scoring = "label",
    reason: ReasonMode = "llm",
) -> Scorer:
    """Create the Answer Relevancy scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        uncertainty_weight: how much an ``unsure`` statement counts, in ``[0, 1]``.
        scale: the maximum score, a finite number > 0.
        scoring: ``"label"`` (Mastra's: the verdicts' labels) or ``"expected"`` (each verdict
            weighs its expectation under the judge's label distribution, read from its token
            log-probabilities; :mod:`scorekit.scorers.expected`).
        reason: ``"llm"`` (Mastra's: the judge explains the score, one more call),
            ``"template"`` (the verdicts the score came from, stated without a judge call:
            :func:`~scorekit.scorers.verdicts.template_reason`) or ``"none"`` (no reason).

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`Statements` and
        ``analyze_step_result`` a :class:`RelevancyResults`. An empty answer scores 0 without a
        judge call.

    Raises:
        ConfigError: a bad ``uncertainty_weight``, ``scale``, ``scoring`` or ``reason``.
    """
    weights = _weights(_check_weight(uncertainty_weight))
    return recipe.verdict_scorer(
        RECIPE,
        model,
        check_scale(scale),
        weights=weights,
        scoring=check_scoring(scoring),
        reason=reason,
    )


ENTRY = RECIPE.entry("answer-relevancy", create_answer_relevancy_scorer)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
