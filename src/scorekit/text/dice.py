"""Bigram Dice similarity, as npm ``string-similarity`` 4.0.4 ``compareTwoStrings`` computes it.

Algorithm (mastra-scorers.md §2.1): delete all whitespace; equal strings (both empty included)
score 1; a string shorter than 2 characters scores 0; otherwise
``2 * |bigrams(a) ∩ bigrams(b)| / (len(a) + len(b) - 2)`` with multiset intersection.
Characters are Python code points (divergences.md row 2); it is case-sensitive.
"""

from __future__ import annotations

from collections import Counter

from scorekit.text.whitespace import remove_whitespace

__all__ = ["dice_similarity"]


def _bigrams(text: str) -> Counter[str]:
    # map over two shifted views keeps the loop in C
    return Counter(map(str.__add__, text[:-1], text[1:]))


def dice_similarity(a: str, b: str) -> float:
    """Return the bigram Dice coefficient of two strings, in [0, 1].

    Source: npm string-similarity 4.0.4 ``compareTwoStrings``, as used by Mastra evals 1.10.2
    content-similarity. Whitespace (JS ``\\s``) is removed first; comparison is case-sensitive.

    Args:
        a: the first text, any length.
        b: the second text, any length.

    Returns:
        1.0 for texts equal after whitespace removal (both empty included), 0.0 when either has
        fewer than two characters left, else ``2 * shared bigrams / (len(a) + len(b) - 2)``.

    Example:
        >>> dice_similarity("night", "nacht")
        0.25
    """
    a = remove_whitespace(a)
    b = remove_whitespace(b)
    if a == b:
        return 1.0
    if len(a) < 2 or len(b) < 2:
        return 0.0
    first = _bigrams(a)
    second = _bigrams(b)
    if len(first) > len(second):
        first, second = second, first
    shared = 0
    get = second.get
    for bigram, count in first.items():
        other = get(bigram)
        if other:
            shared += count if count < other else other
    return 2.0 * shared / (len(a) + len(b) - 2)
