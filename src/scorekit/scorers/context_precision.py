"""Context Precision (LLM): are the useful context pieces ranked first?

Score range ``[0, scale]``; higher is better. A judge marks each context piece ``yes`` (it
supports the agent's response) or ``no``. The score is the mean average precision (MAP) of the
verdicts in ``context_index`` order (Mastra evals 1.10.2 context-precision)::

    for position i = 1, 2, … over the verdicts sorted by context_index:
        if verdict i is "yes": relevant += 1; total += relevant / i
    score = round2(total / relevant × scale)      (0 when no verdict is "yes")

``round2`` is Mastra's half-up rounding. The denominator is the number of ``yes`` verdicts
found, and the position is the rank in the sorted verdict list, as in Mastra.
With ``scoring="expected"`` each verdict counts its ``p(yes)`` instead of 0 or 1
(:func:`expected_context_precision_score`, :mod:`scorekit.scorers.expected`).

Blank context pieces are dropped first (:class:`scorekit.inputs.retrieval_context.Pieces`): the
judge sees the others numbered from 0 and ranks only them; each verdict in the step result reports
the piece's position in the context as given (``context_index``). A run whose pieces are all blank
is ``skipped``.

Divergences (docs/divergences.md): 1, 4, 5, 6 (labels trimmed and lower-cased; any label other than
yes/no is refused, row 23), 7 (an empty resolved context is ``skipped`` without a judge call;
Mastra throws), 10, 26 and row 80 (one verdict per context piece, each ``context_index``
exactly once: asked for in the schema and checked; a reply with no verdicts, or with a missing,
repeated or out-of-range index, is repaired, then an ``error``), row 78 (blank pieces).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from scorekit.inputs.messages import get_assistant_message, get_user_message
from scorekit.inputs.retrieval_context import ContextExtractor, ContextSource, Pieces, format_pieces
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.pipeline import NotScorable, PromptStep, Scorer, StepContext, not_scorable
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.expected import LabelReader, Scoring, check_scoring, expected_weights, reading
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.options import check_scale
from scorekit.scorers.replies import LANGUAGE_RULE, CountedReply, JudgeReply, YesNo

__all__ = [
    "ENTRY",
    "SCORER_ID",
    "PrecisionVerdict",
    "PrecisionVerdicts",
    "context_precision_score",
    "create_context_precision_scorer",
    "expected_context_precision_score",
]

SCORER_ID = "context-precision-scorer"
"""The scorer's stable id (Mastra's)."""

INSTRUCTIONS = (
    "You judge retrieved context for a RAG system strictly: a context piece counts as useful "
    "only when it directly supports what the answer says. Answer exactly in the format asked for."
)
"""System instructions of the Context Precision judge."""

NO_CONTEXT_REASON = "No context to evaluate: the resolved context is empty."
"""The reason of a ``skipped`` result (divergences.md row 7)."""


class PrecisionVerdict(JudgeReply):
    """The judge's verdict on one context piece."""

    context_index: int = Field(ge=0, description="The number of the context piece, from 0.")
    """The piece's position in the context as given, from 0 (the judge numbers the pieces it
    was shown; the scorer maps them back)."""
    verdict: YesNo
    """``yes`` when the piece supports the response."""
    reason: str
    """Why, in the language of the user's query."""


class PrecisionVerdicts(CountedReply):
    """The analyze step's result: one verdict per piece (``expecting(n)``).

    Each ``context_index`` from 0 to ``n - 1`` must appear exactly once; the verdicts are kept
    sorted by it, as Mastra stores them, whatever order the judge wrote them in.
    """

    ITEMS: ClassVar[str] = "verdicts"
    ITEM_OF: ClassVar[str] = "context piece"
    INDEX: ClassVar[str | None] = "context_index"
    SORTED_BY_INDEX: ClassVar[bool] = True

    verdicts: list[PrecisionVerdict]
    """One verdict per context piece."""


def context_precision_score(verdicts: Sequence[tuple[int, str]], *, scale: float = 1.0) -> float:
    """Return the mean average precision of ranked verdicts (formula in the module docstring).

    Args:
        verdicts: ``(context_index, verdict)`` pairs in any order; verdicts are normalised
            labels (``"yes"`` counts as relevant).
        scale: the maximum score, ``> 0``.

    Returns:
        The score in ``[0, scale]``; 0 when there are no verdicts or none is ``yes``.

    Example:
        >>> context_precision_score([(0, "yes"), (1, "no"), (2, "yes"), (3, "no")])
        0.83
    """
    relevant = 0
    total = 0.0
    ordered = sorted(verdicts, key=lambda pair: pair[0])  # stable, like JS Array.sort
    for position, (_, verdict) in enumerate(ordered, start=1):
        if verdict == "yes":
            relevant += 1
            total += relevant / position
    if relevant == 0:
        return 0.0
    return round_to_two_decimals(total / relevant * scale)


def expected_context_precision_score(
    relevance: Sequence[tuple[int, float]], *, scale: float = 1.0
) -> float:
    """Mean average precision with each piece's relevance its probability (``scoring="expected"``).

    Mastra's formula with each verdict's 0/1 replaced by ``p(yes)``: with ``p_k`` the
    probabilities in ``context_index`` order, ``round2(Σ_k p_k × (Σ_{j<=k} p_j) / k / Σ_k p_k
    × scale)``; equal to :func:`context_precision_score` when every ``p_k`` is 0 or 1.

    Args:
        relevance: ``(context_index, p(yes))`` pairs in any order, each ``p`` in ``[0, 1]``.
        scale: the maximum score, ``> 0``.

    Returns:
        The score in ``[0, scale]``; 0 when there are no pieces or every ``p`` is 0.

    Example:
        >>> expected_context_precision_score([(0, 0.9), (1, 0.2)])
        0.84
    """
    relevant = 0.0
    total = 0.0
    ordered = sorted(relevance, key=lambda pair: pair[0])
    for position, (_, p_yes) in enumerate(ordered, start=1):
        relevant += p_yes
        total += p_yes * relevant / position
    if relevant <= 0.0:
        return 0.0
    return round_to_two_decimals(total / relevant * scale)


def _analyze_prompt(query: str, response: str, pieces: Sequence[str]) -> str:
    return f"""Decide, for each retrieved context piece, whether it was useful for the answer below.

User query:
{query}

Answer:
{response}

Context pieces, in retrieval order (numbered from 0):
{format_pieces(pieces)}

Give exactly {len(pieces)} verdicts, one per piece, with its "context_index":
- "verdict": "yes" when the piece directly supports information the answer gives; "no" when it
  is unrelated, only loosely related, or not reflected in the answer.
- "reason": one sentence.
{LANGUAGE_RULE}

Example: for the query "Why is regular exercise good for you?", the answer "It strengthens the
heart and improves sleep.", and the pieces [0] "Exercise strengthens the heart muscle." [1] "The
first Olympic Games were held in 776 BC." [2] "Regular activity helps people fall asleep
faster.", the verdicts are yes, no, yes.

Answer with JSON only:
{{"verdicts": [{{"context_index": 0, "verdict": "yes", "reason": "..."}}]}}"""


def _reason_prompt(
    query: str, response: str, verdicts: PrecisionVerdicts, score: str, scale: str
) -> str:
    lines = "\n".join(
        f"- piece {v.context_index}: {v.verdict} ({v.reason})"
        for v in sorted(verdicts.verdicts, key=lambda v: v.context_index)
    )
    return f"""Explain a context precision score to a developer in two or three sentences.

Context precision rewards retrieval that ranks the useful pieces first: a useful piece at
position 1 counts fully, a useful piece lower down counts less.

User query:
{query}

Answer:
{response}

Verdicts in retrieval order:
{lines or "- (none)"}

Score: {score} (0 is worst, {scale} is best)

Begin with "The score is {score} because" and refer to the positions of the useful and the
useless pieces. Write in the language the user query is written in. Reply with the explanation
only."""


def _expecting(pieces: Pieces) -> SchemaSpec:
    return PrecisionVerdicts.expecting(len(pieces.texts), positions=pieces.positions)


def create_context_precision_scorer(
    *,
    model: str | JudgeModel | Judge,
    context: Sequence[str] | None = None,
    context_extractor: ContextExtractor | None = None,
    scale: float = 1.0,
    scoring: Scoring = "label",
) -> Scorer:
    """Create the Context Precision scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        context: the context pieces in retrieval order (non-empty list of strings).
        context_extractor: ``(input, output) -> list[str]``, sync or async, giving each run's
            context in retrieval order; it wins over ``context``.
        scale: the maximum score, a finite number > 0.
        scoring: ``"label"`` (Mastra's: ``yes`` verdicts count 1) or ``"expected"`` (each
            piece counts its ``p(yes)`` under the judge's label distribution, read from its
            token log-probabilities: :func:`expected_context_precision_score`,
            :mod:`scorekit.scorers.expected`).

    Returns:
        A scorer whose ``analyze_step_result`` is a :class:`PrecisionVerdicts`; a run whose
        resolved context is empty or all blank is ``skipped`` without a judge call.

    Raises:
        ConfigError: neither ``context`` nor ``context_extractor``; an empty or all-blank
            ``context``; a bad ``scale`` or ``scoring``.
    """
    source = ContextSource.of(context, context_extractor, scorer="Context Precision")
    scale = check_scale(scale)
    reader = (
        LabelReader.of(PrecisionVerdicts, "verdicts", "verdict", {"yes": 1.0})
        if check_scoring(scoring) == "expected"
        else None
    )

    async def analyze_prompt(ctx: StepContext) -> str | NotScorable:
        pieces = await source.resolve(ctx.run)
        skip = pieces.skip_reason(NO_CONTEXT_REASON)
        if skip is not None:
            return not_scorable(skip)
        return _analyze_prompt(
            get_user_message(ctx.run.input) or "",
            get_assistant_message(ctx.run.output) or "",
            pieces.texts,
        )

    async def analyze_schema(ctx: StepContext) -> SchemaSpec:
        return reading(_expecting(await source.resolve(ctx.run)), reader)

    def generate_score(ctx: StepContext) -> float:
        verdicts: PrecisionVerdicts = ctx.results.analyze_step_result
        if reader is not None:
            weights = expected_weights(verdicts, "verdicts")
            indices = [v.context_index for v in verdicts.verdicts]
            return expected_context_precision_score(
                list(zip(indices, weights, strict=True)), scale=scale
            )
        return context_precision_score(
            [(v.context_index, v.verdict) for v in verdicts.verdicts], scale=scale
        )

    def reason_prompt(ctx: StepContext) -> str:
        return _reason_prompt(
            get_user_message(ctx.run.input) or "",
            get_assistant_message(ctx.run.output) or "",
            ctx.results.analyze_step_result,
            js_number_text(ctx.score or 0.0),
            js_number_text(scale),
        )

    return judged_scorer(
        SCORER_ID,
        name="Context Precision Scorer",
        description="Mean average precision of the context pieces that support the answer",
        model=model,
        instructions=INSTRUCTIONS,
        analyze=PromptStep("Mark each context piece useful or not", analyze_prompt, analyze_schema),
        score=generate_score,
        reason=PromptStep("Explain the score", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="context-precision",
    scorer_id=SCORER_ID,
    factory=create_context_precision_scorer,
    kind="llm",
    summary="Mean average precision of the context pieces that support the answer",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
