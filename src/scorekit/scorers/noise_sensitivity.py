"""Noise Sensitivity (LLM): how well an agent's answer holds up when noise is added to the query.

Score range ``[0, 1]`` (no ``scale`` option, as in Mastra); higher is better. The run's input
is the original (clean) query and its output the agent's answer to the *noisy* query; the
factory gets the agent's answer to the clean query (``baseline_response``) and the noisy query
itself. The judge compares the two answers on five dimensions (content accuracy, completeness,
relevance, consistency, hallucination resistance), rating the noise's impact on each
``none`` / ``minimal`` / ``moderate`` / ``significant`` / ``severe``, lists the major issues it
caused and gives a robustness score. Then (Mastra evals 1.10.2 noise-sensitivity, spec
mastra-scorers.md §4.10)::

    s = clamp(robustness_score, 0, 1)
    if there are rated dimensions:
        calculated = Σ impact_weights[level] / #dimensions      (left to right, as JS adds)
        if |s − calculated| > discrepancy_threshold:  s = min(s, calculated)
    s = max(0, s − min(#major_issues × major_issue_per_item, max_major_issue_penalty))
    score = round2(s)

Impact weights default to none 1.0, minimal 0.85, moderate 0.6, significant 0.3, severe 0.1;
the penalties to 0.1 per major issue, capped at 0.3; the threshold to 0.2. The comparison is on
the raw doubles (``|0.8 − 0.6| = 0.20000000000000007`` exceeds 0.2; ``|0.8 − 1.0|`` does not).
``round2`` is Mastra's half-up rounding (:func:`scorekit.rounding.round_to_two_decimals`).

A reply that rates fewer than five dimensions is scored as Mastra scores it (over the rated
ones; with none, the judge's robustness score alone, clamped and penalised): the robustness
score is the judge's own measurement, which the dimensions only cap.

Divergences (docs/divergences.md): 1 (each scoring value defaults on its own, at every level),
5, 6 (labels trimmed and lower-cased), 10, 23 (impact levels and dimension names are closed
sets), row 45 (each dimension is one of the five names and appears at most once; Mastra
accepts any dimension string, any number of times), row 46 (scoring values are validated:
numbers in [0, 1], unknown keys refused).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BeforeValidator, Field, model_validator
from pydantic.alias_generators import to_snake

from scorekit.errors import ConfigError
from scorekit.inputs.messages import get_assistant_message, get_user_message
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.pipeline import PromptStep, Scorer, StepContext
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers import noise_sensitivity_prompts as prompts
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.replies import JudgeReply, normalise_label

__all__ = [
    "ENTRY",
    "SCORER_ID",
    "Dimension",
    "ImpactLevel",
    "ImpactWeights",
    "NoiseAnalysis",
    "NoiseDimension",
    "NoisePenalties",
    "NoiseScoring",
    "create_noise_sensitivity_scorer_llm",
    "noise_sensitivity_score",
]

SCORER_ID = "noise-sensitivity-scorer"
"""The scorer's stable id (Mastra's)."""

ImpactLevel = Literal["none", "minimal", "moderate", "significant", "severe"]
"""How much the noise changed one dimension of the answer."""

Dimension = Literal[
    "content_accuracy", "completeness", "relevance", "consistency", "hallucination_resistance"
]
"""The dimensions the judge rates (:data:`noise_sensitivity_prompts.DIMENSION_NAMES`)."""


@dataclass(frozen=True)
class ImpactWeights:
    """The weight of each impact level in the calculated score, each in ``[0, 1]``."""

    none: float = 1.0
    minimal: float = 0.85
    moderate: float = 0.6
    significant: float = 0.3
    severe: float = 0.1

    def of_level(self, level: ImpactLevel) -> float:
        """The weight of ``level``."""
        weight: float = getattr(self, level)
        return weight


@dataclass(frozen=True)
class NoisePenalties:
    """The penalty for the major issues the judge names, each in ``[0, 1]``."""

    major_issue_per_item: float = 0.1
    """Subtracted once per major issue."""
    max_major_issue_penalty: float = 0.3
    """Cap on the total major-issue penalty."""


D = TypeVar("D", ImpactWeights, NoisePenalties)


def _rates(cls: type[D], value: D | Mapping[str, Any] | None, field: str) -> D:
    """Validate one nested group of numbers; absent keys keep their defaults."""
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError(f"{field} must be a mapping, not {type(value).__name__}", field=field)
    known = [f.name for f in fields(cls)]
    checked: dict[str, float] = {}
    for key, rate in value.items():
        if key not in known:
            close = difflib.get_close_matches(to_snake(str(key)), known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"unknown key {key!r} in {field}{hint} Known keys: {', '.join(known)}",
                field=field,
            )
        checked[key] = _unit_number(rate, f"{field}.{key}")
    return cls(**checked)


def _unit_number(value: Any, field: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise ConfigError(f"{field} must be a number in [0, 1], got {value!r}", field=field)
    return float(value)


@dataclass(frozen=True)
class NoiseScoring:
    """The scoring settings (Mastra's ``scoring`` option, snake_cased at every level)."""

    impact_weights: ImpactWeights = ImpactWeights()
    """The weight of each impact level."""
    penalties: NoisePenalties = NoisePenalties()
    """The major-issue penalty."""
    discrepancy_threshold: float = 0.2
    """How far the judge's robustness score may stray from the calculated one before the
    lower of the two is taken; in ``[0, 1]``."""

    @classmethod
    def of(cls, value: NoiseScoring | Mapping[str, Any] | None) -> NoiseScoring:
        """Validate the factory's ``scoring`` option; every absent key keeps its default.

        Raises:
            ConfigError: an unknown key (with a suggestion), or a value that is not a number
                in ``[0, 1]``.
        """
        if value is None:
            return cls()
        if isinstance(value, NoiseScoring):
            return value
        if not isinstance(value, Mapping):
            raise ConfigError(
                f"scoring must be a mapping, not {type(value).__name__}", field="scoring"
            )
        known = [f.name for f in fields(cls)]
        for key in value:
            if key not in known:
                close = difflib.get_close_matches(to_snake(str(key)), known, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ConfigError(
                    f"unknown key {key!r} in scoring{hint} Known keys: {', '.join(known)}",
                    field="scoring",
                )
        threshold = value.get("discrepancy_threshold")
        return cls(
            _rates(ImpactWeights, value.get("impact_weights"), "scoring.impact_weights"),
            _rates(NoisePenalties, value.get("penalties"), "scoring.penalties"),
            0.2 if threshold is None else _unit_number(threshold, "scoring.discrepancy_threshold"),
        )


Level = Annotated[ImpactLevel, BeforeValidator(normalise_label)]
DimensionName = Annotated[Dimension, BeforeValidator(normalise_label)]


class NoiseDimension(JudgeReply):
    """The judge's rating of one dimension."""

    dimension: DimensionName
    """Which dimension (normalised; one of the five)."""
    impact_level: Level
    """How much the noise changed it (normalised)."""
    specific_changes: str
    """What changed, in the language of the user's query."""
    noise_influence: str
    """How the noise caused it."""


class NoiseAnalysis(JudgeReply):
    """The analyze step's result."""

    dimensions: list[NoiseDimension] = Field(max_length=5)
    """The rated dimensions, each at most once (row 45)."""
    overall_assessment: str
    """The judge's overall view."""
    major_issues: list[str] = Field(default_factory=list)
    """The serious problems the noise caused (``[]`` when the judge left the key out: row
    106)."""
    robustness_score: Annotated[float, Field(allow_inf_nan=False, ge=0, le=1)]
    """The judge's robustness score in ``[0, 1]``; another value is repaired, then fails (row
    71: Mastra clamps it)."""

    @model_validator(mode="after")
    def _each_dimension_once(self) -> NoiseAnalysis:
        names = [d.dimension for d in self.dimensions]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError("rate each dimension at most once; repeated: " + ", ".join(repeated))
        return self


def noise_sensitivity_score(
    levels: Sequence[ImpactLevel],
    robustness_score: float,
    major_issues: int = 0,
    *,
    scoring: NoiseScoring | None = None,
) -> float:
    """Return the robustness score (formula in the module docstring).

    Args:
        levels: the impact level of each rated dimension (may be empty).
        robustness_score: the judge's score (clamped to ``[0, 1]``).
        major_issues: how many major issues the judge named.
        scoring: the weights, penalties and threshold; the defaults when ``None``.

    Example:
        >>> noise_sensitivity_score(["minimal", "none", "minimal", "minimal", "none"], 0.85)
        0.85
        >>> noise_sensitivity_score(["moderate"] * 5, 0.8)  # |0.8 - 0.6| > 0.2 on doubles
        0.6
        >>> noise_sensitivity_score(["none"] * 5, 1.0, major_issues=5)
        0.7
    """
    rules = scoring or NoiseScoring()
    score = min(1.0, max(0.0, robustness_score))
    if levels:
        total = 0.0
        for level in levels:  # left to right, as JavaScript's reduce adds (not math.fsum)
            total += rules.impact_weights.of_level(level)
        calculated = total / len(levels)
        if abs(score - calculated) > rules.discrepancy_threshold:
            score = min(score, calculated)
    penalty = min(
        major_issues * rules.penalties.major_issue_per_item,
        rules.penalties.max_major_issue_penalty,
    )
    return round_to_two_decimals(max(0.0, score - penalty))


def _optional_text(value: Any, field: str) -> str | None:
    """A string option; ``None`` when it is absent or blank."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{field} must be a string, not {type(value).__name__}", field=field)
    return value


def _required_text(value: Any, field: str) -> str:
    text = _optional_text(value, field)
    if text is None:
        raise ConfigError(
            f"{field} is required: Noise Sensitivity compares the agent's answer to the noisy "
            "query with its answer to the clean one (baseline_response), so both "
            "baseline_response and noisy_query must be non-empty strings",
            field=field,
        )
    return text


def create_noise_sensitivity_scorer_llm(
    *,
    model: str | JudgeModel | Judge,
    baseline_response: str | None = None,
    noisy_query: str | None = None,
    noise_type: str | None = None,
    scoring: NoiseScoring | Mapping[str, Any] | None = None,
) -> Scorer:
    """Create the Noise Sensitivity (LLM) scorer.

    Run it with ``input`` = the original (clean) query and ``output`` = the agent's answer to
    ``noisy_query``.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        baseline_response: the agent's answer to the clean query (required, non-empty).
        noisy_query: the query with noise added (required, non-empty).
        noise_type: what kind of noise was added (``"misinformation"``, ``"distractor"`` ...),
            shown to the judge; optional.
        scoring: any of ``impact_weights`` (a mapping of ``none`` / ``minimal`` /
            ``moderate`` / ``significant`` / ``severe`` to weights; defaults 1.0, 0.85, 0.6,
            0.3, 0.1), ``penalties`` (``major_issue_per_item`` 0.1,
            ``max_major_issue_penalty`` 0.3) and ``discrepancy_threshold`` (0.2); every value
            a number in ``[0, 1]``, every absent key (at any level) keeps its default.

    Returns:
        A scorer with two judge calls per run: ``analyze_step_result`` is a
        :class:`NoiseAnalysis`, ``preprocess_step_result`` is ``None``, and the reason is the
        judge's. A run whose input has no user message or whose output has no answer fails
        (``ScorerRunError``, a ``ConfigError`` naming ``input`` or ``output`` as the cause),
        as in Mastra; a reply that fails its schema is sent back once, then the run fails.

    Raises:
        ConfigError: ``baseline_response`` or ``noisy_query`` missing or blank; a bad
            ``noise_type``, ``scoring`` value or ``model``.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> judge = ScriptedJudge([{"dimensions": [{"dimension": "relevance",
        ...     "impact_level": "minimal", "specific_changes": "one aside",
        ...     "noise_influence": "a short reply to the noise"}],
        ...     "overall_assessment": "robust", "robustness_score": 0.9},
        ...     "The score is 0.9 because the noise drew only a short aside."])
        >>> scorer = create_noise_sensitivity_scorer_llm(model=judge,
        ...     baseline_response="Paris.", noisy_query="Capital of France? Also, cats rule.")
        >>> scorer.run_sync(input="Capital of France?", output="Paris.").score
        0.9
    """
    baseline = _required_text(baseline_response, "baseline_response")
    noisy = _required_text(noisy_query, "noisy_query")
    kind = _optional_text(noise_type, "noise_type")
    rules = NoiseScoring.of(scoring)

    def analyze_prompt(ctx: StepContext) -> str:
        query = get_user_message(ctx.run.input) or ""
        if not query.strip():
            raise ConfigError(
                "Noise Sensitivity needs the original query: the run's input has no user message",
                field="input",
            )
        answer = get_assistant_message(ctx.run.output) or ""
        if not answer.strip():
            raise ConfigError(
                "Noise Sensitivity needs the agent's answer to the noisy query: the run's "
                "output has no assistant text",
                field="output",
            )
        return prompts.analyze_prompt(query, baseline, noisy, answer, kind)

    def generate_score(ctx: StepContext) -> float:
        analysis: NoiseAnalysis = ctx.results.analyze_step_result
        return noise_sensitivity_score(
            [d.impact_level for d in analysis.dimensions],
            analysis.robustness_score,
            len(analysis.major_issues),
            scoring=rules,
        )

    def reason_prompt(ctx: StepContext) -> str:
        analysis: NoiseAnalysis = ctx.results.analyze_step_result
        return prompts.reason_prompt(
            get_user_message(ctx.run.input) or "",
            js_number_text(ctx.score or 0.0),
            [
                f"{d.dimension}: {d.impact_level} ({d.specific_changes})"
                for d in analysis.dimensions
            ],
            analysis.major_issues,
            analysis.overall_assessment,
        )

    return judged_scorer(
        SCORER_ID,
        name="Noise Sensitivity (LLM)",
        description="How well the answer holds up when noise is added to the query",
        model=model,
        instructions=prompts.INSTRUCTIONS,
        analyze=PromptStep(
            "Compare the noisy answer with the baseline, dimension by dimension",
            analyze_prompt,
            NoiseAnalysis,
        ),
        score=generate_score,
        reason=PromptStep("Explain the score", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="noise-sensitivity",
    scorer_id=SCORER_ID,
    factory=create_noise_sensitivity_scorer_llm,
    kind="llm",
    summary="How well the answer holds up when noise is added to the query (higher is better)",
    required=("baseline_response", "noisy_query"),
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
