"""Faithfulness (LLM): how much of what the answer claims is supported by the context.

Score range ``[0, scale]``; higher is better. A judge extracts the answer's claims (factual and
speculative; questions and commands excluded), then rates each against the context: ``yes``
(supported), ``no`` (contradicted) or ``unsure`` (not covered). Then (Mastra evals 1.10.2
faithfulness)::

    score = round2(#yes / #verdicts × scale)      (0 when there are no verdicts)

``unsure`` counts as unsupported. The context is the ``context`` option, else the run's own
context (``scorer.run(context=...)``, an item's context in ``run_evals``), else the results of
the completed tool calls in the output (:func:`scorekit.context.tool_result_context`).

Divergences (docs/divergences.md): 1, 4, 5, 6 (labels trimmed and lower-cased — Mastra counts only
an exact ``"yes"``; other labels are refused), 7 (no context: ``skipped`` without a judge call),
10, 20 (an empty answer has no claims: score 0 without a judge call), 23, 24 (tool results recorded
as message parts are read too), 25 (an empty ``context`` list is refused), 26 (one verdict per
claim: asked for in the schema and checked).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from scorekit.context import ContextSource, tool_result_context
from scorekit.judge.judge import Judge, to_judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.messages import get_assistant_message, get_user_message
from scorekit.options import check_scale
from scorekit.pipeline import (
    LocalResult,
    NotScorable,
    PromptStep,
    Scorer,
    StepContext,
    create_scorer,
    local_result,
    not_scorable,
)
from scorekit.rounding import format_score, round_to_two_decimals
from scorekit.scorers.answer_claims import answer_claims_schema, answer_claims_step
from scorekit.scorers.replies import (
    LANGUAGE_RULE,
    Claims,
    CountedReply,
    JudgeReply,
    YesNoUnsure,
)

__all__ = [
    "SCORER_ID",
    "FaithfulnessVerdict",
    "FaithfulnessVerdicts",
    "create_faithfulness_scorer",
    "faithfulness_score",
]

SCORER_ID = "faithfulness-scorer"
"""The scorer's stable id (Mastra's)."""

INSTRUCTIONS = (
    "You check whether an AI answer is faithful to the context it was given. You judge only "
    "against that context, never against your own knowledge, and answer exactly in the format "
    "asked for."
)
"""System instructions of the Faithfulness judge."""

NO_CONTEXT_REASON = "No context to check the answer against: no context option, no tool results."
"""The reason of a ``skipped`` result (divergences.md row 7)."""


class FaithfulnessVerdict(JudgeReply):
    """The judge's verdict on one claim."""

    verdict: YesNoUnsure
    """``yes`` supported, ``no`` contradicted, ``unsure`` not covered by the context."""
    reason: str
    """Why, in the language of the user's query."""


class FaithfulnessVerdicts(CountedReply):
    """The analyze step's result (``expecting(n)``: exactly one verdict per claim)."""

    ITEMS: ClassVar[str] = "verdicts"
    ITEM_OF: ClassVar[str] = "claim"

    verdicts: list[FaithfulnessVerdict]
    """One verdict per claim, in claim order."""


def faithfulness_score(verdicts: Sequence[str], *, scale: float = 1.0) -> float:
    """Return the share of supported claims (formula in the module docstring).

    Args:
        verdicts: normalised labels, one per claim.
        scale: the maximum score, ``> 0``.

    Example:
        >>> faithfulness_score(["yes", "no", "unsure"])
        0.33
    """
    if not verdicts:
        return 0.0
    supported = sum(1 for verdict in verdicts if verdict == "yes")
    return round_to_two_decimals(supported / len(verdicts) * scale)


def _verdicts_prompt(query: str, context: Sequence[str], claims: Sequence[str]) -> str:
    return f"""Check each claim against the context below, using only the context.

User query (for the language of your reasons):
{query}

Context:
{chr(10).join(context)}

Claims ({len(claims)}):
{chr(10).join(f"{i + 1}. {claim}" for i, claim in enumerate(claims))}

Give exactly {len(claims)} verdicts, one per claim, in the same order:
- "verdict": "yes" when the context supports the claim; "no" when the context contradicts it;
  "unsure" when the context neither supports nor contradicts it, or the claim is speculation.
- "reason": one sentence.
{LANGUAGE_RULE}

Answer with JSON only: {{"verdicts": [{{"verdict": "yes", "reason": "..."}}]}}"""


def _reason_prompt(
    query: str, answer: str, verdicts: FaithfulnessVerdicts, claims: Claims, score: str, scale: str
) -> str:
    lines = "\n".join(
        f"- {claim}: {v.verdict} ({v.reason})"
        for claim, v in zip(claims.claims, verdicts.verdicts, strict=False)
    )
    return f"""Explain a faithfulness score to a developer in two or three sentences.

Faithfulness is the share of the answer's claims that the context supports.

User query:
{query}

Answer:
{answer}

Claims and verdicts:
{lines}

Score: {score} (0 is worst, {scale} is best)

Begin with "The score is {score} because" and name the unsupported or contradicted claims, if
any. Write in the language the user query is written in. Reply with the explanation only."""


def create_faithfulness_scorer(
    *,
    model: str | JudgeModel | Judge,
    context: Sequence[str] | None = None,
    scale: float = 1.0,
) -> Scorer:
    """Create the Faithfulness scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        context: the context pieces (non-empty list of strings); when ``None``, each run's
            own context (``ctx.run.context``), else the JSON of the results of the completed
            tool calls in its output.
        scale: the maximum score, a finite number > 0.

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`~scorekit.scorers.replies.Claims`
        and ``analyze_step_result`` a :class:`FaithfulnessVerdicts`. A run without context is
        ``skipped``; an empty answer scores 0; neither calls the judge.

    Raises:
        ConfigError: an empty ``context`` or a bad ``scale``.
    """
    source = ContextSource.of(context, None, scorer="Faithfulness", required=False)
    scale = check_scale(scale)
    judge = to_judge(model, INSTRUCTIONS)

    def context_of(ctx: StepContext) -> tuple[str, ...]:
        return source.pieces or ctx.run.context or tool_result_context(ctx.run.output)

    def claims_step(ctx: StepContext) -> str | LocalResult | NotScorable:
        if not context_of(ctx):
            return not_scorable(NO_CONTEXT_REASON)
        return answer_claims_step(ctx)

    def verdicts_step(ctx: StepContext) -> str | LocalResult:
        claims: Claims = ctx.results.preprocess_step_result
        if not claims.claims:
            return local_result(FaithfulnessVerdicts(verdicts=[]))
        return _verdicts_prompt(
            get_user_message(ctx.run.input) or "", context_of(ctx), claims.claims
        )

    def verdicts_schema(ctx: StepContext) -> SchemaSpec:
        return FaithfulnessVerdicts.expecting(len(ctx.results.preprocess_step_result.claims))

    def generate_score(ctx: StepContext) -> float:
        verdicts: FaithfulnessVerdicts = ctx.results.analyze_step_result
        return faithfulness_score([v.verdict for v in verdicts.verdicts], scale=scale)

    def reason_step(ctx: StepContext) -> str | LocalResult:
        score = format_score(ctx.score or 0.0)
        claims: Claims = ctx.results.preprocess_step_result
        if not claims.claims:
            return local_result(f"The score is {score} because the answer makes no claims.")
        return _reason_prompt(
            get_user_message(ctx.run.input) or "",
            get_assistant_message(ctx.run.output) or "",
            ctx.results.analyze_step_result,
            claims,
            score,
            format_score(scale),
        )

    return (
        create_scorer(
            SCORER_ID,
            name="Faithfulness Scorer",
            description="Share of the answer's claims that the context supports",
            judge=judge,
        )
        .preprocess(PromptStep("Extract the answer's claims", claims_step, answer_claims_schema))
        .analyze(PromptStep("Check each claim against the context", verdicts_step, verdicts_schema))
        .generate_score(generate_score)
        .generate_reason(PromptStep("Explain the score", reason_step))
    )
