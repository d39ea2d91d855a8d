"""Completeness: how many of the reference's content words the output covers.

Score range ``[0, 1]``; 1 means every element of the reference is covered.

Formula (Mastra evals 1.10.2 completeness, ``calculateCoverage``): the elements of the reference
and of the output are extracted (:func:`scorekit.text.elements.extract_elements`, which
reproduces compromise 14.17.0's nouns / infinitive verbs / topics / terms with scorekit's own
tagger over compromise's lexicon). With ``R`` the
reference elements and ``O`` the output elements:

* ``R`` empty: 1 when ``O`` is empty too, else 0 (Mastra's; scorekit skips such a run: row 89);
* an element ``r`` is covered when some ``o`` in ``O`` matches it: for ``len(r) <= 3`` exact
  equality; otherwise, with ``longer``/``shorter`` the longer and the shorter of the two (a tie
  makes ``r`` the shorter), ``shorter in longer`` and ``len(shorter) / len(longer) > 0.6``;
* score = covered / ``len(R)``, unrounded.

``missing_elements`` lists the reference elements not *exactly* present in ``O`` (Mastra's).

Divergences (docs/divergences.md): 2 (code points), 3 (JS whitespace), 9 (the reference is the
ground truth when given, else the input), 89 (a reference without elements, or a reference or
output that is not English, is ``skipped`` with the reason). The measured agreement of the
element extraction with compromise is printed by ``benchmarks/completeness_parity.py``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.messages import joined_text
from scorekit.pipeline import NotScorable, Scorer, StepContext, create_scorer, not_scorable
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.options import CompareTo, check_compare_to, reference_text
from scorekit.text.elements import extract_elements
from scorekit.text.language import detect_language

__all__ = ["ENTRY", "NO_ELEMENTS_REASON", "SCORER_ID", "coverage", "create_completeness_scorer"]

SCORER_ID = "completeness-scorer"
"""The scorer's stable id (Mastra's)."""

NO_ELEMENTS_REASON = (
    "The reference has no elements (nouns, verbs, topics or terms): there is nothing for the "
    "output to cover."
)
"""The reason of a run ``skipped`` because the reference yields no element (row 89)."""

SHORT_WORD = 3
"""Elements of at most this many characters must match exactly (Mastra)."""

MIN_OVERLAP = 0.6
"""A longer element is covered by a substring relation only above this length ratio (Mastra)."""


def _covered(element: str, by_length: dict[int, list[str]], exact: set[str]) -> bool:
    if element in exact:
        return True
    size = len(element)
    if size <= SHORT_WORD:
        return False
    for length, candidates in by_length.items():
        if length == size:
            continue  # equal length: covered only by equality, checked above
        shorter, longer = (length, size) if length < size else (size, length)
        if shorter / longer <= MIN_OVERLAP:
            continue
        if length < size:
            if any(candidate in element for candidate in candidates):
                return True
        elif any(element in candidate for candidate in candidates):
            return True
    return False


def coverage(reference: list[str], output: list[str]) -> float:
    """Return the share of ``reference`` elements covered by ``output`` elements.

    Formula: see the module docstring (Mastra evals 1.10.2 completeness ``calculateCoverage``).

    Args:
        reference: the reference elements (distinct words).
        output: the output elements.

    Returns:
        A float in ``[0, 1]``: 1.0 when both are empty, 0.0 when only ``reference`` is empty
        is *not* the rule — an empty ``reference`` gives 1.0 only if ``output`` is empty too,
        else 0.0.

    Example:
        >>> coverage(["jump", "fox"], ["jumps"])
        0.5
    """
    if not reference:
        return 1.0 if not output else 0.0
    exact = set(output)
    # the rule is symmetric in substrings: a longer output word covers the strings inside it
    # that are long enough (``inside``), and an element is covered by a shorter output word
    # that is one of its own long-enough substrings; both are set look-ups for words up to
    # _INDEXED characters, instead of a scan over every output word per element
    inside: set[str] = set()
    every: defaultdict[int, list[str]] = defaultdict(list)
    long_words: defaultdict[int, list[str]] = defaultdict(list)
    for word in exact:
        every[len(word)].append(word)
        if len(word) <= _INDEXED:
            inside.update(_parts(word))
        else:
            long_words[len(word)].append(word)
    covered = 0
    for element in reference:
        if element in exact:
            covered += 1
        elif len(element) <= SHORT_WORD:
            continue
        elif len(element) > _INDEXED:  # a long element: the scan (few such words)
            covered += _covered(element, every, exact)
        elif (
            element in inside
            or not exact.isdisjoint(_parts(element))
            or _covered(element, long_words, exact)  # inside a long output word
        ):
            covered += 1
    return covered / len(reference)


_INDEXED = 40
"""Output words up to this length are indexed by their long-enough substrings (:func:`_parts`)."""


def _parts(word: str) -> list[str]:
    """The substrings of ``word`` that are shorter and longer than :data:`MIN_OVERLAP` of it."""
    size = len(word)
    out: list[str] = []
    length = size - 1
    while length > 0 and length / size > MIN_OVERLAP:
        out.extend(word[i : i + length] for i in range(size - length + 1))
        length -= 1
    return out


def create_completeness_scorer(*, compare_to: CompareTo = "auto") -> Scorer:
    """Create the Completeness scorer.

    Args:
        compare_to: the reference text: ``"auto"`` (ground truth when given, else input),
            ``"input"`` or ``"ground_truth"``.

    Returns:
        A scorer whose ``preprocess_step_result`` is ``{"input_elements": [str],
        "output_elements": [str], "missing_elements": [str], "element_counts": {"input": int,
        "output": int}}`` (``input_elements`` are the reference's) and whose score is in
        ``[0, 1]``.

    Raises:
        ConfigError: a bad option (at construction); at run time (status ``error``) a missing
            output or reference.

    Example:
        >>> scorer = create_completeness_scorer()
        >>> scorer.run_sync(input="apples, oranges, and bananas", output="apples and bananas").score
        0.75
    """
    compare_to = check_compare_to(compare_to)

    def preprocess(ctx: StepContext) -> dict[str, Any] | NotScorable:
        run = ctx.run
        if run.output is None:
            raise ConfigError("output is missing: nothing to score", field="output")
        if run.input is None and run.ground_truth is None:
            raise ConfigError("input is missing: no reference text", field="input")
        reference_string = reference_text(run.input, run.ground_truth, compare_to)
        output_string = joined_text(run.output, field="output")
        for what, text in (("reference", reference_string), ("output", output_string)):
            found = detect_language(text)
            if not found.english_rules:  # row 89: compromise's tagger reads English only
                return not_scorable(
                    f"completeness reads English text (compromise's part-of-speech tagger): "
                    f"the {what} is {found.name}"
                )
        reference = extract_elements(reference_string)
        output = extract_elements(output_string)
        present = set(output)
        return {
            "input_elements": reference,
            "output_elements": output,
            "missing_elements": [e for e in reference if e not in present],
            "element_counts": {"input": len(reference), "output": len(output)},
        }

    def generate_score(ctx: StepContext) -> float | NotScorable:
        step = ctx.results.preprocess_step_result
        if not step["input_elements"]:  # row 89: nothing to cover
            return not_scorable(NO_ELEMENTS_REASON)
        return coverage(step["input_elements"], step["output_elements"])

    return (
        create_scorer(
            SCORER_ID,
            name="Completeness Scorer",
            description="Share of the reference's content words the output covers",
        )
        .preprocess(preprocess)
        .generate_score(generate_score)
    )


ENTRY = ScorerEntry(
    name="completeness",
    scorer_id=SCORER_ID,
    factory=create_completeness_scorer,
    kind="code",
    summary="Share of the reference's content words (nouns, verbs, terms) the output covers",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
