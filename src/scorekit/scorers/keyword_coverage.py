"""Keyword Coverage: the share of the reference's keywords that the output contains.

Score range ``[0, 1]``; 1 means every keyword of the reference appears in the output.

Formula (Mastra evals 1.10.2 keyword-coverage): keywords are extracted with npm
keyword-extractor 0.0.28 semantics (:func:`scorekit.text.keywords.extract_keywords`: lowercase
words without punctuation, digits-only tokens and English stop words). With ``R`` the
reference's keyword set and ``O`` the output's: score = ``|R ∩ O| / |R|``, and **1 when ``R`` is
empty** (also when the output has keywords: Mastra's rule, kept for parity; the docs' "0.0 if
only one is empty" is wrong). Exact string matching: no stemming, ``fox`` ≠ ``foxes``.

Divergences (docs/divergences.md): 2 (code points), 3 (JS whitespace), 9 (the reference is the
ground truth when given), 14 (both texts empty: the same step-result shape as otherwise),
row 74 (a reference without keywords is ``skipped``, not 1), row 75 (Japanese and Chinese
are split into words), row 76 (other languages: Unicode words and their own stop words).

Languages (``language=``): ``"auto"`` (default) tells the reference's language
(:func:`scorekit.text.language.detect_language`: English for Latin letters without diacritics,
as Mastra) and extracts the keywords of both texts by that language's rules; ``"en"`` forces
Mastra's English rules; an ISO 639-1 code forces that language. Every language other than
English needs the optional extra ``scorekit[multilingual]`` (stop words from ``stopwordsiso``,
SudachiPy for Japanese, jieba for Chinese); a language that cannot be handled gives ``skipped``
with the reason (e.g. Thai: no word segmenter).
"""

from __future__ import annotations

from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.messages import joined_text
from scorekit.pipeline import NotScorable, Scorer, StepContext, create_scorer, not_scorable
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.options import CompareTo, check_compare_to, reference_text
from scorekit.text.keywords import extract_keywords
from scorekit.text.language import (
    LANGUAGE_NAMES,
    NO_SPACE_SCRIPTS,
    detect_language,
    language_name,
    language_script,
)
from scorekit.text.segment import SEGMENTED_LANGUAGES, segmenter_missing
from scorekit.text.stopwords import MULTILINGUAL_HINT, stopwords_for
from scorekit.text.whitespace import js_trim

__all__ = [
    "ENTRY",
    "SCORER_ID",
    "create_keyword_coverage_scorer",
    "keyword_coverage",
    "keyword_language_problem",
]

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


def keyword_language_problem(code: str) -> str | None:
    """Why keyword coverage cannot extract keywords in language ``code`` here, or ``None``.

    English never has a problem; another language needs a ``stopwordsiso`` list and, when it
    is written without spaces, a segmenter (Japanese, Chinese).

    Example:
        >>> keyword_language_problem("en") is None
        True
    """
    if code == "en":
        return None
    name = language_name(code)
    if stopwords_for(code) is None:
        if code in LANGUAGE_NAMES:
            return f"keyword coverage needs the {name} stop-word list: {MULTILINGUAL_HINT}"
        return f"keyword coverage has no stop-word list for language {code!r}"
    if language_script(code) in NO_SPACE_SCRIPTS and code not in SEGMENTED_LANGUAGES:
        return f"keyword coverage cannot split {name} text into words: no word segmenter for it"
    missing = segmenter_missing(code)
    return None if missing is None else f"keyword coverage: {missing}"


def _check_language(language: object) -> str:
    if not isinstance(language, str) or not (
        language.isascii() and language.isalpha() and language.islower()
    ):
        raise ConfigError(
            f"language must be 'auto', 'en' or an ISO 639-1 code, not {language!r}",
            field="language",
        )
    if language != "auto":
        problem = keyword_language_problem(language)
        if problem is not None:
            raise ConfigError(f"language={language!r}: {problem}", field="language")
    return language


def _no_keywords_reason(reference: str) -> str:
    if not js_trim(reference):
        return "the reference text is empty: there are no keywords to look for"
    return (
        "the reference has no keywords: all its words are stop words, numbers, punctuation "
        "or markup"
    )


def create_keyword_coverage_scorer(
    *, compare_to: CompareTo = "auto", language: str = "auto"
) -> Scorer:
    """Create the Keyword Coverage scorer.

    Args:
        compare_to: the reference text: ``"auto"`` (ground truth when given, else input),
            ``"input"`` or ``"ground_truth"``.
        language: ``"auto"`` (tell the reference's language), ``"en"`` (Mastra's English
            rules on any text) or an ISO 639-1 code (``"pl"``, ``"ja"``); see the module
            docstring.

    Returns:
        A scorer with ``preprocess_step_result = {"reference_keywords": [str],
        "response_keywords": [str]}`` (distinct, first occurrence first; plus ``"language"``,
        the code, when it is not English) and ``analyze_step_result = {"total_keywords_length":
        int, "matched_keywords_length": int}``. A reference without keywords ends the run as
        ``skipped`` after preprocess (row 74); so does a language it cannot handle.

    Raises:
        ConfigError: ``compare_to`` is not one of the three values; ``language`` is not a code
            it can handle here (``field="language"``).

    Example:
        >>> scorer = create_keyword_coverage_scorer()
        >>> scorer.run_sync(input="The quick brown fox", output="A quick brown fox").score
        1.0
    """
    compare_to = check_compare_to(compare_to)
    language = _check_language(language)

    def reference_of(ctx: StepContext) -> str:
        return reference_text(ctx.run.input, ctx.run.ground_truth, compare_to)

    def preprocess(ctx: StepContext) -> dict[str, Any] | NotScorable:
        reference = reference_of(ctx)
        output = joined_text(ctx.run.output, field="output")
        code = language
        if code == "auto":
            found = detect_language(reference)
            if not found.english_rules and found.code is None:
                return not_scorable(
                    f"keyword coverage cannot tell the language of the reference: {found.reason}"
                )
            code = "en" if found.english_rules else str(found.code)
            problem = keyword_language_problem(code)
            if problem is not None:
                return not_scorable(f"the reference is {language_name(code)}; {problem}")
        if code == "en":
            return {
                "reference_keywords": extract_keywords(reference),
                "response_keywords": extract_keywords(output),
            }
        return {
            "reference_keywords": extract_keywords(reference, code),
            "response_keywords": extract_keywords(output, code),
            "language": code,
        }

    def analyze(ctx: StepContext) -> dict[str, int] | NotScorable:
        step = ctx.results.preprocess_step_result
        response = set(step["response_keywords"])
        reference: list[str] = step["reference_keywords"]
        if not reference:  # Mastra scores 1 here (row 74)
            return not_scorable(_no_keywords_reason(reference_of(ctx)))
        return {
            "total_keywords_length": len(reference),
            # the reference's keywords are distinct: its set's overlap counts each once
            "matched_keywords_length": len(response.intersection(reference)),
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
    summary=(
        "Share of the reference's keywords (stop words removed) found in the output; "
        "languages: English (Mastra's rules), 56 more with scorekit[multilingual] "
        "(Japanese, Chinese segmented); others skipped"
    ),
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
