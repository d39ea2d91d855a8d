"""Hallucination (LLM): how much of what the answer claims is not backed by the context.

Score range ``[0, scale]``; **lower is better**. A judge extracts the answer's claims, then
marks each ``yes`` (a hallucination: it contradicts the context, asserts what the context does
not support, or makes a subjective or speculative claim about facts the context lacks) or
``no``. Then (Mastra evals 1.10.2 hallucination)::

    score = round2(#yes / #verdicts × scale)      (0 when there are no verdicts)

A less precise date, a fair approximation or an omission is not a hallucination.

Divergences (docs/divergences.md): 1, 4, 5, 6 (labels trimmed and lower-cased; other labels
refused), 7 (no context: ``skipped`` without a judge call), 10, 20 (an empty answer scores 0
without a judge call), 21 (``context_extractor(input, output)`` instead of Mastra's ``getContext``;
some context is required), 23, 25, 26 (one verdict per claim: asked for in the schema and checked).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from scorekit.context import ContextExtractor, ContextSource
from scorekit.judge.judge import Judge, to_judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.messages import get_user_message
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
    YesNo,
)

__all__ = [
    "SCORER_ID",
    "HallucinationVerdict",
    "HallucinationVerdicts",
    "create_hallucination_scorer",
    "hallucination_score",
]

SCORER_ID = "hallucination-scorer"
"""The scorer's stable id (Mastra's)."""

INSTRUCTIONS = (
    "You detect hallucinations in AI answers: claims the given context does not back. You judge "
    "only against that context, never against your own knowledge, and answer exactly in the "
    "format asked for."
)
"""System instructions of the Hallucination judge."""

NO_CONTEXT_REASON = "No context to check the answer against: the resolved context is empty."
"""The reason of a ``skipped`` result (divergences.md row 7)."""


class HallucinationVerdict(JudgeReply):
    """The judge's verdict on one claim."""

    statement: str
    """The claim judged."""
    verdict: YesNo
    """``yes`` when the claim is a hallucination."""
    reason: str
    """Why, in the language of the user's query."""


class HallucinationVerdicts(CountedReply):
    """The analyze step's result (``expecting(n)``: exactly one verdict per claim)."""

    ITEMS: ClassVar[str] = "verdicts"
    ITEM_OF: ClassVar[str] = "claim"

    verdicts: list[HallucinationVerdict]
    """One verdict per claim, in claim order."""


def hallucination_score(verdicts: Sequence[str], *, scale: float = 1.0) -> float:
    """Return the share of hallucinated claims (formula in the module docstring).

    Args:
        verdicts: normalised labels, one per claim (``"yes"`` = hallucination).
        scale: the maximum score, ``> 0``.

    Example:
        >>> hallucination_score(["yes", "no", "no"])
        0.33
    """
    if not verdicts:
        return 0.0
    hallucinated = sum(1 for verdict in verdicts if verdict == "yes")
    return round_to_two_decimals(hallucinated / len(verdicts) * scale)


def _verdicts_prompt(query: str, context: Sequence[str], claims: Sequence[str]) -> str:
    return f"""Decide for each claim whether it is a hallucination with respect to the context.

User query (for the language of your reasons):
{query}

Context:
{chr(10).join(context)}

Claims ({len(claims)}):
{chr(10).join(f"{i + 1}. {claim}" for i, claim in enumerate(claims))}

Give exactly {len(claims)} verdicts, one per claim, in the same order, each with the claim as
"statement":
- "verdict": "yes" (a hallucination) when the claim contradicts the context, asserts something
  the context does not support, praises or judges subjectively ("groundbreaking", "made
  history"), or speculates about facts that are not in the context;
  "no" when the context supports the claim, including a less precise date, a fair
  approximation, or speculation about facts that are in the context. Leaving something out is
  not a hallucination.
- "reason": one sentence.
{LANGUAGE_RULE}

Answer with JSON only:
{{"verdicts": [{{"statement": "...", "verdict": "no", "reason": "..."}}]}}"""


def _reason_prompt(query: str, verdicts: HallucinationVerdicts, score: str, scale: str) -> str:
    lines = "\n".join(f"- {v.statement}: {v.verdict} ({v.reason})" for v in verdicts.verdicts)
    return f"""Explain a hallucination score to a developer in two or three sentences.

The score is the share of the answer's claims that the context does not back; 0 is best and
{scale} is worst.

User query:
{query}

Claims and verdicts ("yes" = hallucination):
{lines}

Score: {score}

Begin with "The score is {score} because" and name the hallucinated claims, if any. Write in
the language the user query is written in. Reply with the explanation only."""


def create_hallucination_scorer(
    *,
    model: str | JudgeModel | Judge,
    context: Sequence[str] | None = None,
    context_extractor: ContextExtractor | None = None,
    scale: float = 1.0,
) -> Scorer:
    """Create the Hallucination scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        context: the context pieces (non-empty list of strings).
        context_extractor: ``(input, output) -> list[str]``, sync or async, giving each run's
            context; it wins over ``context``. (Mastra's ``getContext``; see divergence 21.)
        scale: the maximum score, a finite number > 0.

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`~scorekit.scorers.replies.Claims`
        and ``analyze_step_result`` a :class:`HallucinationVerdicts`. A run whose resolved
        context is empty is ``skipped``; an empty answer scores 0; neither calls the judge.

    Raises:
        ConfigError: neither ``context`` nor ``context_extractor``; an empty ``context``; a bad
            ``scale``.
    """
    source = ContextSource.of(context, context_extractor, scorer="Hallucination")
    scale = check_scale(scale)
    judge = to_judge(model, INSTRUCTIONS)

    async def claims_step(ctx: StepContext) -> str | LocalResult | NotScorable:
        if not await source.resolve(ctx.run):
            return not_scorable(NO_CONTEXT_REASON)
        return answer_claims_step(ctx)

    async def verdicts_step(ctx: StepContext) -> str | LocalResult:
        claims: Claims = ctx.results.preprocess_step_result
        if not claims.claims:
            return local_result(HallucinationVerdicts(verdicts=[]))
        return _verdicts_prompt(
            get_user_message(ctx.run.input) or "", await source.resolve(ctx.run), claims.claims
        )

    def verdicts_schema(ctx: StepContext) -> SchemaSpec:
        return HallucinationVerdicts.expecting(len(ctx.results.preprocess_step_result.claims))

    def generate_score(ctx: StepContext) -> float:
        verdicts: HallucinationVerdicts = ctx.results.analyze_step_result
        return hallucination_score([v.verdict for v in verdicts.verdicts], scale=scale)

    def reason_step(ctx: StepContext) -> str | LocalResult:
        score = format_score(ctx.score or 0.0)
        verdicts: HallucinationVerdicts = ctx.results.analyze_step_result
        if not verdicts.verdicts:
            return local_result(f"The score is {score} because the answer makes no claims.")
        return _reason_prompt(
            get_user_message(ctx.run.input) or "", verdicts, score, format_score(scale)
        )

    return (
        create_scorer(
            SCORER_ID,
            name="Hallucination Scorer",
            description="Share of the answer's claims that the context does not back",
            judge=judge,
        )
        .preprocess(PromptStep("Extract the answer's claims", claims_step, answer_claims_schema))
        .analyze(PromptStep("Mark hallucinated claims", verdicts_step, verdicts_schema))
        .generate_score(generate_score)
        .generate_reason(PromptStep("Explain the score", reason_step))
    )
