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

from collections.abc import Sequence
from typing import ClassVar

from scorekit.inputs.messages import ground_truth_text
from scorekit.inputs.retrieval_context import ContextExtractor, format_pieces
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.pipeline import Scorer, ScorerRun
from scorekit.scorers import verdicts as recipe
from scorekit.scorers.expected import Scoring, check_scoring
from scorekit.scorers.options import ReasonMode
from scorekit.scorers.replies import LANGUAGE_RULE, Claims, YesNo

__all__ = [
    "ENTRY",
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


class RecallVerdict(recipe.Verdict[YesNo]):
    """The judge's verdict on one ground-truth claim."""

    # verdict: ``yes`` when the claim can be attributed to the context


class RecallVerdicts(recipe.VerdictList[RecallVerdict]):
    """The analyze step's result (``expecting(n)``: exactly one verdict per claim)."""

    ITEM_OF: ClassVar[str] = "claim"


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
    return recipe.share_score(verdicts, scale=scale, denominator=claims)


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


def _reason_prompt(run: recipe.ToExplain[RecallVerdicts]) -> str:
    query, lines, score, scale = run.query, run.lines, run.score, run.scale
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


def _ground_truth(run: ScorerRun) -> str:
    return "" if run.ground_truth is None else ground_truth_text(run.ground_truth)


RECIPE = recipe.VerdictRecipe(
    SCORER_ID,
    "Context Recall Scorer",
    "Share of the ground truth's claims that the context covers",
    INSTRUCTIONS,
    recipe.Units(
        "Extract the ground truth's claims",
        Claims,
        _claims_prompt,
        _ground_truth,
        missing=NO_GROUND_TRUTH_REASON,
        none_found="The judge found no claims in the ground truth, so there is nothing to look "
        "for in the context.",
    ),
    recipe.VerdictStep(
        "Attribute each claim to the context", RecallVerdicts, _verdicts_prompt, per_unit=True
    ),
    recipe.ReasonStep(_reason_prompt, "the ground truth has no claims."),
    no_context=NO_CONTEXT_REASON,
)
"""The scorer's parts: the ground truth's claims (``at_most(item_limit(ground truth))``; a run
without a ground truth is ``skipped``, and so is one in which the judge finds no claims), of
which the attributable ones count."""


def create_context_recall_scorer(
    *,
    model: str | JudgeModel | Judge,
    scale: float = 1.0,
    context: Sequence[str] | None = None,
    context_extractor: ContextExtractor | None = None,
    scoring: Scoring = "label",
    reason: ReasonMode = "llm",
) -> Scorer:
    """Create the Context Recall scorer (it reads each run's ``ground_truth``).

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        scale: the maximum score, a finite number > 0.
        context: the retrieved context pieces (non-empty list of strings).
        context_extractor: ``(input, output) -> list[str]``, sync or async, giving each run's
            context; it wins over ``context``.
        scoring: ``"label"`` (Mastra's: the verdicts' labels) or ``"expected"`` (each verdict
            weighs its expectation under the judge's label distribution, read from its token
            log-probabilities; :mod:`scorekit.scorers.expected`).
        reason: ``"llm"`` (Mastra's: the judge explains the score, one more call),
            ``"template"`` (the verdicts the score came from, stated without a judge call:
            :func:`~scorekit.scorers.verdicts.template_reason`) or ``"none"`` (no reason).

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`~scorekit.scorers.replies.Claims`
        (of the ground truth) and ``analyze_step_result`` a :class:`RecallVerdicts`. A run
        with an empty resolved context or no (or a blank) ground truth is ``skipped`` without a
        judge call.

    Raises:
        ConfigError: a bad ``scale``, ``scoring`` or ``reason``; neither ``context`` nor
            ``context_extractor``, or an empty ``context`` list.
    """
    return recipe.grounded_scorer(
        RECIPE,
        model,
        scale,
        context,
        context_extractor,
        scoring=check_scoring(scoring),
        reason=reason,
    )


ENTRY = RECIPE.entry("context-recall", create_context_recall_scorer)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
