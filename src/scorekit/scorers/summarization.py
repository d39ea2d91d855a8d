"""Summarization (LLM): whether a summary is faithful to its source and covers what it says.

Score range ``[0, scale]``; higher is better. Two axes, and the score is the weaker one, so a
summary cannot pass by being faithful but empty, or thorough but wrong (Mastra evals 1.10.2
summarization; spec §4.13):

* **alignment**: a judge that sees the source lists the summary's atomic claims and marks each
  ``supported`` or not (dates, figures and names must match exactly);
* **coverage**: the same call draws up to ``max_questions`` closed questions from the source,
  each answered "yes" by it, most important first; a second call, which never sees the source,
  marks each of the first ``Q = min(#questions, max_questions)`` ``answered`` from the summary
  alone.

Then::

    alignment = #supported / #claims
    coverage  = #answered / Q
    score     = round2(min(alignment, coverage) × scale)

``round2`` is Mastra's half-up rounding (:func:`scorekit.rounding.round_to_two_decimals`). The
source is ``source_extractor(input, output)`` when given, else ``source``, else the user's
message. The summary is the last assistant message with text.

Divergences (docs/divergences.md): 1, 4, 5, 10, 20 (an empty summary scores 0 without a judge
call; row 48), 26 (exactly one coverage verdict per question judged, by position: asked for
in the schema and checked; Mastra counts a missing verdict as unanswered and ignores extras;
row 49); row 47 (``max_questions`` is an integer ≥ 1; Mastra takes a fractional value as
the coverage denominator); row 50 (an empty source, a summary in which the judge finds no
claims, or a source from which it draws no questions, is ``skipped``; Mastra scores 0);
row 51 (``source_extractor`` is called for every run, once; a blank ``source`` is refused).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import StrictBool, ValidationInfo, model_validator
from pydantic.json_schema import SkipJsonSchema

from scorekit.errors import ConfigError
from scorekit.inputs.messages import get_assistant_message, get_user_message, message_text
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
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.options import check_scale
from scorekit.scorers.replies import CountedReply, JudgeReply, item_limit

__all__ = [
    "DEFAULT_MAX_QUESTIONS",
    "ENTRY",
    "SCORER_ID",
    "AlignmentVerdict",
    "Coverage",
    "CoverageVerdict",
    "SourceExtractor",
    "SourceJudgement",
    "SummaryAxes",
    "create_summarization_scorer",
    "summarization_score",
    "summary_axes",
]

SCORER_ID = "summarization-scorer"
"""The scorer's stable id (Mastra's)."""

DEFAULT_MAX_QUESTIONS = 10
"""How many coverage questions are judged at most (Mastra's default)."""

SourceExtractor = Callable[[Any, Any], str | Awaitable[str]]
"""``(input, output) -> str``, sync or async: the source text of one run."""

LIMITS = "list_limits"
"""The validation-context key holding the most claims and questions a reply may list."""
QUESTIONS = "questions"
"""The validation-context key holding the questions judged (our copy)."""

# The source resolved for the run being scored in this task: the preprocess prompt builder sets
# it and the step's schema function, called right after in the same task, reads it, so the
# extractor is called once per run (each concurrent run has its own asyncio task).
_SOURCE: ContextVar[tuple[ScorerRun, str] | None] = ContextVar(
    "scorekit_summarization_source", default=None
)

NO_SOURCE_REASON = "Summarization needs a source text to compare with; this run's source is empty."
"""The reason of a run skipped because its source resolved to blank text."""
NO_CLAIMS_REASON = (
    "The judge found no claims in the summary, so its alignment with the source cannot be measured."
)
"""The reason of a run skipped because the judge listed no claims of a non-empty summary."""
NO_QUESTIONS_REASON = (
    "The judge drew no questions from the source, so the summary's coverage cannot be measured."
)
"""The reason of a run skipped because the judge drew no questions from a non-empty source."""

INSTRUCTIONS = (
    "You assess summaries. You check each statement of a summary against its source text with "
    "strict attention to dates, figures, names and technical terms, and you check which of the "
    "source's key facts the summary preserves. You never fill a gap in the summary with what "
    "you know, and you answer exactly in the format asked for."
)
"""System instructions of the Summarization judge."""


# ---- the judge's replies -----------------------------------------------------------------


class AlignmentVerdict(JudgeReply):
    """One claim of the summary, judged against the source."""

    claim: str
    """The claim, as a self-contained statement."""
    supported: StrictBool
    """Whether the source states it (a JSON boolean; ``"true"`` is refused)."""
    reason: str
    """Why, in the language of the source."""


class SourceJudgement(JudgeReply):
    """The preprocess step's result: the summary's claims judged, and the source's questions.

    Asked for with a schema bounding each list by its text's length (a runaway guard); a reply
    may list more than ``max_questions`` questions, of which the first ``max_questions`` are
    judged (as in Mastra).
    """

    alignment: list[AlignmentVerdict]
    """The summary's claims, each judged against the source."""
    questions: list[str]
    """Closed questions the source answers "yes", most important first."""

    @model_validator(mode="after")
    def _check_limits(self, info: ValidationInfo) -> SourceJudgement:
        limits = (info.context or {}).get(LIMITS)
        if limits is None:
            return self
        for name, limit in (("alignment", limits[0]), ("questions", limits[1])):
            got = len(getattr(self, name))
            if got > limit:
                raise ValueError(f"expected at most {limit} {name} items for this text; got {got}")
        return self


@functools.lru_cache(maxsize=256)
def _judgement_spec(claim_limit: int, question_limit: int) -> SchemaSpec:
    schema = SourceJudgement.model_json_schema()
    schema["properties"]["alignment"]["maxItems"] = claim_limit
    schema["properties"]["questions"]["maxItems"] = question_limit
    context = {LIMITS: (claim_limit, question_limit)}
    return SchemaSpec(SourceJudgement.__name__, schema, SourceJudgement, context).check()


class CoverageVerdict(JudgeReply):
    """Whether the summary answers one question (the question at the verdict's position)."""

    answered: StrictBool
    """Whether the summary alone answers the question "yes"."""
    reason: str
    """Why, in the language of the source."""
    question: SkipJsonSchema[str] = ""
    """The question: our copy, filled in when the reply is validated (an echo is replaced)."""


class Coverage(CountedReply):
    """The analyze step's result: one verdict per question judged, in question order."""

    ITEMS: ClassVar[str] = "coverage"
    ITEM_OF: ClassVar[str] = "question"

    coverage: list[CoverageVerdict]
    """One verdict per question judged."""

    @model_validator(mode="after")
    def _name_the_questions(self, info: ValidationInfo) -> Coverage:
        questions: tuple[str, ...] | None = (info.context or {}).get(QUESTIONS)
        if questions is not None and len(questions) == len(self.coverage):
            for question, verdict in zip(questions, self.coverage, strict=True):
                verdict.question = question
        return self


def _coverage_spec(questions: tuple[str, ...]) -> SchemaSpec:
    counted = Coverage.expecting(len(questions))
    context = {**(counted.validation_context or {}), QUESTIONS: questions}
    return SchemaSpec(counted.name, counted.json_schema, counted.model, context)


# ---- the formula --------------------------------------------------------------------------


@dataclass(frozen=True)
class SummaryAxes:
    """The two axes of a Summarization score, each in ``[0, 1]`` (unrounded).

    Attributes:
        alignment: ``#supported / #claims``.
        coverage: ``#answered / Q``.
    """

    alignment: float
    coverage: float


def summary_axes(supported: Sequence[bool], answered: Sequence[bool], judged: int) -> SummaryAxes:
    """Return both axes of a Summarization score.

    Args:
        supported: ``supported`` of each claim of the summary (at least one).
        answered: ``answered`` of each coverage verdict, by question position; as in Mastra, a
            verdict past the ``judged`` first is ignored and a missing one counts as unanswered
            (the scorer itself asks for exactly one per question).
        judged: ``Q``, the number of questions judged, ``>= 1``.

    Raises:
        ValueError: no claims, or ``judged < 1`` (nothing to measure: the scorer skips such
            runs rather than score them).

    Example:
        >>> summary_axes([True, True, False], [True, True], 2)
        SummaryAxes(alignment=0.6666666666666666, coverage=1.0)
    """
    if not supported or judged < 1:
        raise ValueError("summary axes need at least one claim and one question")
    alignment = min(1.0, sum(1 for s in supported if s) / len(supported))
    coverage = min(1.0, sum(1 for a in answered[:judged] if a) / judged)
    return SummaryAxes(alignment, coverage)


def summarization_score(axes: SummaryAxes, *, scale: float = 1.0) -> float:
    """Return ``round2(min(alignment, coverage) × scale)``.

    Example:
        >>> summarization_score(SummaryAxes(0.5, 1.0), scale=10)
        5.0
    """
    return round_to_two_decimals(min(axes.alignment, axes.coverage) * scale)


# ---- prompts (our own wording) --------------------------------------------------------------

_LANGUAGE = (
    "Write every reason in the language the source text is written in; keep JSON keys in "
    "English and write claims and questions in the language of their text."
)


def _judgement_prompt(source: str, summary: str, max_questions: int) -> str:
    return f"""Assess a summary against the source text it condenses. Do two separate tasks.

Source text:
{source}

Summary:
{summary}

Task 1, "alignment": list the summary's atomic claims (one fact each, self-contained, in the
order they appear) and mark each "supported": true only when the source states it or directly
implies it. Be strict: a date, number, name or technical term that differs from the source's, a
claim stronger or weaker than the source's (e.g. "always" for "often"), or a fact the source
does not contain is not supported. Give a one-sentence "reason" for each.

Task 2, "questions": write at most {max_questions} closed questions about the most important
facts of the SOURCE, most important first. The source must answer each one "yes". Ask about the
source only; do not let the summary decide what you ask. Each question names one fact precisely
enough to be checked ("Was Company Y founded in 2015?").

Example. Source: "Company Y was founded in Boston in 2015. Its first model reached 95% accuracy.
In 2018 it moved to Seattle." Summary: "Company Y, founded in Boston in 2015, built a model with
99% accuracy." Answer:
{{"alignment": [
  {{"claim": "Company Y was founded in Boston.", "supported": true, "reason": "The source says so."}},
  {{"claim": "Company Y was founded in 2015.", "supported": true, "reason": "The source gives 2015."}},
  {{"claim": "Company Y built a model with 99% accuracy.", "supported": false, "reason": "The source says 95%, not 99%."}}],
 "questions": ["Was Company Y founded in Boston in 2015?", "Did its first model reach 95% accuracy?",
  "Did Company Y move to Seattle in 2018?"]}}

{_LANGUAGE}

Answer with JSON only."""  # noqa: E501


def _coverage_prompt(summary: str, questions: Sequence[str]) -> str:
    numbered = "\n".join(f"{i + 1}. {q}" for i, q in enumerate(questions))
    return f"""Decide, for each question, whether the summary below answers it "yes".

Use only the summary: not what you know, and not what the original text may have said. A
question is answered only when the summary states the fact asked about, with the same dates,
figures and names; a vaguer or different statement does not answer it.

Summary:
{summary}

Questions ({len(questions)}):
{numbered}

Give exactly {len(questions)} verdicts, one per question, in the same order:
- "answered": true when the summary answers the question "yes", false otherwise;
- "reason": one sentence.
{_LANGUAGE}

Answer with JSON only: {{"coverage": [{{"answered": true, "reason": "..."}}]}}"""


def _reason_prompt(
    summary: str,
    score: str,
    scale: str,
    axes: SummaryAxes,
    unsupported: Sequence[str],
    unanswered: Sequence[str],
) -> str:
    claims = "\n".join(f"- {c}" for c in unsupported) or "- (none)"
    questions = "\n".join(f"- {q}" for q in unanswered) or "- (none)"
    return f"""Explain a summarization score to a developer in two or three sentences.

The score is the weaker of two axes: alignment (the share of the summary's claims the source
supports) and coverage (the share of the source's key questions the summary answers).

Summary:
{summary}

Alignment: {js_number_text(round_to_two_decimals(axes.alignment))}
Claims the source does not support:
{claims}

Coverage: {js_number_text(round_to_two_decimals(axes.coverage))}
Questions the summary does not answer:
{questions}

Score: {score} (0 is worst, {scale} is best)

Begin with "The score is {score} because", name the weaker axis, and say what the summary got
wrong or left out. Write in the language of the summary. Reply with the explanation only."""


# ---- the factory --------------------------------------------------------------------------


def _summary(output: Any) -> str:
    """The summary: the last assistant message with text (Mastra's rule), else ``""``."""
    if isinstance(output, list) and output and all(isinstance(m, Mapping) for m in output):
        texts = [message_text(m) for m in output if m.get("role") == "assistant"]
        found = [text for text in texts if text.strip()]
        if found:
            return found[-1]
    return get_assistant_message(output) or ""


def _check_max_questions(value: Any) -> int:
    integral = isinstance(value, numbers.Integral) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer()
    )
    if isinstance(value, bool) or not integral:
        raise ConfigError(
            f"max_questions must be a whole number >= 1, got {value!r}", field="max_questions"
        )
    if value < 1:
        raise ConfigError(f"max_questions must be at least 1, got {value!r}", field="max_questions")
    return int(value)


def create_summarization_scorer(
    *,
    model: str | JudgeModel | Judge,
    scale: float = 1.0,
    source: str | None = None,
    source_extractor: SourceExtractor | None = None,
    max_questions: int = DEFAULT_MAX_QUESTIONS,
) -> Scorer:
    """Create the Summarization scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        scale: the maximum score, a finite number > 0.
        source: the text summaries are judged against, the same for every run (non-blank);
            without it, each run's user message is the source.
        source_extractor: ``(input, output) -> str``, sync or async, giving each run's source;
            called once per run, and it wins over ``source``.
        max_questions: how many of the source's questions are judged at most, a whole number
            ``>= 1`` (default 10; row 47).

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`SourceJudgement` and
        ``analyze_step_result`` a :class:`Coverage`. Three judge calls per run. A run whose
        source is blank is ``skipped`` without a judge call; an empty summary scores 0 without
        one; a run where the judge lists no claims of the summary or no questions of the source
        is ``skipped`` after the first.

    Raises:
        ConfigError: a bad ``scale`` or ``max_questions``; a ``source`` that is not a string or
            is blank; a ``source_extractor`` that is not callable (or, during a run, returns
            something other than a string).

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> judge = ScriptedJudge([
        ...     {"alignment": [{"claim": "Y began in 2015.", "supported": True, "reason": "ok"}],
        ...      "questions": ["Was Y founded in 2015?", "Did Y move to Seattle?"]},
        ...     {"coverage": [{"answered": True, "reason": "stated"},
        ...                   {"answered": False, "reason": "absent"}]},
        ...     "The score is 0.5 because ..."])
        >>> scorer = create_summarization_scorer(model=judge)
        >>> scorer.run_sync(input="Y was founded in 2015 and moved to Seattle in 2018.",
        ...                 output="Y began in 2015.").score
        0.5
    """
    scale = check_scale(scale)
    limit = _check_max_questions(max_questions)
    if source is not None:
        if not isinstance(source, str):
            raise ConfigError(
                f"source must be a string, not {type(source).__name__}", field="source"
            )
        if not source.strip():
            raise ConfigError("source cannot be blank if given", field="source")
    if source_extractor is not None and not callable(source_extractor):
        raise ConfigError(
            "source_extractor must be a function (input, output) -> str", field="source_extractor"
        )

    async def source_of(run: ScorerRun) -> str:
        if source_extractor is None:
            return source if source is not None else get_user_message(run.input) or ""
        value = source_extractor(run.input, run.output)
        if inspect.isawaitable(value):
            value = await value
        if not isinstance(value, str):
            raise ConfigError(
                f"source_extractor must return a string, not {type(value).__name__}",
                field="source_extractor",
            )
        return value

    async def judgement_prompt(ctx: StepContext) -> str | LocalResult | NotScorable:
        text = await source_of(ctx.run)
        if not text.strip():
            return not_scorable(NO_SOURCE_REASON)
        summary = _summary(ctx.run.output)
        if not summary.strip():
            # an empty summary preserves nothing of a source: 0, no judge call (row 20)
            return local_result(SourceJudgement(alignment=[], questions=[]))
        _SOURCE.set((ctx.run, text))
        return _judgement_prompt(text, summary, limit)

    def judgement_schema(ctx: StepContext) -> SchemaSpec:
        # the prompt builder resolved this run's source just before (the extractor runs once)
        remembered = _SOURCE.get()
        text = remembered[1] if remembered is not None and remembered[0] is ctx.run else ""
        return _judgement_spec(item_limit(_summary(ctx.run.output)), item_limit(text))

    def judged_questions(ctx: StepContext) -> tuple[str, ...]:
        judgement: SourceJudgement = ctx.results.preprocess_step_result
        return tuple(judgement.questions[:limit])

    def coverage_prompt(ctx: StepContext) -> str | LocalResult | NotScorable:
        judgement: SourceJudgement = ctx.results.preprocess_step_result
        summary = _summary(ctx.run.output)
        if not summary.strip():
            return local_result(Coverage(coverage=[]))
        if not judgement.alignment:
            return not_scorable(NO_CLAIMS_REASON)
        if not judgement.questions:
            return not_scorable(NO_QUESTIONS_REASON)
        return _coverage_prompt(summary, judged_questions(ctx))

    def coverage_schema(ctx: StepContext) -> SchemaSpec:
        return _coverage_spec(judged_questions(ctx))

    def axes_of(ctx: StepContext) -> SummaryAxes:
        judgement: SourceJudgement = ctx.results.preprocess_step_result
        coverage: Coverage = ctx.results.analyze_step_result
        return summary_axes(
            [v.supported for v in judgement.alignment],
            [v.answered for v in coverage.coverage],
            len(judged_questions(ctx)),
        )

    def generate_score(ctx: StepContext) -> float:
        judgement: SourceJudgement = ctx.results.preprocess_step_result
        if not judgement.alignment:  # the empty summary: nothing of the source preserved
            return 0.0
        return summarization_score(axes_of(ctx), scale=scale)

    def reason_prompt(ctx: StepContext) -> str | LocalResult:
        score = js_number_text(ctx.score or 0.0)
        judgement: SourceJudgement = ctx.results.preprocess_step_result
        if not judgement.alignment:
            return local_result(f"The score is {score} because the summary is empty.")
        coverage: Coverage = ctx.results.analyze_step_result
        return _reason_prompt(
            _summary(ctx.run.output),
            score,
            js_number_text(scale),
            axes_of(ctx),
            [v.claim for v in judgement.alignment if not v.supported],
            [v.question for v in coverage.coverage if not v.answered],
        )

    return judged_scorer(
        SCORER_ID,
        name="Summarization Scorer",
        description="Whether a summary is faithful to its source and covers its key facts",
        model=model,
        instructions=INSTRUCTIONS,
        preprocess=PromptStep(
            "Judge the summary's claims against the source; draw questions from the source",
            judgement_prompt,
            judgement_schema,
        ),
        analyze=PromptStep(
            "Answer the source's questions from the summary alone",
            coverage_prompt,
            coverage_schema,
        ),
        score=generate_score,
        reason=PromptStep("Explain which axis set the score", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="summarization",
    scorer_id=SCORER_ID,
    factory=create_summarization_scorer,
    kind="llm",
    summary="The weaker of a summary's alignment with its source and its coverage of it",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
