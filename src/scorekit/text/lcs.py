"""Length of the longest common subsequence of two strings, in linear memory.

Mastra evals 1.10.2 textual-difference fills a full ``(m+1)×(n+1)`` table (2.3 s and about 1 GB
for two 10,000-character texts). The length it computes is what rapidfuzz's bit-parallel
``LCSseq.similarity`` returns, in O(⌈m/64⌉·n) time and O(m) memory; ``tests/text/test_lcs.py``
checks it against the textbook DP on random strings.

Characters are Python code points, not UTF-16 units (``divergences.md`` row 2).
"""

from __future__ import annotations

from rapidfuzz.distance import LCSseq

__all__ = ["lcs_length", "lcs_ratio"]


def lcs_length(a: str, b: str) -> int:
    """Return the length of the longest common subsequence of the characters of ``a`` and ``b``.

    Args:
        a: any string.
        b: any string.

    Returns:
        An integer in ``0..min(len(a), len(b))``.

    Example:
        >>> lcs_length("kitten", "sitting")
        4
    """
    return int(LCSseq.similarity(a, b))


def lcs_ratio(a: str, b: str) -> float:
    """Return Mastra's textual-difference ratio of two strings.

    Formula (Mastra evals 1.10.2 textual-difference ``calculateRatio``): 1.0 when the strings
    are equal (including both empty); 0.0 when exactly one is empty; otherwise
    ``2 * lcs_length(a, b) / (len(a) + len(b))``. This is not ``difflib``'s ratio.

    Args:
        a: the reference text.
        b: the compared text.

    Returns:
        A float in ``[0, 1]``.

    Example:
        >>> lcs_ratio("kitten", "sitting")
        0.6153846153846154
    """
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    return 2.0 * lcs_length(a, b) / (len(a) + len(b))
