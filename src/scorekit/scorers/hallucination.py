"""Hallucination (LLM): how much of what the answer claims is not backed by the context.

Score range ``[0, scale]``; **lower is better**. A judge extracts the answer's claims, then
says for each whether the context supports it; a claim it does not support is a hallucination
(verdict ``yes``: it contradicts the context, asserts what the context does not support, or
makes a subjective or speculative claim about facts the context lacks), else the verdict is
``no``. Then (Mastra evals 1.10.2 hallucination)::

    score = round2(#yes / #verdicts × scale)      (0 when there are no verdicts)

A less precise date, a fair approximation or an omission is not a hallucination.

Divergences (docs/divergences.md): 1, 4, 5, 6 (labels trimmed and lower-cased; other labels
refused), 7 (no context: ``skipped`` without a judge call), 10, 20 (an empty answer scores 0
without a judge call), 21 (``context_extractor(input, output)`` instead of Mastra's ``getContext``;
some context is required), 23, 25, 26 (one verdict per claim: asked for in the schema and checked),
row 78 (blank context pieces are dropped; all blank: ``skipped``), row 79 (the judge
is not asked to copy each claim back as ``statement``: the step result holds the claim as the
preprocess step found it), row 107 (the judge is asked whether the context supports each
claim, not whether it is a hallucination; Mastra's ``verdict`` is derived from its answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from scorekit.inputs.retrieval_context import ContextExtractor
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.pipeline import Scorer
from scorekit.scorers import verdicts as recipe
from scorekit.scorers.answer_claims import ANSWER_CLAIMS, claims_in_context
from scorekit.scorers.expected import Scoring, check_scoring
from scorekit.scorers.options import ReasonMode
from scorekit.scorers.replies import LANGUAGE_RULE, JudgeReply, YesNo, normalise_label

__all__ = [
    "ENTRY",
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
    """The verdict on one claim.

    The judge is asked whether the context supports the claim (``supported``); ``verdict``,
    Mastra's label, is derived from it (``"yes"``, a hallucination, when ``supported`` is
    ``"no"``; divergences.md row 107). A reply in Mastra's shape (``verdict`` and no
    ``supported``) is read as it is, ``supported`` derived the other way.
    """

    statement: SkipJsonSchema[str] = ""
    """The claim judged: the scorer's own copy, not asked of the judge (row 79)."""
    supported: YesNo = Field(description='"yes" when the context supports the claim, else "no".')
    """``yes`` when the context supports the claim."""
    verdict: SkipJsonSchema[YesNo] = "no"
    """``yes`` when the claim is a hallucination (derived from ``supported``)."""
    reason: str
    """Why, in the language of the user's query."""

    @model_validator(mode="before")
    @classmethod
    def _support_from_mastras_verdict(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "verdict" not in data:
            return data
        label = normalise_label(data["verdict"])
        if "supported" in data:  # both given: they must say the same; a null verdict is none
            if label is None:
                return {key: value for key, value in data.items() if key != "verdict"}
            support = normalise_label(data["supported"])
            if label in _OPPOSITE and support in _OPPOSITE and _OPPOSITE[label] != support:
                raise ValueError(
                    f'"supported": "{support}" and "verdict": "{label}" disagree; give '
                    '"supported" only'
                )
            return data
        if label not in _OPPOSITE:
            return data  # refused as the verdict it is, below
        return {**data, "supported": _OPPOSITE[label]}

    @model_validator(mode="after")
    def _verdict_from_support(self) -> HallucinationVerdict:
        self.verdict = _OPPOSITE[self.supported]
        return self


_OPPOSITE: dict[str, Literal["yes", "no"]] = {"yes": "no", "no": "yes"}


class HallucinationVerdicts(recipe.VerdictList[HallucinationVerdict]):
    """The analyze step's result: exactly one verdict per claim, in order (``expecting(n)``).

    Each verdict's ``statement`` is filled with its claim.
    """

    ITEM_OF: ClassVar[str] = "claim"
    ECHO: ClassVar[str | None] = "statement"


def hallucination_score(verdicts: Sequence[str], *, scale: float = 1.0) -> float:
    """Return the share of hallucinated claims (formula in the module docstring).

    Args:
        verdicts: normalised labels, one per claim (``"yes"`` = hallucination).
        scale: the maximum score, ``> 0``.

    Example:
        >>> hallucination_score(["yes", "no", "no"])
        0.33
    """
    return recipe.share_score(verdicts, scale=scale)


def _verdicts_prompt(query: str, context: Sequence[str], claims: Sequence[str]) -> str:
    return f"""Check each claim against the context below, using only the context.

{claims_in_context(query, context, claims)}

Give exactly {len(claims)} verdicts, one per claim, in the same order (do not copy the claims):
- "supported": "yes" when the context supports the claim, including a less precise date, a
  fair approximation, or speculation about facts that are in the context;
  "no" when the claim contradicts the context, asserts something the context does not
  support, praises or judges subjectively ("groundbreaking", "made history"), or speculates
  about facts that are not in the context. Leaving something out does not make a claim
  unsupported.
- "reason": one sentence.
{LANGUAGE_RULE}

Answer with JSON only:
{{"verdicts": [{{"supported": "yes", "reason": "..."}}]}}"""


def _reason_prompt(run: recipe.ToExplain[HallucinationVerdicts]) -> str:
    query, score, scale = run.query, run.score, run.scale
    lines = "\n".join(f"- {v.statement}: {v.verdict} ({v.reason})" for v in run.verdicts.verdicts)
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


RECIPE = recipe.VerdictRecipe(
    SCORER_ID,
    "Hallucination Scorer",
    "Share of the answer's claims that the context does not back",
    INSTRUCTIONS,
    ANSWER_CLAIMS,
    recipe.VerdictStep(
        "Mark hallucinated claims",
        HallucinationVerdicts,
        _verdicts_prompt,
        asked=recipe.AskedLabel("supported", {"no": 1.0}),
    ),
    recipe.ReasonStep(_reason_prompt, "the answer makes no claims."),
    no_context=NO_CONTEXT_REASON,
)
"""The scorer's parts: hallucinated claims (``yes``) count; an answer without claims gets a
local reason."""


def create_hallucination_scorer(
    *,
    model: str | JudgeModel | Judge,
    context: Sequence[str] | None = None,
    context_extractor: ContextExtractor | None = None,
    scale: float = 1.0,
    scoring: Scoring = "label",
    reason: ReasonMode = "llm",
) -> Scorer:
    """Create the Hallucination scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        context: the context pieces (non-empty list of strings).
        context_extractor: ``(input, output) -> list[str]``, sync or async, giving each run's
            context; it wins over ``context``. (Mastra's ``getContext``; see divergence 21.)
        scale: the maximum score, a finite number > 0.
        scoring: ``"label"`` (Mastra's: the verdicts' labels) or ``"expected"`` (each verdict
            weighs its expectation under the judge's label distribution, read from its token
            log-probabilities; :mod:`scorekit.scorers.expected`).
        reason: ``"llm"`` (Mastra's: the judge explains the score, one more call),
            ``"template"`` (the verdicts the score came from, stated without a judge call:
            :func:`~scorekit.scorers.verdicts.template_reason`) or ``"none"`` (no reason).

    Returns:
        A scorer with ``preprocess_step_result`` a :class:`~scorekit.scorers.replies.Claims`
        and ``analyze_step_result`` a :class:`HallucinationVerdicts`. A run whose resolved
        context is empty is ``skipped``; an empty answer scores 0; neither calls the judge.

    Raises:
        ConfigError: neither ``context`` nor ``context_extractor``; an empty ``context``; a bad
            ``scale``, ``scoring`` or ``reason``.
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


ENTRY = RECIPE.entry(
    "hallucination",
    create_hallucination_scorer,
    summary="Share of the answer's claims that the context does not back (lower is better)",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
