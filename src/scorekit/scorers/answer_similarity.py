"""Answer Similarity (LLM): how closely the answer matches a ground-truth answer.

Score range ``[0, scale]``; higher is better. A judge splits the answer and the run's
``ground_truth`` into semantic units (facts, claims, figures), then matches each ground-truth
unit against the answer's units: ``exact``, ``semantic`` (same meaning, other words),
``partial`` or ``missing``; it also lists the answer's extra information and its contradictions
of the ground truth. Then (Mastra evals 1.10.2 answer-similarity; spec §4.2)::

    credit  = Σ over matches: exact → 1 + exact_match_bonus, semantic → semantic_threshold,
              partial → semantic_threshold / 2, missing → −missing_penalty
    score   = credit / (n × (1 + exact_match_bonus))
              − #contradictions × contradiction_penalty
              − min(#extra × extra_info_penalty, 0.2)
    score   = round2(clamp(score, 0, 1) × scale)

``n`` is the number of ground-truth units (one match each); ``round2`` is Mastra's half-up
rounding (:func:`scorekit.rounding.round_to_two_decimals`). A ground truth that is not a string is
read as its compact JSON.

The judge names units by number, never by copying them: each match is the match of the
ground-truth unit at its position and points at an answer unit by ``output_index``; each
contradiction names both units by index. The step result holds our own copy of each unit's
text (``ground_truth_unit``, ``output_unit``).

Divergences (docs/divergences.md): 1 (keyword options, each with its own default), 4 (``scale``
validated), 5, 6 (labels trimmed and lower-cased), 10, 23 (match types outside the closed set are
refused); row 35 (the weights and penalties are validated); row 36 (exactly one match
per ground-truth unit, units named by index: asked for in the schema and checked, as rows 18 and
26); row 37 (a run without a ground truth fails when one is required and is ``skipped``
otherwise, where Mastra scores 0 after three judge calls; a ground truth in which the judge finds
no units is ``skipped``); row 38 (an empty answer scores 0 without a judge call, as row 20).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, StrictInt, ValidationInfo, model_validator
from pydantic.json_schema import SkipJsonSchema

from scorekit.errors import ConfigError
from scorekit.inputs.messages import get_assistant_message, get_user_message, ground_truth_text
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.pipeline import (
    LocalResult,
    NotScorable,
    PromptStep,
    Scorer,
    ScorerRun,
    StepContext,
    local_result,
    not_scorable,
)
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers import answer_similarity_prompts as prompts
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.options import check_flag, check_scale
from scorekit.scorers.replies import JudgeReply, item_limit, normalise_label

__all__ = [
    "ENTRY",
    "EXTRA_INFO_CAP",
    "SCORER_ID",
    "Contradiction",
    "MatchType",
    "SemanticUnits",
    "SimilarityAnalysis",
    "SimilarityWeights",
    "UnitMatch",
    "analysis_spec",
    "answer_similarity_score",
    "create_answer_similarity_scorer",
    "units_spec",
]

SCORER_ID = "answer-similarity-scorer"
"""The scorer's stable id (Mastra's)."""

EXTRA_INFO_CAP = 0.2
"""The most the extra-information penalty can take off the 0–1 score (Mastra's cap)."""

MatchType = Literal["exact", "semantic", "partial", "missing"]
"""How a ground-truth unit is found in the answer."""

OUTPUT_UNITS = "output_units"
"""The validation-context key holding the answer's units (our copy)."""
GROUND_TRUTH_UNITS = "ground_truth_units"
"""The validation-context key holding the ground truth's units (our copy)."""
UNIT_LIMITS = "unit_limits"
"""The validation-context key holding the most units each text may give."""
EXTRA_LIMIT = "extra_limit"
"""The validation-context key holding the most extra-information items."""

NO_GROUND_TRUTH_REASON = (
    "Answer similarity needs a ground truth to compare with; this run has none."
)
"""The reason of a run skipped for want of a ground truth (``require_ground_truth=False``)."""

NO_UNITS_REASON = (
    "The judge found no semantic units in the ground truth, so there is nothing to compare the "
    "answer with."
)
"""The reason of a run skipped because the ground truth gave no units."""


@dataclass(frozen=True)
class SimilarityWeights:
    """The credits and penalties of the score, each a number in ``[0, 1]`` (Mastra's defaults).

    Attributes:
        semantic_threshold: the credit of a ``semantic`` match (a ``partial`` one gets half),
            against ``1 + exact_match_bonus`` for an ``exact`` one.
        exact_match_bonus: the extra credit of an ``exact`` match.
        missing_penalty: subtracted from the credit for each ``missing`` unit.
        contradiction_penalty: subtracted from the 0–1 score for each contradiction.
        extra_info_penalty: subtracted from the 0–1 score for each item of extra information,
            at most :data:`EXTRA_INFO_CAP` in all.
    """

    semantic_threshold: float = 0.8
    exact_match_bonus: float = 0.2
    missing_penalty: float = 0.15
    contradiction_penalty: float = 1.0
    extra_info_penalty: float = 0.05


def answer_similarity_score(
    match_types: Sequence[MatchType],
    contradictions: int,
    extras: int,
    *,
    weights: SimilarityWeights | None = None,
    scale: float = 1.0,
) -> float:
    """Return the Answer Similarity score (formula in the module docstring).

    The arithmetic is done in Mastra's order, so the same labels give the same double.

    Args:
        match_types: the match type of each ground-truth unit.
        contradictions: how many contradictions the judge listed, ``>= 0``.
        extras: how many items of extra information the judge listed, ``>= 0``.
        weights: the credits and penalties (Mastra's defaults when ``None``).
        scale: the maximum score, ``> 0``.

    Returns:
        The score; 0 when there are no matches (Mastra's rule; the scorer itself skips such
        runs).

    Example:
        >>> answer_similarity_score(["exact", "semantic", "partial", "missing"], 0, 0)
        0.47
    """
    w = weights or SimilarityWeights()
    if not match_types:
        return 0.0
    credit = 0.0
    for match_type in match_types:
        if match_type == "exact":
            credit += 1.0 + w.exact_match_bonus
        elif match_type == "semantic":
            credit += w.semantic_threshold
        elif match_type == "partial":
            credit += w.semantic_threshold * 0.5
        else:
            credit -= w.missing_penalty
    score = credit / (len(match_types) * (1.0 + w.exact_match_bonus))
    score -= contradictions * w.contradiction_penalty
    score -= min(extras * w.extra_info_penalty, EXTRA_INFO_CAP)
    return round_to_two_decimals(max(0.0, min(1.0, score)) * scale)


# ---- the judge's replies -----------------------------------------------------------------


def _within(name: str, values: Sequence[str], limit: int | None) -> None:
    if limit is not None and len(values) > limit:
        raise ValueError(f"expected at most {limit} {name} for this text; got {len(values)}")


class SemanticUnits(JudgeReply):
    """The preprocess step's result: the semantic units of the answer and of the ground truth.

    Asked for with :func:`units_spec`, which bounds each list by its text's length.
    """

    output_units: list[str]
    """The answer's units, in order."""
    ground_truth_units: list[str]
    """The ground truth's units, in order."""

    @model_validator(mode="after")
    def _check_limits(self, info: ValidationInfo) -> SemanticUnits:
        limits = (info.context or {}).get(UNIT_LIMITS)
        if limits is not None:
            _within("output_units", self.output_units, limits[0])
            _within("ground_truth_units", self.ground_truth_units, limits[1])
        return self


@functools.lru_cache(maxsize=256)
def units_spec(output_limit: int, ground_truth_limit: int) -> SchemaSpec:
    """The preprocess step's schema: at most ``output_limit`` / ``ground_truth_limit`` units."""
    schema = SemanticUnits.model_json_schema()
    schema["properties"]["output_units"]["maxItems"] = output_limit
    schema["properties"]["ground_truth_units"]["maxItems"] = ground_truth_limit
    context = {UNIT_LIMITS: (output_limit, ground_truth_limit)}
    return SchemaSpec(SemanticUnits.__name__, schema, SemanticUnits, context).check()


Index = Annotated[StrictInt, Field(ge=0)]


class UnitMatch(JudgeReply):
    """How one ground-truth unit is found in the answer (the unit at the match's position)."""

    output_index: Index | None
    """The answer unit it matches, by number from 0; ``null`` when none does."""
    match_type: Annotated[MatchType, BeforeValidator(normalise_label)]
    """``exact``, ``semantic``, ``partial`` or ``missing``."""
    explanation: str
    """Why, in the language of the user's query."""
    ground_truth_unit: SkipJsonSchema[str] = ""
    """The ground-truth unit's text: our copy, filled in when the reply is validated."""
    output_unit: SkipJsonSchema[str | None] = None
    """The matched answer unit's text (our copy), or ``None``."""

    @model_validator(mode="after")
    def _missing_points_at_nothing(self) -> UnitMatch:
        if self.match_type == "missing" and self.output_index is not None:
            raise ValueError(
                f"a missing unit matches no answer unit: output_index must be null, not "
                f"{self.output_index}"
            )
        return self


class Contradiction(JudgeReply):
    """A ground-truth unit that the answer contradicts."""

    ground_truth_index: Index
    """The contradicted ground-truth unit, by number from 0."""
    output_index: Index | None
    """The answer unit that contradicts it, by number from 0 (``null`` if no single one)."""
    explanation: str
    """How they disagree, in the language of the user's query."""
    ground_truth_unit: SkipJsonSchema[str] = ""
    """The ground-truth unit's text: our copy, filled in when the reply is validated."""
    output_unit: SkipJsonSchema[str | None] = None
    """The contradicting answer unit's text (our copy), or ``None``."""


def _unit(units: Sequence[str], index: int | None, what: str) -> str | None:
    if index is None:
        return None
    if index >= len(units):
        raise ValueError(
            f"{what} {index} is out of range: there are {len(units)} units, numbered from 0"
        )
    return units[index]


class SimilarityAnalysis(JudgeReply):
    """The analyze step's result: one match per ground-truth unit, extras, contradictions.

    Validated with the schema of :func:`analysis_spec`: exactly one match per ground-truth unit,
    in unit order; indices in range; each ground-truth unit contradicted at most once. The
    texts of the units named are then filled in from the preprocess step's units.
    """

    matches: list[UnitMatch]
    """One match per ground-truth unit, in the ground truth's order."""
    extra_in_output: list[str]
    """Information in the answer that the ground truth does not have, briefly."""
    contradictions: list[Contradiction]
    """Where the answer contradicts the ground truth."""

    @model_validator(mode="after")
    def _check_and_name(self, info: ValidationInfo) -> SimilarityAnalysis:
        context = info.context or {}
        truth: tuple[str, ...] | None = context.get(GROUND_TRUTH_UNITS)
        answer: tuple[str, ...] | None = context.get(OUTPUT_UNITS)
        if truth is None or answer is None:
            return self
        if len(self.matches) != len(truth):
            raise ValueError(
                f"expected exactly {len(truth)} matches, one per ground-truth unit in the order "
                f"given; got {len(self.matches)}"
            )
        limit = context.get(EXTRA_LIMIT)
        if limit is not None and len(self.extra_in_output) > limit:
            raise ValueError(
                f"expected at most {limit} extra_in_output items; got {len(self.extra_in_output)}"
            )
        contradicted = [c.ground_truth_index for c in self.contradictions]
        if len(set(contradicted)) != len(contradicted):
            raise ValueError(
                f"each ground-truth unit may be contradicted once; got ground_truth_index "
                f"values {contradicted}"
            )
        for unit, match in zip(truth, self.matches, strict=True):
            match.ground_truth_unit = unit
            match.output_unit = _unit(answer, match.output_index, "output_index")
        for item in self.contradictions:
            item.ground_truth_unit = (
                _unit(truth, item.ground_truth_index, "ground_truth_index") or ""
            )
            item.output_unit = _unit(answer, item.output_index, "output_index")
        return self


def _index_schema(count: int, *, nullable: bool) -> dict[str, Any]:
    bounded: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": count - 1}
    if not nullable:
        return bounded
    return {"anyOf": [bounded, {"type": "null"}]} if count else {"type": "null"}


@functools.lru_cache(maxsize=256)
def analysis_spec(truth: tuple[str, ...], answer: tuple[str, ...], extra_limit: int) -> SchemaSpec:
    """The analyze step's schema for these units (cached).

    Args:
        truth: the ground truth's units (at least one).
        answer: the answer's units.
        extra_limit: the most items of extra information.
    """
    n, m = len(truth), len(answer)
    text = {"type": "string"}
    match = {
        "type": "object",
        "properties": {
            "output_index": _index_schema(m, nullable=True),
            "match_type": {"enum": ["exact", "semantic", "partial", "missing"]},
            "explanation": text,
        },
        "required": ["output_index", "match_type", "explanation"],
        "additionalProperties": False,
    }
    contradiction = {
        "type": "object",
        "properties": {
            "ground_truth_index": _index_schema(n, nullable=False),
            "output_index": _index_schema(m, nullable=True),
            "explanation": text,
        },
        "required": ["ground_truth_index", "output_index", "explanation"],
        "additionalProperties": False,
    }
    schema = {
        "title": SimilarityAnalysis.__name__,
        "type": "object",
        "properties": {
            "matches": {"type": "array", "items": match, "minItems": n, "maxItems": n},
            "extra_in_output": {"type": "array", "items": text, "maxItems": extra_limit},
            "contradictions": {"type": "array", "items": contradiction, "maxItems": n},
        },
        "required": ["matches", "extra_in_output", "contradictions"],
        "additionalProperties": False,
    }
    context = {GROUND_TRUTH_UNITS: truth, OUTPUT_UNITS: answer, EXTRA_LIMIT: extra_limit}
    return SchemaSpec(SimilarityAnalysis.__name__, schema, SimilarityAnalysis, context).check()


# ---- the factory --------------------------------------------------------------------------


def _has_ground_truth(run: ScorerRun) -> bool:
    return run.ground_truth is not None and bool(ground_truth_text(run.ground_truth).strip())


def _check_rate(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{field} must be a number, not {type(value).__name__}", field=field)
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise ConfigError(f"{field} must be a finite number in [0, 1], got {value!r}", field=field)
    return float(value)


def create_answer_similarity_scorer(
    *,
    model: str | JudgeModel | Judge,
    require_ground_truth: bool = True,
    semantic_threshold: float = 0.8,
    exact_match_bonus: float = 0.2,
    missing_penalty: float = 0.15,
    contradiction_penalty: float = 1.0,
    extra_info_penalty: float = 0.05,
    scale: float = 1.0,
) -> Scorer:
    """Create the Answer Similarity scorer: each run's output against its ``ground_truth``.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        require_ground_truth: whether a run without a ground truth (``None`` or a blank string)
            fails (``True``: the run ends in ``error``) or is ``skipped`` (``False``).
        semantic_threshold: the credit of a ``semantic`` match (``partial``: half of it), in
            ``[0, 1]``; default 0.8.
        exact_match_bonus: the extra credit of an ``exact`` match, in ``[0, 1]``; default 0.2.
        missing_penalty: subtracted per ``missing`` unit, in ``[0, 1]``; default 0.15.
        contradiction_penalty: subtracted from the 0–1 score per contradiction, in ``[0, 1]``;
            default 1.0 (Mastra's default constant; its comment says 0.3).
        extra_info_penalty: subtracted per item of extra information, in ``[0, 1]``, at most
            0.2 in all; default 0.05.
        scale: the maximum score, a finite number > 0.

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`SemanticUnits` and
        ``analyze_step_result`` a :class:`SimilarityAnalysis`. Three judge calls per run; an
        empty answer scores 0 without one; a ground truth in which the judge finds no units is
        ``skipped`` after the first.

    Raises:
        ConfigError: a weight or penalty that is not a finite number in ``[0, 1]``
            (row 35), a ``require_ground_truth`` that is not a bool, or a bad ``scale``.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> judge = ScriptedJudge([
        ...     {"output_units": ["Paris is the capital"], "ground_truth_units": ["Paris"]},
        ...     {"matches": [{"output_index": 0, "match_type": "semantic", "explanation": "same"}],
        ...      "extra_in_output": [], "contradictions": []},
        ...     "The score is 0.67 because ..."])
        >>> scorer = create_answer_similarity_scorer(model=judge)
        >>> scorer.run_sync(input="Capital of France?", output="Paris is the capital.",
        ...                 ground_truth="Paris").score
        0.67
    """
    required = check_flag(require_ground_truth, field="require_ground_truth")
    weights = SimilarityWeights(
        semantic_threshold=_check_rate(semantic_threshold, "semantic_threshold"),
        exact_match_bonus=_check_rate(exact_match_bonus, "exact_match_bonus"),
        missing_penalty=_check_rate(missing_penalty, "missing_penalty"),
        contradiction_penalty=_check_rate(contradiction_penalty, "contradiction_penalty"),
        extra_info_penalty=_check_rate(extra_info_penalty, "extra_info_penalty"),
    )
    scale = check_scale(scale)

    def answer_of(run: ScorerRun) -> str:
        return get_assistant_message(run.output) or ""

    def units_prompt(ctx: StepContext) -> str | LocalResult | NotScorable:
        if not _has_ground_truth(ctx.run):
            if required:
                raise ConfigError(
                    "Answer similarity requires a ground truth and this run has none; pass "
                    "require_ground_truth=False to skip such runs instead",
                    field="ground_truth",
                )
            return not_scorable(NO_GROUND_TRUTH_REASON)
        answer = answer_of(ctx.run)
        if not answer.strip():
            # an empty answer holds none of the ground truth: 0, no judge call (row 20)
            return local_result(SemanticUnits(output_units=[], ground_truth_units=[]))
        return prompts.units_prompt(answer, ground_truth_text(ctx.run.ground_truth))

    def units_schema(ctx: StepContext) -> SchemaSpec:
        return units_spec(
            item_limit(answer_of(ctx.run)), item_limit(ground_truth_text(ctx.run.ground_truth))
        )

    def units_of(ctx: StepContext) -> SemanticUnits:
        units: SemanticUnits = ctx.results.preprocess_step_result
        return units

    def analysis_prompt(ctx: StepContext) -> str | LocalResult | NotScorable:
        units = units_of(ctx)
        if not answer_of(ctx.run).strip():
            return local_result(
                SimilarityAnalysis(matches=[], extra_in_output=[], contradictions=[])
            )
        if not units.ground_truth_units:
            return not_scorable(NO_UNITS_REASON)
        return prompts.analysis_prompt(
            get_user_message(ctx.run.input) or "",
            units.ground_truth_units,
            units.output_units,
        )

    def analysis_schema(ctx: StepContext) -> SchemaSpec:
        units = units_of(ctx)
        return analysis_spec(
            tuple(units.ground_truth_units),
            tuple(units.output_units),
            item_limit(answer_of(ctx.run)),
        )

    def generate_score(ctx: StepContext) -> float:
        analysis: SimilarityAnalysis = ctx.results.analyze_step_result
        return answer_similarity_score(
            [m.match_type for m in analysis.matches],
            len(analysis.contradictions),
            len(analysis.extra_in_output),
            weights=weights,
            scale=scale,
        )

    def reason_prompt(ctx: StepContext) -> str | LocalResult:
        score = js_number_text(ctx.score or 0.0)
        analysis: SimilarityAnalysis = ctx.results.analyze_step_result
        if not analysis.matches:
            return local_result(
                f"The score is {score} because the answer is empty, so it holds none of the "
                "ground truth."
            )
        return prompts.reason_prompt(
            get_user_message(ctx.run.input) or "",
            score,
            js_number_text(scale),
            [
                f"{m.ground_truth_unit}: {m.match_type}"
                + (f" (answer: {m.output_unit})" if m.output_unit else "")
                for m in analysis.matches
            ],
            analysis.extra_in_output,
            [f"{c.ground_truth_unit}: {c.explanation}" for c in analysis.contradictions],
            (
                js_number_text(weights.missing_penalty),
                js_number_text(weights.contradiction_penalty),
                js_number_text(EXTRA_INFO_CAP),
            ),
        )

    return judged_scorer(
        SCORER_ID,
        name="Answer Similarity Scorer",
        description="How closely the answer matches the ground-truth answer",
        model=model,
        instructions=prompts.INSTRUCTIONS,
        preprocess=PromptStep(
            "Split the answer and the ground truth into semantic units",
            units_prompt,
            units_schema,
        ),
        analyze=PromptStep(
            "Match each ground-truth unit in the answer; list extras and contradictions",
            analysis_prompt,
            analysis_schema,
        ),
        score=generate_score,
        reason=PromptStep("Explain the score", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="answer-similarity",
    scorer_id=SCORER_ID,
    factory=create_answer_similarity_scorer,
    kind="llm",
    summary="How closely the answer matches the ground truth, unit by unit",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
