"""Keyword Coverage: the share of the reference's keywords that the output contains.

Score range ``[0, 1]``; 1 means every keyword of the reference appears in the output.

Formula (Mastra evals 1.10.2 keyword-coverage): keywords are extracted with npm
keyword-extractor 0.0.28 semantics (:func:`scorekit.text.keywords.extract_keywords`: lowercase
words without punctuation, digits-only tokens and English stop words). With ``R`` the
reference's keyword set and ``O`` the output's: score = ``|R ∩ O| / |R|``, and **1 when ``R`` is
empty** (also when the output has keywords: Mastra's rule, kept for parity; the docs' "0.0 if
only one is empty" is wrong). Exact string matching: no stemming, ``fox`` ≠ ``foxes``.

Divergences (docs/divergences.md): 2 (code points), 3 (JS whitespace), 9 (the reference is the
ground truth when given), 14 (both texts empty: the same step-result shape as otherwise).
"""

from __future__ import annotations

from scorekit.messages import joined_text
from scorekit.options import CompareTo, check_compare_to, reference_text
from scorekit.pipeline import Scorer, StepContext, create_scorer
from scorekit.scorers.registry import ScorerEntry
from scorekit.text.keywords import extract_keywords

__all__ = ["ENTRY", "SCORER_ID", "create_keyword_coverage_scorer", "keyword_coverage"]

SCORER_ID = "keyword-coverage-scorer"
"""The scorer's stable id (Mastra's)."""


def keyword_coverage(total: int, matched: int) -> float:
    """Return the keyword-coverage score.

    Formula (Mastra evals 1.10.2 keyword-coverage ``generateScore``): 1.0 when ``total`` is 0,
    else ``matched / total``.

    Args:
        total: number of distinct reference keywords, ``>= 0``.
        matched: how many of them the output has, ``0..total``.

    Returns:
        A float in ``[0, 1]``.

    Example:
        >>> keyword_coverage(6, 3)
        0.5
    """
    return 1.0 if total == 0 else matched / total


def create_keyword_coverage_scorer(*, compare_to: CompareTo = "auto") -> Scorer:
    """Create the Keyword Coverage scorer.

    Args:
        compare_to: the reference text: ``"auto"`` (ground truth when given, else input),
            ``"input"`` or ``"ground_truth"``.

    Returns:
        A scorer with ``preprocess_step_result = {"reference_keywords": [str],
        "response_keywords": [str]}`` (distinct, first occurrence first) and
        ``analyze_step_result = {"total_keywords_length": int, "matched_keywords_length": int}``.

    Raises:
        ConfigError: ``compare_to`` is not one of the three values.

    Example:
        >>> scorer = create_keyword_coverage_scorer()
        >>> scorer.run_sync(input="The quick brown fox", output="A quick brown fox").score
        1.0
    """
    compare_to = check_compare_to(compare_to)

    def preprocess(ctx: StepContext) -> dict[str, list[str]]:
        run = ctx.run
        reference = reference_text(run.input, run.ground_truth, compare_to)
        output = joined_text(run.output, field="output")
        return {
            "reference_keywords": extract_keywords(reference),
            "response_keywords": extract_keywords(output),
        }

    def analyze(ctx: StepContext) -> dict[str, int]:
        step = ctx.results.preprocess_step_result
        response = set(step["response_keywords"])
        reference: list[str] = step["reference_keywords"]
        return {
            "total_keywords_length": len(reference),
            "matched_keywords_length": sum(1 for word in reference if word in response),
        }

    def generate_score(ctx: StepContext) -> float:
        counts = ctx.results.analyze_step_result
        return keyword_coverage(counts["total_keywords_length"], counts["matched_keywords_length"])

    return (
        create_scorer(
            SCORER_ID,
            name="Keyword Coverage Scorer",
            description="Share of the reference's keywords found in the output",
        )
        .preprocess(preprocess)
        .analyze(analyze)
        .generate_score(generate_score)
    )


ENTRY = ScorerEntry(
    name="keyword-coverage",
    scorer_id=SCORER_ID,
    factory=create_keyword_coverage_scorer,
    kind="code",
    summary="Share of the reference's keywords (stop words removed) found in the output",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
