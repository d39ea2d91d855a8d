"""Textual Difference: how similar the output's characters are to the reference's.

Score range ``[0, 1]``; 1 means the texts are identical.

Formula (Mastra evals 1.10.2 textual-difference): score = ``ratio`` =
``2 * LCS(reference, output) / (len(reference) + len(output))`` over characters, 1 for identical
texts and 0 when exactly one is empty (:func:`scorekit.text.lcs.lcs_ratio`). Case and whitespace
count. ``LCS`` is the longest common subsequence (not ``difflib``), computed in linear memory.

The step result also reports, for information only (the score does not use them):
``changes`` (a greedy word-level change count), ``length_diff`` =
``|len_ref − len_out| / max(len_ref, len_out)`` and ``confidence = 1 − length_diff``. (The docs'
"ratio × confidence × scale" is wrong: Mastra uses the ratio alone.)

Divergences (docs/divergences.md): 2 (code points), 3 (JS whitespace), 9 (the reference is the
ground truth when given).
"""

from __future__ import annotations

import re

from scorekit.errors import ConfigError
from scorekit.inputs.messages import joined_text
from scorekit.pipeline import NotScorable, Scorer, StepContext, create_scorer, not_scorable
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.options import CompareTo, check_compare_to, reference_text
from scorekit.text.lcs import lcs_ratio
from scorekit.text.whitespace import JS_WS_CLASS, collapse_whitespace

__all__ = [
    "DEFAULT_MAX_LENGTH",
    "ENTRY",
    "SCORER_ID",
    "count_changes",
    "create_textual_difference_scorer",
    "length_difference",
]

SCORER_ID = "textual-difference-scorer"
"""The scorer's stable id (Mastra's)."""

_WORD_SPLIT = re.compile(JS_WS_CLASS + "+")


def _words(text: str) -> list[str]:
    return [word for word in _WORD_SPLIT.split(text) if word]


def count_changes(reference: str, output: str) -> int:
    """Return Mastra's word-level change count between two texts (informational).

    Formula (Mastra evals 1.10.2 textual-difference ``countChanges``): with whitespace collapsed
    and trimmed, equal texts give 0 if the originals are equal, else the difference of their
    word counts or 1 when that is 0. Otherwise, if one side has no words, the other's word
    count; else ``max(#ref, #out) − matches``, where each reference word in order takes the
    first unused equal output word.

    Args:
        reference: the reference text.
        output: the output text.

    Returns:
        A count ``>= 0``.

    Example:
        >>> count_changes("The quick brown fox", "The quick brown cat")
        1
    """
    ref_norm, out_norm = collapse_whitespace(reference), collapse_whitespace(output)
    if ref_norm == out_norm:
        if reference == output:
            return 0
        return abs(len(_words(reference)) - len(_words(output))) or 1
    ref_words, out_words = _words(ref_norm), _words(out_norm)
    if not ref_words or not out_words:
        return len(out_words) if not ref_words else len(ref_words)
    unused: dict[str, list[int]] = {}
    for index, word in enumerate(out_words):
        unused.setdefault(word, []).append(index)
    matches = 0
    for word in ref_words:
        free = unused.get(word)
        if free:
            free.pop(0)
            matches += 1
    return max(len(ref_words), len(out_words)) - matches


def length_difference(reference: str, output: str) -> float:
    """Return ``|len(ref) − len(out)| / max(len(ref), len(out))``, 0.0 when both are empty.

    Args:
        reference: the reference text.
        output: the output text.

    Returns:
        A float in ``[0, 1]``.
    """
    longest = max(len(reference), len(output))
    return abs(len(reference) - len(output)) / longest if longest > 0 else 0.0


DEFAULT_MAX_LENGTH = 200_000
"""The longest text (characters) compared by default: the exact LCS is quadratic (about 3 s for
two texts of this length on one core), so longer ones are ``skipped`` (row 90)."""


def create_textual_difference_scorer(
    *, compare_to: CompareTo = "auto", max_length: int | None = DEFAULT_MAX_LENGTH
) -> Scorer:
    """Create the Textual Difference scorer.

    Args:
        compare_to: the reference text: ``"auto"`` (ground truth when given, else input),
            ``"input"`` or ``"ground_truth"``.
        max_length: the longest reference or output compared, in characters (an integer
            ``>= 1``), or ``None`` for no limit. The longest common subsequence takes time
            proportional to the product of the two lengths; a run with a longer text is
            ``skipped`` with a reason instead of stalling (row 90).

    Returns:
        A scorer with ``preprocess_step_result = {"ratio": float in [0, 1], "confidence": float
        in [0, 1], "changes": int >= 0, "length_diff": float in [0, 1]}``; score = ``ratio``.

    Raises:
        ConfigError: ``compare_to`` is not one of the three values; ``max_length`` is not a
            positive integer or ``None``.

    Example:
        >>> scorer = create_textual_difference_scorer()
        >>> scorer.run_sync(input="kitten", output="sitting").score
        0.6153846153846154
    """
    compare_to = check_compare_to(compare_to)
    if max_length is not None and (
        isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1
    ):
        raise ConfigError(
            f"max_length must be a positive integer or None, not {max_length!r}",
            field="max_length",
        )

    def preprocess(ctx: StepContext) -> dict[str, float | int] | NotScorable:
        run = ctx.run
        reference = reference_text(run.input, run.ground_truth, compare_to)
        output = joined_text(run.output, field="output")
        longest = max(len(reference), len(output))
        if max_length is not None and longest > max_length:
            return not_scorable(
                f"a text of {longest:,} characters is longer than max_length={max_length:,}: "
                "the exact longest common subsequence takes time quadratic in the length "
                "(raise max_length, or None, to compare it anyway)"
            )
        length_diff = length_difference(reference, output)
        return {
            "ratio": lcs_ratio(reference, output),
            "confidence": 1 - length_diff,
            "changes": count_changes(reference, output),
            "length_diff": length_diff,
        }

    def generate_score(ctx: StepContext) -> float:
        ratio: float = ctx.results.preprocess_step_result["ratio"]
        return ratio

    return (
        create_scorer(
            SCORER_ID,
            name="Textual Difference Scorer",
            description="Longest-common-subsequence ratio of the output and the reference text",
        )
        .preprocess(preprocess)
        .generate_score(generate_score)
    )


ENTRY = ScorerEntry(
    name="textual-difference",
    scorer_id=SCORER_ID,
    factory=create_textual_difference_scorer,
    kind="code",
    summary="Longest-common-subsequence ratio of the output and the reference text",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
