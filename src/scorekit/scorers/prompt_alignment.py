"""Prompt Alignment (LLM): how well a response follows the user prompt, the system prompt, or both.

Score range ``[0, scale]``; higher is better. A judge rates four aspects of the response, each
from 0 to 1: intent alignment (IA), requirements fulfillment (RF, the judge's
``overall_score``), completeness (C) and response appropriateness (RA). Then (Mastra evals
1.10.2 prompt-alignment; mastra-scorers.md §4.11)::

    user   = 0.4·IA + 0.3·RF + 0.2·C + 0.1·RA
    system = 0.35·IA + 0.35·RF + 0.15·C + 0.15·RA
    both   = 0.7·user + 0.3·user                  (Mastra's "system part" is the user formula)
    score  = round2(weighted × scale)

``round2`` is Mastra's half-up rounding (:func:`scorekit.rounding.round_to_two_decimals`).
In ``both`` mode the judge is shown both prompts, so its four aspect scores already weigh the
system prompt; the user weights are kept, as Mastra computes them (parity, documented).

The user prompt is the first user message of the input, the system prompt every system message
of the input joined with a blank line (:func:`scorekit.inputs.messages.get_combined_system_prompt`),
the response the last assistant message with text. With ``include_conversation_history`` the
latest remembered messages of an agent run input are shown too, as context for referential
prompts (:func:`scorekit.inputs.messages.get_conversation_history`).

Divergences (docs/divergences.md): 1, 4 (``scale`` validated), 5, 10; row 43 (an aspect
score outside [0, 1] is a schema violation: repaired once, then ``error``; Mastra uses it
unclamped); row 44 (an unknown ``evaluation_mode`` is a ``ConfigError``; Mastra scores it
like ``both``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from scorekit.errors import ConfigError
from scorekit.inputs.messages import (
    get_assistant_message,
    get_combined_system_prompt,
    get_conversation_history,
    get_user_message,
)
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.pipeline import PromptStep, Scorer, ScorerRun, StepContext
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers import prompt_alignment_prompts as prompts
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.options import check_scale
from scorekit.scorers.replies import JudgeReply

__all__ = [
    "DEFAULT_HISTORY_MESSAGES",
    "ENTRY",
    "SCORER_ID",
    "SYSTEM_WEIGHTS",
    "USER_WEIGHTS",
    "AlignmentWeights",
    "Completeness",
    "EvaluationMode",
    "IntentAlignment",
    "PromptAlignmentAnalysis",
    "RequirementCheck",
    "RequirementsFulfillment",
    "ResponseAppropriateness",
    "create_prompt_alignment_scorer_llm",
    "prompt_alignment_score",
]

SCORER_ID = "prompt-alignment-scorer"
"""The scorer's stable id (Mastra's)."""

EvaluationMode = Literal["user", "system", "both"]
"""What the response is measured against: the user prompt, the system prompt, or both."""

DEFAULT_HISTORY_MESSAGES = 10
"""How many remembered messages ``include_conversation_history=True`` shows (Mastra's)."""

Fraction = Annotated[float, Field(ge=0, le=1)]
"""An aspect score; outside ``[0, 1]`` the reply is refused (row 43)."""


@dataclass(frozen=True)
class AlignmentWeights:
    """The weight of each aspect in the score; the four sum to 1."""

    intent: float
    """Intent alignment."""
    requirements: float
    """Requirements fulfillment (the judge's ``overall_score``)."""
    completeness: float
    """Completeness."""
    appropriateness: float
    """Response appropriateness."""


USER_WEIGHTS = AlignmentWeights(0.4, 0.3, 0.2, 0.1)
"""Weights of ``user`` mode, also used by ``both`` (Mastra 1.10.2)."""
SYSTEM_WEIGHTS = AlignmentWeights(0.35, 0.35, 0.15, 0.15)
"""Weights of ``system`` mode."""


class IntentAlignment(JudgeReply):
    """Whether the response serves the prompt's main purpose."""

    score: Fraction
    """0 (misses it) to 1 (serves it fully)."""
    primary_intent: str
    """The main purpose, in the judge's words."""
    is_addressed: bool
    """Whether the response serves it."""
    reasoning: str
    """Why, in the language of the user's prompt."""


class RequirementCheck(JudgeReply):
    """One explicit requirement of the prompt and whether the response meets it."""

    requirement: str
    """The requirement, as the judge states it (the judge finds them; there is no index)."""
    is_fulfilled: bool
    """Whether the response meets it."""
    reasoning: str
    """Why."""


class RequirementsFulfillment(JudgeReply):
    """The prompt's explicit requirements, checked one by one."""

    requirements: list[RequirementCheck]
    """Each requirement the judge found."""
    overall_score: Fraction
    """The share met, as the judge scores it (this is what the score uses, as in Mastra)."""


class Completeness(JudgeReply):
    """How fully the response covers what was asked."""

    score: Fraction
    """0 (severely incomplete) to 1 (complete)."""
    missing_elements: list[str]
    """What is missing."""
    reasoning: str
    """Why."""


class ResponseAppropriateness(JudgeReply):
    """Whether the response's format and tone fit what was asked."""

    score: Fraction
    """0 (inappropriate) to 1 (fits fully)."""
    format_alignment: bool
    """Whether the format fits."""
    tone_alignment: bool
    """Whether the tone fits."""
    reasoning: str
    """Why."""


class PromptAlignmentAnalysis(JudgeReply):
    """The analyze step's result: the four aspects and an overall assessment."""

    intent_alignment: IntentAlignment
    """Intent alignment (IA)."""
    requirements_fulfillment: RequirementsFulfillment
    """Requirements fulfillment (RF)."""
    completeness: Completeness
    """Completeness (C)."""
    response_appropriateness: ResponseAppropriateness
    """Response appropriateness (RA)."""
    overall_assessment: str
    """A summary of the alignment."""


def _weighted(ia: float, rf: float, c: float, ra: float, weights: AlignmentWeights) -> float:
    # Mastra's order of operations, so that the float is the same to the last bit
    return (
        ia * weights.intent
        + rf * weights.requirements
        + c * weights.completeness
        + ra * weights.appropriateness
    )


def prompt_alignment_score(
    intent: float,
    requirements: float,
    completeness: float,
    appropriateness: float,
    *,
    mode: EvaluationMode = "both",
    scale: float = 1.0,
) -> float:
    """Return the Prompt Alignment score (formula in the module docstring).

    Args:
        intent: the intent alignment score, in ``[0, 1]``.
        requirements: the requirements fulfillment ``overall_score``, in ``[0, 1]``.
        completeness: the completeness score, in ``[0, 1]``.
        appropriateness: the response appropriateness score, in ``[0, 1]``.
        mode: ``"user"``, ``"system"`` or ``"both"``.
        scale: the maximum score, ``> 0``.

    Example:
        >>> prompt_alignment_score(1, 1, 0.9, 1, mode="user")
        0.98
        >>> prompt_alignment_score(1, 1, 0.9, 1, mode="system")
        0.99
    """
    dims = (intent, requirements, completeness, appropriateness)
    if mode == "system":
        weighted = _weighted(*dims, SYSTEM_WEIGHTS)
    elif mode == "user":
        weighted = _weighted(*dims, USER_WEIGHTS)
    else:
        user = _weighted(*dims, USER_WEIGHTS)
        weighted = 0.7 * user + 0.3 * user  # Mastra's placeholder "system part" is the user score
    return round_to_two_decimals(weighted * scale)


def _analysis_score(analysis: PromptAlignmentAnalysis, mode: EvaluationMode, scale: float) -> float:
    return prompt_alignment_score(
        analysis.intent_alignment.score,
        analysis.requirements_fulfillment.overall_score,
        analysis.completeness.score,
        analysis.response_appropriateness.score,
        mode=mode,
        scale=scale,
    )


def _check_mode(value: Any) -> EvaluationMode:
    allowed = get_args(EvaluationMode)
    if value in allowed:
        return value  # type: ignore[no-any-return]
    close = difflib.get_close_matches(str(value).lower(), allowed, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"evaluation_mode must be 'user', 'system' or 'both', got {value!r}{hint}",
        field="evaluation_mode",
    )


def _history_size(value: Any) -> int | None:
    """The number of remembered messages to show, or ``None`` for no history."""
    field = "include_conversation_history"
    if isinstance(value, bool):
        return DEFAULT_HISTORY_MESSAGES if value else None
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"{field} must be true, false or {{'max_messages': n}}, got {value!r}", field=field
        )
    unknown = [key for key in value if key != "max_messages"]
    if unknown:
        hint = "; did you mean 'max_messages'?" if "maxMessages" in unknown else ""
        raise ConfigError(f"{field} has unknown key(s) {unknown!r}{hint}", field=field)
    size = value.get("max_messages", DEFAULT_HISTORY_MESSAGES)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ConfigError(
            f"{field}.max_messages must be an integer >= 0, got {size!r}",
            field=f"{field}.max_messages",
        )
    return size


@dataclass(frozen=True)
class _Texts:
    user: str
    system: str
    response: str


def _texts(run: ScorerRun, mode: EvaluationMode) -> _Texts:
    """The run's texts, checked as Mastra checks them (an error, not a skip: corpus README)."""
    texts = _Texts(
        get_user_message(run.input) or "",
        get_combined_system_prompt(run.input),
        get_assistant_message(run.output) or "",
    )
    if mode == "user" and not texts.user:
        raise ConfigError("user mode needs a user prompt in the input", field="input")
    if mode == "system" and not texts.system:
        raise ConfigError("system mode needs a system prompt in the input", field="input")
    if mode == "both" and not texts.user and not texts.system:
        raise ConfigError("both mode needs a user or a system prompt in the input", field="input")
    if not texts.response:
        raise ConfigError("there is no agent response to assess", field="output")
    return texts


def _breakdown(analysis: PromptAlignmentAnalysis, mode: EvaluationMode) -> list[str]:
    weights = SYSTEM_WEIGHTS if mode == "system" else USER_WEIGHTS
    intent, reqs = analysis.intent_alignment, analysis.requirements_fulfillment
    done = sum(1 for r in reqs.requirements if r.is_fulfilled)
    checks = "; ".join(
        f"{r.requirement}: {'met' if r.is_fulfilled else 'not met'}" for r in reqs.requirements
    )
    missing = ", ".join(analysis.completeness.missing_elements) or "nothing"
    fit = analysis.response_appropriateness
    return [
        f"intent alignment ({js_number_text(weights.intent)}): {js_number_text(intent.score)}; "
        f'primary intent "{intent.primary_intent}", '
        f"{'addressed' if intent.is_addressed else 'not addressed'}; {intent.reasoning}",
        f"requirements fulfillment ({js_number_text(weights.requirements)}): "
        f"{js_number_text(reqs.overall_score)}; {done} of {len(reqs.requirements)} met"
        + (f" ({checks})" if checks else ""),
        f"completeness ({js_number_text(weights.completeness)}): "
        f"{js_number_text(analysis.completeness.score)}; missing: {missing}; "
        f"{analysis.completeness.reasoning}",
        f"response appropriateness ({js_number_text(weights.appropriateness)}): "
        f"{js_number_text(fit.score)}; format {'fits' if fit.format_alignment else 'does not fit'},"
        f" tone {'fits' if fit.tone_alignment else 'does not fit'}; {fit.reasoning}",
    ]


def create_prompt_alignment_scorer_llm(
    *,
    model: str | JudgeModel | Judge,
    scale: float = 1.0,
    evaluation_mode: EvaluationMode = "both",
    include_conversation_history: bool | Mapping[str, int] = False,
) -> Scorer:
    """Create the Prompt Alignment (LLM) scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        scale: the maximum score, a finite number > 0.
        evaluation_mode: ``"user"`` (the user prompt), ``"system"`` (the system prompt) or
            ``"both"`` (default, as in Mastra).
        include_conversation_history: ``False`` (default), ``True`` (the latest 10 remembered
            messages of an agent run input), or ``{"max_messages": n}`` (the latest ``n``;
            0 shows none). The judge uses them only to read referential prompts.

    Returns:
        A scorer with ``analyze_step_result`` a :class:`PromptAlignmentAnalysis` and a reason
        written by the judge (two judge calls per run). A run fails (``ScorerRunError``, status
        ``error``) when the prompt its mode needs is missing (user mode: no user message;
        system mode: no system message; both: neither) or the response is empty, as in Mastra.

    Raises:
        ConfigError: a bad ``scale``, an unknown ``evaluation_mode`` (row 44), or a bad
            ``include_conversation_history``.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> reply = {"intent_alignment": {"score": 1, "primary_intent": "greet",
        ...     "is_addressed": True, "reasoning": "r"},
        ...     "requirements_fulfillment": {"requirements": [], "overall_score": 1},
        ...     "completeness": {"score": 0.5, "missing_elements": ["a name"], "reasoning": "r"},
        ...     "response_appropriateness": {"score": 1, "format_alignment": True,
        ...     "tone_alignment": True, "reasoning": "r"}, "overall_assessment": "fine"}
        >>> scorer = create_prompt_alignment_scorer_llm(
        ...     model=ScriptedJudge([reply, "The score is 0.9 because ..."]),
        ...     evaluation_mode="user")
        >>> scorer.run_sync(input="Greet me by name", output="Hello!").score
        0.9
    """
    scale = check_scale(scale)
    mode = _check_mode(evaluation_mode)
    history_size = _history_size(include_conversation_history)

    def analyze_prompt(ctx: StepContext) -> str:
        texts = _texts(ctx.run, mode)
        history = (
            get_conversation_history(ctx.run.input, max_messages=history_size)
            if history_size is not None
            else None
        )
        return prompts.analyze_prompt(mode, texts.user, texts.system, texts.response, history)

    def generate_score(ctx: StepContext) -> float:
        analysis: PromptAlignmentAnalysis = ctx.results.analyze_step_result
        return _analysis_score(analysis, mode, scale)

    def reason_prompt(ctx: StepContext) -> str:
        analysis: PromptAlignmentAnalysis = ctx.results.analyze_step_result
        return prompts.reason_prompt(
            mode,
            get_user_message(ctx.run.input) or "",
            get_combined_system_prompt(ctx.run.input),
            js_number_text(_analysis_score(analysis, mode, scale)),
            js_number_text(scale),
            _breakdown(analysis, mode),
            analysis.overall_assessment,
        )

    return judged_scorer(
        SCORER_ID,
        name="Prompt Alignment (LLM)",
        description="How well the response follows the user's prompt and/or the system prompt",
        model=model,
        instructions=prompts.INSTRUCTIONS,
        analyze=PromptStep(
            "Rate intent, requirements, completeness and appropriateness",
            analyze_prompt,
            PromptAlignmentAnalysis,
        ),
        score=generate_score,
        reason=PromptStep("Explain the score", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="prompt-alignment",
    scorer_id=SCORER_ID,
    factory=create_prompt_alignment_scorer_llm,
    kind="llm",
    summary="How well the response follows the user's prompt, the system prompt, or both",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
