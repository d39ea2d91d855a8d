"""Bigram Dice similarity, as npm ``string-similarity`` 4.0.4 ``compareTwoStrings`` computes it.

Algorithm (mastra-scorers.md §2.1): delete all whitespace; equal strings (both empty included)
score 1; a string shorter than 2 characters scores 0; otherwise
``2 * |bigrams(a) ∩ bigrams(b)| / (len(a) + len(b) - 2)`` with multiset intersection.
Characters are Python code points (divergences.md row 2); it is case-sensitive.

Two ASCII texts go to the C kernel where ``make core`` built it (``_dice_kernel.c``: the whole
computation, whitespace removal included, the bigrams counted in a table of 128 x 128 bins).
Otherwise two exact ways count the shared bigrams: a dict count for short texts, where it is
cheapest, and a vectorised one for long texts (code points renumbered densely, each bigram
becomes one integer ``first * alphabet + second``, counted with ``bincount``), which is 8-15
times faster at 1,000-10,000 characters. All give the same integer, so the score is the same float.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from scorekit.text.whitespace import remove_whitespace

__all__ = ["dice_similarity"]

_SHORT = 200
"""Below this many characters (both texts together) the dict count is the faster one."""

_MAX_BINS = 1 << 20
"""The most bigram bins counted densely (8 MiB per text); beyond, bigrams are sorted instead."""

_SLICE = 1 << 15
"""Code points counted at a time in the dense count (a few hundred KiB of arrays)."""


@functools.cache
def _kernel() -> Callable[[str, str], float] | None:
    """The C kernel's :func:`dice_similarity` of two ASCII texts, or ``None`` where not built.

    ``scorekit/text/_dice_kernel.c``, built by ``make core`` and importable only while that
    build is current (:mod:`scorekit.text.compiled`); the same float as the Python code
    (``tests/text/test_dice.py`` compares them) in a tenth of the time or less.
    """
    try:
        from scorekit.text import _dice_kernel
    except ImportError:
        return None
    return _dice_kernel.dice


def _shared_bigrams_dict(a: str, b: str) -> int:
    first = Counter(map(str.__add__, a[:-1], a[1:]))
    second = Counter(map(str.__add__, b[:-1], b[1:]))
    if len(first) > len(second):
        first, second = second, first
    shared = 0
    get = second.get
    for bigram, count in first.items():
        other = get(bigram)
        if other:
            shared += count if count < other else other
    return shared


def _code_points(text: str) -> np.ndarray[Any, np.dtype[np.uint8 | np.uint32]]:
    """The text's code points as an array: one byte each for ASCII text, else four."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    # surrogatepass: a lone surrogate (legal in JSON text) is a code point like any other
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _bigram_keys(ids: np.ndarray[Any, Any], alphabet: int) -> np.ndarray[Any, Any]:
    """One integer per bigram of the dense ids: ``first * alphabet + second``."""
    keys = ids[:-1].astype(np.intp)
    keys *= alphabet
    keys += ids[1:]
    return keys


def _dense_counts(
    points: np.ndarray[Any, Any], dense: np.ndarray[Any, Any], alphabet: int
) -> np.ndarray[Any, Any]:
    """Each bigram's count, in a dense table of ``alphabet ** 2`` bins.

    Counted a slice at a time (consecutive slices share one code point, so every bigram is
    counted once): the slice's arrays stay in the processor's cache, where one pass over a
    megabyte text would go to main memory for each of them (about 1.5 times the time per
    character). A slice is never shorter than the table, so adding its counts costs no more
    than counting them.
    """
    bins = alphabet * alphabet
    step = max(_SLICE, bins)
    counts = np.zeros(bins, dtype=np.intp)
    for start in range(0, len(points) - 1, step):
        ids = dense[points[start : start + step + 1]]
        counts += np.bincount(_bigram_keys(ids, alphabet), minlength=bins)
    return counts


def _shared_bigrams_vector(a: str, b: str) -> int:
    points_a, points_b = _code_points(a), _code_points(b)
    top = int(max(points_a.max(), points_b.max())) + 1
    present = np.zeros(top, dtype=np.bool_)
    present[points_a] = True
    present[points_b] = True
    dense = np.cumsum(present, dtype=np.int32) - 1  # code point -> 0..alphabet-1
    alphabet = int(dense[-1]) + 1
    if alphabet * alphabet <= _MAX_BINS:
        counts_a = _dense_counts(points_a, dense, alphabet)
        counts_b = _dense_counts(points_b, dense, alphabet)
        return int(np.minimum(counts_a, counts_b).sum())
    unique_a, counts_a = np.unique(_bigram_keys(dense[points_a], alphabet), return_counts=True)
    unique_b, counts_b = np.unique(_bigram_keys(dense[points_b], alphabet), return_counts=True)
    _, index_a, index_b = np.intersect1d(
        unique_a, unique_b, assume_unique=True, return_indices=True
    )
    return int(np.minimum(counts_a[index_a], counts_b[index_b]).sum())


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
    kernel = _kernel()
    if kernel is not None and a.isascii() and b.isascii():
        return kernel(a, b)
    a = remove_whitespace(a)
    b = remove_whitespace(b)
    if a == b:
        return 1.0
    if len(a) < 2 or len(b) < 2:
        return 0.0
    if len(a) + len(b) < _SHORT:
        shared = _shared_bigrams_dict(a, b)
    else:
        shared = _shared_bigrams_vector(a, b)
    return 2.0 * shared / (len(a) + len(b) - 2)
