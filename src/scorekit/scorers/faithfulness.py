"""Faithfulness (LLM): how much of what the answer claims is supported by the context.

Score range ``[0, scale]``; higher is better. A judge extracts the answer's claims (factual and
speculative; questions and commands excluded), then rates each against the context: ``yes``
(supported), ``no`` (contradicted) or ``unsure`` (not covered). Then (Mastra evals 1.10.2
faithfulness)::

    score = round2(#yes / #verdicts × scale)      (0 when there are no verdicts)

``unsure`` counts as unsupported. The context is the ``context`` option, else the run's own
context (``scorer.run(context=...)``, an item's context in ``run_evals``), else the results of
the completed tool calls in the output
(:func:`scorekit.inputs.retrieval_context.tool_result_context`). Blank pieces are dropped first,
wherever they come from; a run whose pieces are all blank is ``skipped`` (row 78).

Divergences (docs/divergences.md): 1, 4, 5, 6 (labels trimmed and lower-cased — Mastra counts only
an exact ``"yes"``; other labels are refused), 7 (no context: ``skipped`` without a judge call),
10, 20 (an empty answer has no claims: score 0 without a judge call), 23, 24 (tool results recorded
as message parts are read too), 25 (an empty ``context`` list is refused), 26 (one verdict per
claim: asked for in the schema and checked), 102 (the reason is a template unless
``reason="llm"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from scorekit.inputs.retrieval_context import ContextSource, Pieces, tool_result_context
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.pipeline import Scorer, ScorerRun
from scorekit.scorers import verdicts as recipe
from scorekit.scorers.answer_claims import ANSWER_CLAIMS, claims_in_context
from scorekit.scorers.expected import Scoring, check_scoring
from scorekit.scorers.options import ReasonMode, check_scale
from scorekit.scorers.replies import LANGUAGE_RULE, YesNoUnsure

__all__ = [
    "ENTRY",
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


class FaithfulnessVerdict(recipe.Verdict[YesNoUnsure]):
    """The judge's verdict on one claim."""

    # verdict: ``yes`` supported, ``no`` contradicted, ``unsure`` not covered by the context


class FaithfulnessVerdicts(recipe.VerdictList[FaithfulnessVerdict]):
    """The analyze step's result (``expecting(n)``: exactly one verdict per claim)."""

    ITEM_OF: ClassVar[str] = "claim"


def faithfulness_score(verdicts: Sequence[str], *, scale: float = 1.0) -> float:
    """Return the share of supported claims (formula in the module docstring).

    Args:
        verdicts: normalised labels, one per claim.
        scale: the maximum score, ``> 0``.

    Example:
        >>> faithfulness_score(["yes", "no", "unsure"])
        0.33
        >>> faithfulness_score(["yes", "yes", "no"], scale=10)
        6.67
    """
    return recipe.share_score(verdicts, scale=scale)


def _verdicts_prompt(query: str, context: Sequence[str], claims: Sequence[str]) -> str:
    return f"""Check each claim against the context below, using only the context.

{claims_in_context(query, context, claims)}

Give exactly {len(claims)} verdicts, one per claim, in the same order:
- "verdict": "yes" when the context supports the claim; "no" when the context contradicts it;
  "unsure" when the context neither supports nor contradicts it, or the claim is speculation.
- "reason": one sentence.
{LANGUAGE_RULE}

Answer with JSON only: {{"verdicts": [{{"verdict": "yes", "reason": "..."}}]}}"""


def _reason_prompt(run: recipe.ToExplain[FaithfulnessVerdicts]) -> str:
    query, answer, lines, score, scale = run.query, run.answer, run.lines, run.score, run.scale
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


RECIPE = recipe.VerdictRecipe(
    SCORER_ID,
    "Faithfulness Scorer",
    "Share of the answer's claims that the context supports",
    INSTRUCTIONS,
    ANSWER_CLAIMS,
    recipe.VerdictStep(
        "Check each claim against the context", FaithfulnessVerdicts, _verdicts_prompt
    ),
    recipe.ReasonStep(_reason_prompt, "the answer makes no claims."),
)
"""The scorer's parts: supported claims count; an answer without claims gets a local reason."""


def create_faithfulness_scorer(
    *,
    model: str | JudgeModel | Judge,
    context: Sequence[str] | None = None,
    scale: float = 1.0,
    scoring: Scoring = "label",
    reason: ReasonMode = "template",
) -> Scorer:
    """Create the Faithfulness scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        context: the context pieces (non-empty list of strings); when ``None``, each run's
            own context (``ctx.run.context``), else the JSON of the results of the completed
            tool calls in its output.
        scale: the maximum score, a finite number > 0.
        scoring: ``"label"`` (Mastra's: the verdicts' labels) or ``"expected"`` (each verdict
            weighs its expectation under the judge's label distribution, read from its token
            log-probabilities; :mod:`scorekit.scorers.expected`).
        reason: ``"template"`` (the default: the verdicts the score came from, stated
            without a judge call: :func:`~scorekit.scorers.verdicts.template_reason`),
            ``"llm"`` (Mastra's: the judge explains the score, one more call; on the small
            benchmark judge its explanation contradicted its own verdicts on most rows,
            divergences.md row 102) or ``"none"`` (no reason).

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`~scorekit.scorers.replies.Claims`
        and ``analyze_step_result`` a :class:`FaithfulnessVerdicts`. A run without context (or
        whose context pieces are all blank) is ``skipped``; an empty answer scores 0; neither
        calls the judge.

    Raises:
        ConfigError: an empty or all-blank ``context``, or a bad ``scale``, ``scoring`` or
            ``reason``.
    """
    source = ContextSource.of(context, None, scorer="Faithfulness", required=False)

    async def context_of(run: ScorerRun) -> Pieces:
        return Pieces.of(source.pieces or run.context or tool_result_context(run.output))

    return recipe.verdict_scorer(
        RECIPE,
        model,
        check_scale(scale),
        context=recipe.ContextCheck(context_of, NO_CONTEXT_REASON),
        scoring=check_scoring(scoring),
        reason=reason,
    )


ENTRY = RECIPE.entry("faithfulness", create_faithfulness_scorer)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
