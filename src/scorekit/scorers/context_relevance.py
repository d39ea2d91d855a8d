"""Context Relevance (LLM): how relevant the given context was, and whether the answer used it.

Score range ``[0, scale]``; higher is better. A judge rates each context piece ``high`` /
``medium`` / ``low`` / ``none`` and says whether the response used it, and lists the context
that was missing. Then (Mastra evals 1.10.2 context-relevance; seed document
"コンテキスト関連度 Scorer")::

    base    = Σ weight(level) / n          high 1.0, medium 0.7, low 0.3, none 0.0
    usage   = #(high and not used) × unused_high_relevance_context
    missing = min(#missing × missing_context_per_item, max_missing_context_penalty)
    score   = round2(max(0, base − usage − missing) × scale)

``round2`` is Mastra's half-up rounding (:func:`scorekit.rounding.round_to_two_decimals`).
With ``scoring="expected"`` each piece's ``weight(level)`` is its expectation under the
judge's level distribution, ``Σ p(level) × weight(level)``, read from its token
log-probabilities (:mod:`scorekit.scorers.expected`); the penalties count the generated
levels as before.

Blank context pieces are dropped before anything else
(:class:`scorekit.inputs.retrieval_context.Pieces`): the judge sees the others numbered from 0, and
each evaluation in the step result reports the piece's position in the context as given
(``context_index``) and its text (``context_piece``, our copy: the judge is not asked to copy it
back). A run whose pieces are all blank is ``skipped``.

Divergences (docs/divergences.md): 1 (keyword options, each penalty defaults on its own), 4
(``scale`` validated), 5 (never NaN), 6 (labels trimmed and lower-cased), 7 (an empty resolved
context is ``skipped`` without a judge call), 10 (snake_case), 18 and 19 (one evaluation per
piece is required: a reply with no evaluations or another count, or with a missing, repeated or
out-of-range ``context_index`` where it gives indices, is repaired, then an ``error``; Mastra
scores no evaluations 1 or 0), 23 (labels outside the closed set are refused), row 78 (blank
pieces dropped), row 79 (``context_piece`` is ours), row 102 (the reason is a template unless
``reason="llm"``), row 104 (the judge gives each piece's level and use in order, the level
first; ``reasoning`` and ``overall_assessment`` are not asked: issue 29's measurements).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field
from pydantic.alias_generators import to_snake
from pydantic.json_schema import SkipJsonSchema

from scorekit.errors import ConfigError
from scorekit.inputs.messages import get_assistant_message, get_user_message
from scorekit.inputs.retrieval_context import ContextExtractor, ContextSource, Pieces
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.pipeline import (
    LocalResult,
    NotScorable,
    PromptStep,
    Scorer,
    StepContext,
    local_result,
    not_scorable,
)
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers import context_relevance_prompts as prompts
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.expected import (
    LabelReader,
    Scoring,
    check_scoring,
    expected_weights,
    reading,
)
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.options import ReasonMode, check_reason, check_scale
from scorekit.scorers.replies import CountedReply, JudgeReply, normalise_label

__all__ = [
    "ENTRY",
    "RELEVANCE_WEIGHTS",
    "SCORER_ID",
    "ContextEvaluation",
    "ContextRelevanceAnalysis",
    "ContextRelevancePenalties",
    "ReasonMode",
    "RelevanceBreakdown",
    "RelevanceLevel",
    "context_relevance_breakdown",
    "context_relevance_score",
    "create_context_relevance_scorer_llm",
]

SCORER_ID = "context-relevance-scorer"
"""The scorer's stable id (Mastra's)."""

RelevanceLevel = Literal["high", "medium", "low", "none"]
"""How much a context piece bears on the query."""

RELEVANCE_WEIGHTS: Mapping[RelevanceLevel, float] = {
    "high": 1.0,  # answers the query directly
    "medium": 0.7,  # supporting information
    "low": 0.3,  # indirectly related
    "none": 0.0,  # unrelated
}
"""Weight of each relevance level in the base score (seed document)."""

MISSING_ITEMS = 3
"""The ``maxItems`` of ``missing_context`` in the schema sent to the judge."""
MISSING_CHARS = 60
"""The ``maxLength`` of one ``missing_context`` item in the schema sent to the judge."""

NO_CONTEXT_REASON = "No context to evaluate: the resolved context is empty."
"""The reason of a ``skipped`` result (divergences.md row 7)."""


@dataclass(frozen=True)
class ContextRelevancePenalties:
    """Penalty rates, each a fraction of the 0–1 score in ``[0, 1]``."""

    unused_high_relevance_context: float = 0.1
    """Subtracted once per ``high`` piece the response did not use."""
    missing_context_per_item: float = 0.15
    """Subtracted once per item of missing context the judge named."""
    max_missing_context_penalty: float = 0.5
    """Cap on the total missing-context penalty."""

    @classmethod
    def of(
        cls, value: ContextRelevancePenalties | Mapping[str, Any] | None
    ) -> ContextRelevancePenalties:
        """Validate the factory's ``penalties`` option; absent keys keep their defaults.

        Raises:
            ConfigError: an unknown key (with a suggestion), or a value that is not a number
                in ``[0, 1]``.
        """
        if value is None:
            return cls()
        if isinstance(value, ContextRelevancePenalties):
            items: dict[str, Any] = {f.name: getattr(value, f.name) for f in fields(value)}
        elif isinstance(value, Mapping):
            items = dict(value)
        else:
            raise ConfigError(
                f"penalties must be a mapping, not {type(value).__name__}", field="penalties"
            )
        known = [f.name for f in fields(cls)]
        for key, rate in items.items():
            if key not in known:
                close = difflib.get_close_matches(to_snake(str(key)), known, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ConfigError(
                    f"unknown penalty {key!r}{hint} Known penalties: {', '.join(known)}",
                    field="penalties",
                )
            if (
                isinstance(rate, bool)
                or not isinstance(rate, (int, float))
                or not math.isfinite(rate)
                or not 0 <= rate <= 1
            ):
                raise ConfigError(
                    f"penalties[{key!r}] must be a number in [0, 1], got {rate!r}",
                    field=f"penalties.{key}",
                )
        return cls(**{key: float(rate) for key, rate in items.items()})


def _level(value: Any) -> Any:
    return normalise_label(value)


class ContextEvaluation(JudgeReply):
    """The judge's view of one context piece.

    The judge gives ``relevance_level`` and ``was_used``, one evaluation per piece in the order
    shown; ``context_index``, ``context_piece`` and ``reasoning`` are the scorer's (divergences.md
    rows 79 and 104).
    """

    context_index: SkipJsonSchema[int] = Field(default=0, ge=0)
    """The piece's position in the context as given, from 0 (blank pieces count): filled by
    the scorer from the evaluation's place in the reply, never asked of the judge."""
    context_piece: SkipJsonSchema[str] = ""
    """The piece's text: the scorer's own copy, not asked of the judge (row 79)."""
    relevance_level: Annotated[RelevanceLevel, BeforeValidator(_level)]
    """How much the piece bears on the query."""
    was_used: bool
    """Whether the response used the piece's information."""
    reasoning: SkipJsonSchema[str] = ""
    """Not asked of the judge (row 104): ``""`` unless a reply gave it (Mastra's replies do)."""


class ContextRelevanceAnalysis(CountedReply):
    """The analyze step's result: per-piece evaluations, missing context, overall view.

    ``ContextRelevanceAnalysis.expecting(n, shown=..., positions=...)`` asks for exactly one
    evaluation per piece, in the order shown (an empty list is refused: divergences.md row
    19), and fills each ``context_index`` with the piece's position in the context as given.
    """

    ITEMS: ClassVar[str] = "evaluations"
    ITEM_OF: ClassVar[str] = "context piece"
    INDEX: ClassVar[str | None] = "context_index"
    INDEX_IN_ORDER: ClassVar[bool] = True
    ECHO: ClassVar[str | None] = "context_piece"

    evaluations: list[ContextEvaluation]
    """One evaluation per context piece, in the order shown."""
    missing_context: list[str] = Field(
        default_factory=list,
        json_schema_extra={
            "maxItems": MISSING_ITEMS,
            "items": {"type": "string", "maxLength": MISSING_CHARS},
        },
    )
    """Information the answer needed that the context lacked."""
    overall_assessment: SkipJsonSchema[str] = ""
    """Not asked of the judge (row 104): ``""`` unless a reply gave it (Mastra's replies do)."""


@dataclass(frozen=True)
class RelevanceBreakdown:
    """The parts of a Context Relevance score.

    Attributes:
        base: Σ weights / n, in ``[0, 1]``.
        unused_high: how many ``high`` pieces the response did not use.
        usage_penalty: ``unused_high × unused_high_relevance_context``.
        missing_penalty: the capped missing-context penalty.
        score: the final score in ``[0, scale]``, rounded to two decimals.
    """

    base: float
    unused_high: int
    usage_penalty: float
    missing_penalty: float
    score: float


def context_relevance_breakdown(
    evaluations: Sequence[tuple[RelevanceLevel, bool]],
    missing_count: int,
    *,
    penalties: ContextRelevancePenalties | None = None,
    scale: float = 1.0,
    weights: Sequence[float] | None = None,
) -> RelevanceBreakdown:
    """Compute a Context Relevance score and its parts (formula in the module docstring).

    Args:
        evaluations: ``(relevance_level, was_used)`` of each evaluated piece.
        missing_count: how many items of missing context the judge named, ``>= 0``.
        penalties: the penalty rates (defaults when ``None``).
        scale: the maximum score, ``> 0``.
        weights: each piece's weight in ``[0, 1]`` in place of its level's (its expected
            weight, ``scoring="expected"``), one per evaluation; ``None``: the levels'.

    Returns:
        The breakdown.

    Raises:
        ValueError: there are no evaluations: nothing was measured (divergences.md row 19);
            or ``weights`` does not hold one weight per evaluation.

    Example:
        >>> context_relevance_breakdown([("high", True), ("low", False)], 0,
        ...     weights=[0.91, 0.3]).score
        0.61
    """
    rates = penalties or ContextRelevancePenalties()
    if not evaluations:
        raise ValueError("a context relevance score needs at least one evaluation")
    if weights is None:
        weights = [RELEVANCE_WEIGHTS[level] for level, _ in evaluations]
    elif len(weights) != len(evaluations):
        raise ValueError(f"{len(weights)} weights for {len(evaluations)} evaluations")
    base = sum(weights) / len(evaluations)
    unused_high = sum(1 for level, used in evaluations if level == "high" and not used)
    usage = unused_high * rates.unused_high_relevance_context
    missing = min(missing_count * rates.missing_context_per_item, rates.max_missing_context_penalty)
    score = round_to_two_decimals(max(0.0, base - usage - missing) * scale)
    return RelevanceBreakdown(base, unused_high, usage, missing, score)


def context_relevance_score(
    evaluations: Sequence[tuple[RelevanceLevel, bool]],
    missing_count: int,
    *,
    penalties: ContextRelevancePenalties | None = None,
    scale: float = 1.0,
) -> float:
    """Return the Context Relevance score (see :func:`context_relevance_breakdown`).

    Example:
        >>> context_relevance_score([("high", True), ("none", False), ("high", True)], 0)
        0.67
    """
    return context_relevance_breakdown(
        evaluations, missing_count, penalties=penalties, scale=scale
    ).score


def _pairs(analysis: ContextRelevanceAnalysis) -> list[tuple[RelevanceLevel, bool]]:
    return [(e.relevance_level, e.was_used) for e in analysis.evaluations]


def _judgement_lines(analysis: ContextRelevanceAnalysis) -> list[str]:
    lines = []
    for e in sorted(analysis.evaluations, key=lambda e: e.context_index):
        expected = getattr(e, "expected_weight", None)  # scoring="expected" only
        weight = (
            f" (expected weight {js_number_text(round_to_two_decimals(expected))})"
            if expected is not None
            else ""
        )
        used = "used" if e.was_used else "not used"
        lines.append(
            f"context {e.context_index + 1}: relevance {e.relevance_level}{weight}, {used}"
        )
    return lines


def _penalty_lines(
    analysis: ContextRelevanceAnalysis, parts: RelevanceBreakdown, rates: ContextRelevancePenalties
) -> list[str]:
    missing = len(analysis.missing_context)
    return [
        f"unused high-relevance pieces: {parts.unused_high} × "
        f"{js_number_text(rates.unused_high_relevance_context)} = "
        f"{js_number_text(round_to_two_decimals(parts.usage_penalty))}",
        f"missing context: {missing} item(s) × {js_number_text(rates.missing_context_per_item)}, "
        f"capped at {js_number_text(rates.max_missing_context_penalty)} = "
        f"{js_number_text(round_to_two_decimals(parts.missing_penalty))}",
    ]


def _template_reason(
    analysis: ContextRelevanceAnalysis,
    parts: RelevanceBreakdown,
    rates: ContextRelevancePenalties,
) -> str:
    """Write the reason without a judge call (English; pieces numbered from 1)."""
    score = js_number_text(parts.score)
    text = f"The score is {score} because " + "; ".join(_judgement_lines(analysis)) + "."
    if parts.unused_high:
        text += (
            f" {parts.unused_high} high-relevance piece(s) went unused "
            f"(penalty {js_number_text(round_to_two_decimals(parts.usage_penalty))})."
        )
    if analysis.missing_context:
        text += (
            f" Missing context (penalty "
            f"{js_number_text(round_to_two_decimals(parts.missing_penalty))}): "
            + "; ".join(analysis.missing_context)
            + "."
        )
    else:
        text += " No context was missing."
    return text


def _expecting(pieces: Pieces) -> SchemaSpec:
    return ContextRelevanceAnalysis.expecting(
        len(pieces.texts), shown=pieces.texts, positions=pieces.positions
    )


def create_context_relevance_scorer_llm(
    *,
    model: str | JudgeModel | Judge,
    context: Sequence[str] | None = None,
    context_extractor: ContextExtractor | None = None,
    penalties: ContextRelevancePenalties | Mapping[str, float] | None = None,
    scale: float = 1.0,
    reason: ReasonMode = "template",
    scoring: Scoring = "label",
) -> Scorer:
    """Create the Context Relevance (LLM) scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        context: the context pieces (non-empty list of strings), the same for every run.
        context_extractor: ``(input, output) -> list[str]``, sync or async, giving each run's
            context; it wins over ``context``.
        penalties: any of ``unused_high_relevance_context`` (default 0.1),
            ``missing_context_per_item`` (0.15) and ``max_missing_context_penalty`` (0.5), each
            in ``[0, 1]``; absent keys keep their defaults.
        scale: the maximum score, a finite number > 0.
        reason: ``"template"`` (the default: the levels, use and penalties the score came
            from, stated without a judge call), ``"llm"`` (Mastra's: the judge explains, in
            the query's language, one more call; a small judge's explanation contradicted its
            own levels on 2 of 9 ExpertQA rows, divergences.md row 102) or ``"none"``.
        scoring: ``"label"`` (Mastra's: each piece weighs its rated level's weight) or
            ``"expected"`` (each piece weighs its expected weight under the judge's level
            distribution, read from its token log-probabilities; each evaluation records
            ``label_probabilities``, ``label_mass`` and ``expected_weight``:
            :mod:`scorekit.scorers.expected`). ``"expected"`` needs a judge whose provider
            returns log-probabilities (OpenAI, vLLM, llama.cpp); with any other a run is an
            ``error`` saying so.

    Returns:
        A scorer whose ``analyze_step_result`` is a :class:`ContextRelevanceAnalysis` and whose
        result is ``skipped`` (no judge call) when a run's resolved context is empty or all
        blank.

    Raises:
        ConfigError: neither ``context`` nor ``context_extractor``; an empty or all-blank
            ``context``; a bad ``scale``, penalty, ``reason`` or ``scoring``.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> judge = ScriptedJudge([{"evaluations": [
        ...     {"relevance_level": "high", "was_used": True}], "missing_context": []}])
        >>> scorer = create_context_relevance_scorer_llm(
        ...     model=judge, context=["Canberra is the capital."], reason="template")
        >>> scorer.run_sync(input="Capital of Australia?", output="Canberra.").score
        1.0
    """
    source = ContextSource.of(context, context_extractor, scorer="Context Relevance")
    rates = ContextRelevancePenalties.of(penalties)
    scale = check_scale(scale)
    reason = check_reason(reason)
    reader = (
        LabelReader.of(
            ContextRelevanceAnalysis, "evaluations", "relevance_level", RELEVANCE_WEIGHTS
        )
        if check_scoring(scoring) == "expected"
        else None
    )

    async def analyze_prompt(ctx: StepContext) -> str | NotScorable:
        pieces = await source.resolve(ctx.run)
        skip = pieces.skip_reason(NO_CONTEXT_REASON)
        if skip is not None:
            return not_scorable(skip)
        return prompts.analyze_prompt(
            get_user_message(ctx.run.input) or "",
            get_assistant_message(ctx.run.output) or "",
            pieces.texts,
        )

    async def analyze_schema(ctx: StepContext) -> SchemaSpec:
        # one evaluation per piece shown: the judge is asked for exactly that many, and a
        # reply that skips or repeats a piece is repaired or fails (divergences.md rows 18, 19)
        return reading(_expecting(await source.resolve(ctx.run)), reader)

    def parts_of(ctx: StepContext) -> tuple[ContextRelevanceAnalysis, RelevanceBreakdown]:
        analysis: ContextRelevanceAnalysis = ctx.results.analyze_step_result
        parts = context_relevance_breakdown(
            _pairs(analysis),
            len(analysis.missing_context),
            penalties=rates,
            scale=scale,
            weights=expected_weights(analysis, "evaluations") if reader is not None else None,
        )
        return analysis, parts

    def generate_score(ctx: StepContext) -> float:
        return parts_of(ctx)[1].score

    def reason_prompt(ctx: StepContext) -> str | LocalResult:
        analysis, parts = parts_of(ctx)
        if reason == "template":
            return local_result(_template_reason(analysis, parts, rates))
        return prompts.reason_prompt(
            get_user_message(ctx.run.input) or "",
            js_number_text(parts.score),
            js_number_text(scale),
            _judgement_lines(analysis),
            _penalty_lines(analysis, parts, rates),
            analysis.missing_context,
        )

    return judged_scorer(
        SCORER_ID,
        name="Context Relevance (LLM)",
        description="How relevant the context is to the query, and whether the answer used it",
        model=model,
        instructions=prompts.INSTRUCTIONS,
        analyze=PromptStep(
            "Rate each context piece's relevance and use; list missing context",
            analyze_prompt,
            analyze_schema,
        ),
        score=generate_score,
        reason=None if reason == "none" else PromptStep("Explain the score", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="context-relevance",
    scorer_id=SCORER_ID,
    factory=create_context_relevance_scorer_llm,
    kind="llm",
    summary=(
        "Weighted relevance of each context piece, with penalties for unused and missing context"
    ),
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
