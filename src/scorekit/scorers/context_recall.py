"""Context Recall (LLM): how much of the ground truth the retrieved context covers.

Score range ``[0, scale]``; higher is better. A judge splits the ground truth into claims, then
marks each ``yes`` when it can be attributed to the context, else ``no``, without using prior
knowledge. Then (Mastra evals 1.10.2 context-recall)::

    score = round2(min(1, #yes / #claims) × scale)      (0 when there are no claims)

``#claims`` is the number of extracted claims, not the number of verdicts, as in Mastra. A
ground truth that is not a string is read as its compact JSON.

Divergences (docs/divergences.md): 1, 4, 5, 6 (labels trimmed and lower-cased; other labels
refused), 7 (an empty resolved context is ``skipped`` without a judge call), 10, 22 (a run without
a ground truth is ``skipped``; Mastra scores it 0), 23, 26 (one verdict per claim: asked for in the
schema and checked).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from scorekit.context import ContextExtractor, ContextSource, format_pieces
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
from scorekit.scorers.replies import (
    LANGUAGE_RULE,
    Claims,
    CountedReply,
    JudgeReply,
    YesNo,
    item_limit,
)

__all__ = [
    "SCORER_ID",
    "RecallVerdict",
    "RecallVerdicts",
    "context_recall_score",
    "create_context_recall_scorer",
]

SCORER_ID = "context-recall-scorer"
"""The scorer's stable id (Mastra's)."""

INSTRUCTIONS = (
    "You check which facts of a reference answer can be found in retrieved context. You use "
    "only the context, never your own knowledge, and answer exactly in the format asked for."
)
"""System instructions of the Context Recall judge."""

NO_CONTEXT_REASON = "No context to evaluate: the resolved context is empty."
"""The reason of a run skipped for want of context (divergences.md row 7)."""

NO_GROUND_TRUTH_REASON = "Context recall needs a ground truth; this run has none."
"""The reason of a run skipped for want of a ground truth (divergences.md row 22)."""


class RecallVerdict(JudgeReply):
    """The judge's verdict on one ground-truth claim."""

    verdict: YesNo
    """``yes`` when the claim can be attributed to the context."""
    reason: str
    """Why, in the language of the user's query."""


class RecallVerdicts(CountedReply):
    """The analyze step's result (``expecting(n)``: exactly one verdict per claim)."""

    ITEMS: ClassVar[str] = "verdicts"
    ITEM_OF: ClassVar[str] = "claim"

    verdicts: list[RecallVerdict]
    """One verdict per claim, in claim order."""


def context_recall_score(verdicts: Sequence[str], claims: int, *, scale: float = 1.0) -> float:
    """Return the share of ground-truth claims found in the context (module docstring).

    Args:
        verdicts: normalised labels.
        claims: the number of claims extracted from the ground truth.
        scale: the maximum score, ``> 0``.

    Example:
        >>> context_recall_score(["yes", "yes", "no"], 3)
        0.67
    """
    if claims == 0:
        return 0.0
    attributable = sum(1 for verdict in verdicts if verdict == "yes")
    return round_to_two_decimals(min(1.0, attributable / claims) * scale)


def ground_truth_text(value: Any) -> str:
    """Return a ground truth as text: a string as is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _claims_prompt(reference: str) -> str:
    return f"""List the atomic claims of the reference answer below.

An atomic claim states one fact. Split sentences that hold several facts, keep each claim
self-contained (replace pronouns with what they refer to) and add nothing the text does not
say.

Example: "Albert Einstein, born in Ulm on 14 March 1879, developed the theory of relativity and
won the 1921 Nobel Prize in Physics." gives ["Albert Einstein was born in Ulm.", "Albert
Einstein was born on 14 March 1879.", "Albert Einstein developed the theory of relativity.",
"Albert Einstein won the Nobel Prize in Physics.", "Albert Einstein won the Nobel Prize in
1921."].

Reference answer:
{reference}

Answer with JSON only: {{"claims": ["..."]}}"""


def _verdicts_prompt(query: str, pieces: Sequence[str], claims: Sequence[str]) -> str:
    return f"""Decide for each claim whether it can be attributed to the retrieved context.

User query (for the language of your reasons):
{query}

Retrieved context:
{format_pieces(pieces)}

Claims:
{format_pieces(claims)}

Give exactly {len(claims)} verdicts, one per claim, in the same order:
- "verdict": "yes" when the context states the claim or clearly implies it; "no" otherwise.
  Use only the context, not what you know.
- "reason": one sentence, naming the context piece that supports a "yes".
{LANGUAGE_RULE}

Answer with JSON only: {{"verdicts": [{{"verdict": "yes", "reason": "..."}}]}}"""


def _reason_prompt(
    query: str, claims: Claims, verdicts: RecallVerdicts, score: str, scale: str
) -> str:
    lines = "\n".join(
        f"- {claim}: {v.verdict} ({v.reason})"
        for claim, v in zip(claims.claims, verdicts.verdicts, strict=False)
    )
    return f"""Explain a context recall score to a developer in two or three sentences.

Context recall is the share of the reference answer's claims that the retrieved context
covers.

User query:
{query}

Reference claims and verdicts:
{lines}

Score: {score} (0 is worst, {scale} is best)

Begin with "The score is {score} because" and name the claims the context does not cover, if
any. Write in the language the user query is written in. Reply with the explanation only."""


def create_context_recall_scorer(
    *,
    model: str | JudgeModel | Judge,
    context: Sequence[str] | None = None,
    context_extractor: ContextExtractor | None = None,
    scale: float = 1.0,
) -> Scorer:
    """Create the Context Recall scorer (it reads each run's ``ground_truth``).

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        context: the retrieved context pieces (non-empty list of strings).
        context_extractor: ``(input, output) -> list[str]``, sync or async, giving each run's
            context; it wins over ``context``.
        scale: the maximum score, a finite number > 0.

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`~scorekit.scorers.replies.Claims`
        (of the ground truth) and ``analyze_step_result`` a :class:`RecallVerdicts`. A run
        with an empty resolved context or no (or a blank) ground truth is ``skipped`` without a
        judge call.

    Raises:
        ConfigError: neither ``context`` nor ``context_extractor``; an empty ``context``; a bad
            ``scale``.
    """
    source = ContextSource.of(context, context_extractor, scorer="Context Recall")
    scale = check_scale(scale)
    judge = to_judge(model, INSTRUCTIONS)

    async def claims_step(ctx: StepContext) -> str | NotScorable:
        if not await source.resolve(ctx.run):
            return not_scorable(NO_CONTEXT_REASON)
        reference = ground_truth_text(ctx.run.ground_truth)
        if ctx.run.ground_truth is None or not reference.strip():
            return not_scorable(NO_GROUND_TRUTH_REASON)
        return _claims_prompt(reference)

    async def verdicts_step(ctx: StepContext) -> str | LocalResult:
        claims: Claims = ctx.results.preprocess_step_result
        if not claims.claims:
            return local_result(RecallVerdicts(verdicts=[]))
        return _verdicts_prompt(
            get_user_message(ctx.run.input) or "", await source.resolve(ctx.run), claims.claims
        )

    def claims_schema(ctx: StepContext) -> SchemaSpec:
        return Claims.at_most(item_limit(ground_truth_text(ctx.run.ground_truth)))

    def verdicts_schema(ctx: StepContext) -> SchemaSpec:
        return RecallVerdicts.expecting(len(ctx.results.preprocess_step_result.claims))

    def generate_score(ctx: StepContext) -> float:
        claims: Claims = ctx.results.preprocess_step_result
        verdicts: RecallVerdicts = ctx.results.analyze_step_result
        return context_recall_score(
            [v.verdict for v in verdicts.verdicts], len(claims.claims), scale=scale
        )

    def reason_step(ctx: StepContext) -> str | LocalResult:
        score = format_score(ctx.score or 0.0)
        claims: Claims = ctx.results.preprocess_step_result
        if not claims.claims:
            return local_result(f"The score is {score} because the ground truth has no claims.")
        return _reason_prompt(
            get_user_message(ctx.run.input) or "",
            claims,
            ctx.results.analyze_step_result,
            score,
            format_score(scale),
        )

    return (
        create_scorer(
            SCORER_ID,
            name="Context Recall Scorer",
            description="Share of the ground truth's claims that the context covers",
            judge=judge,
        )
        .preprocess(PromptStep("Extract the ground truth's claims", claims_step, claims_schema))
        .analyze(PromptStep("Attribute each claim to the context", verdicts_step, verdicts_schema))
        .generate_score(generate_score)
        .generate_reason(PromptStep("Explain the score", reason_step))
    )
