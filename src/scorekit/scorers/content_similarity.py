"""Content Similarity: how much the output's text overlaps the reference text.

Score range ``[0, scale]``; 1 × scale means the texts are identical after normalisation.

Formula (Mastra evals 1.10.2 content-similarity; seed document "コンテンツ類似度スコアラー"):
preprocess lower-cases both texts (``ignore_case``) and collapses JS whitespace runs to one space
and trims (``ignore_whitespace``); analyze computes the bigram Dice coefficient of npm
string-similarity 4.0.4 (:func:`scorekit.text.dice_similarity`); score = similarity × scale,
unrounded.

Divergences that apply (docs/divergences.md): 1 (each option has its own default), 2 (code
points), 3 (JS whitespace), 4 (``scale`` validated), 9 (the reference is the ground truth when
given), 11 (analyze returns ``{"similarity": ...}`` as the seed documents it).
"""

from __future__ import annotations

from scorekit.inputs.messages import joined_text
from scorekit.pipeline import Scorer, StepContext, create_scorer
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.options import (
    CompareTo,
    check_compare_to,
    check_flag,
    check_scale,
    reference_text,
)
from scorekit.text.dice import dice_similarity
from scorekit.text.whitespace import collapse_whitespace

__all__ = ["ENTRY", "SCORER_ID", "create_content_similarity_scorer"]

SCORER_ID = "content-similarity-scorer"
"""The scorer's stable id (Mastra's)."""


def create_content_similarity_scorer(
    *,
    ignore_case: bool = True,
    ignore_whitespace: bool = True,
    compare_to: CompareTo = "auto",
    scale: float = 1.0,
) -> Scorer:
    """Create the Content Similarity scorer.

    Args:
        ignore_case: lower-case both texts before comparing.
        ignore_whitespace: collapse whitespace runs to one space and trim. (The similarity
            ignores whitespace anyway; this shapes ``preprocess_step_result``.)
        compare_to: the reference text: ``"auto"`` (ground truth when given, else input),
            ``"input"`` or ``"ground_truth"``.
        scale: multiplies the similarity; a finite number > 0.

    Returns:
        A scorer whose results hold ``preprocess_step_result = {"processed_input": str,
        "processed_output": str}`` (``processed_input`` is the reference text) and
        ``analyze_step_result = {"similarity": float in [0, 1]}``.

    Raises:
        ConfigError: an option has a wrong type or value.

    Example:
        >>> scorer = create_content_similarity_scorer()
        >>> scorer.run_sync(input="night", output="nacht").score
        0.25
    """
    ignore_case = check_flag(ignore_case, field="ignore_case")
    ignore_whitespace = check_flag(ignore_whitespace, field="ignore_whitespace")
    compare_to = check_compare_to(compare_to)
    scale = check_scale(scale)

    def normalise(text: str) -> str:
        if ignore_case:
            text = text.lower()
        if ignore_whitespace:
            text = collapse_whitespace(text)
        return text

    def preprocess(ctx: StepContext) -> dict[str, str]:
        run = ctx.run
        reference = reference_text(run.input, run.ground_truth, compare_to)
        output = joined_text(run.output, field="output")
        return {"processed_input": normalise(reference), "processed_output": normalise(output)}

    def analyze(ctx: StepContext) -> dict[str, float]:
        texts = ctx.results.preprocess_step_result
        return {"similarity": dice_similarity(texts["processed_input"], texts["processed_output"])}

    def generate_score(ctx: StepContext) -> float:
        similarity: float = ctx.results.analyze_step_result["similarity"]
        return similarity * scale

    return (
        create_scorer(
            SCORER_ID,
            name="Content Similarity Scorer",
            description="Bigram similarity of the output and the reference text",
        )
        .preprocess(preprocess)
        .analyze(analyze)
        .generate_score(generate_score)
    )


ENTRY = ScorerEntry(
    name="content-similarity",
    scorer_id=SCORER_ID,
    factory=create_content_similarity_scorer,
    kind="code",
    summary="Bigram (Dice) similarity of the output and the reference text",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
