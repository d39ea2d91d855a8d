"""Case-insensitive matching as JavaScript regular expressions do it (the ``i`` flag).

ECMAScript compares two characters under ``i`` by their *canonical* forms (ECMA-262
``Canonicalize``):

* without the ``u`` flag: ``toUpperCase`` of the character, unless that is not one character,
  or it would map a non-ASCII character to an ASCII one (so LONG S ``ſ`` does not match ``s``
  and KELVIN SIGN ``K`` does not match ``k``);
* with ``u``: the simple case folding of the character (``ſ`` then matches ``s``, ``K``
  matches ``k``, but ``İ`` and ``ı`` match nothing but themselves).

Python's ``re.IGNORECASE`` pairs characters by its own rules (``lower()`` plus a table of
extra equivalences such as ``i``/``ı``), which are neither of these. So the translator does not
use it: it replaces each literal character by the class of all characters with the same
canonical form, and closes each character class under the same relation
(:func:`case_closure`). The equivalence groups are computed once per mode from Python's Unicode
tables (``str.upper``, ``str.casefold``, ``str.lower``): the BMP without ``u`` (JS then works on
UTF-16 code units, whose surrogates have no case), U+0000–U+1FFFF with ``u`` (every cased
character lies there). Simple case folding is taken as ``casefold()`` when that is one
character, else ``lower()`` when that is one character, else the character itself, which gives
the status C and S mappings of Unicode's CaseFolding.txt.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence

__all__ = ["Ranges", "case_closure", "case_variants", "merge_ranges"]

Ranges = list[tuple[int, int]]
"""A set of code points as sorted, disjoint, non-adjacent inclusive ranges ``(low, high)``."""

_BMP_END = 0xFFFF
"""The last code unit JS compares without the ``u`` flag."""
_CASED_END = 0x1FFFF
"""Every cased character of Unicode lies below this code point."""


def _canonical_code_unit(cp: int) -> int:
    # ECMA-262 Canonicalize, rer.[[Unicode]] false
    upper = chr(cp).upper()
    if len(upper) != 1:
        return cp
    if cp >= 128 and ord(upper) < 128:
        return cp
    return ord(upper)


def _simple_fold(cp: int) -> int:
    # ECMA-262 Canonicalize, rer.[[Unicode]] true: simple case folding (status C and S)
    char = chr(cp)
    folded = char.casefold()
    if len(folded) == 1:
        return ord(folded)
    lower = char.lower()
    if len(lower) == 1:
        return ord(lower)
    return cp


@functools.cache
def _partners(unicode: bool) -> dict[int, tuple[int, ...]]:
    """Code point → every code point of its case group (groups of two or more only)."""
    canonical = _simple_fold if unicode else _canonical_code_unit
    end = _CASED_END if unicode else _BMP_END
    groups: dict[int, list[int]] = {}
    for cp in range(end + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue  # surrogates have no case
        groups.setdefault(canonical(cp), []).append(cp)
    found: dict[int, tuple[int, ...]] = {}
    for members in groups.values():
        if len(members) > 1:
            group = tuple(members)  # ascending: code points were visited in order
            for cp in group:
                found[cp] = group
    return found


def case_variants(cp: int, *, unicode: bool) -> tuple[int, ...]:
    """Return every character a literal ``cp`` matches under the ``i`` flag, sorted.

    Args:
        cp: the literal's code point.
        unicode: whether the regex has the ``u`` flag.

    Returns:
        ``(cp,)`` for a character without case partners, else its whole case group.

    Example:
        >>> [chr(c) for c in case_variants(ord("k"), unicode=False)]
        ['K', 'k']
        >>> [hex(c) for c in case_variants(ord("k"), unicode=True)]  # KELVIN SIGN too
        ['0x4b', '0x6b', '0x212a']
    """
    return _partners(unicode).get(cp, (cp,))


def merge_ranges(ranges: Sequence[tuple[int, int]]) -> Ranges:
    """Sort ranges and merge the overlapping or adjacent ones."""
    merged: Ranges = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            if high > merged[-1][1]:
                merged[-1] = (merged[-1][0], high)
        else:
            merged.append((low, high))
    return merged


def _contains(ranges: Ranges, starts: list[int], cp: int) -> bool:
    index = bisect.bisect_right(starts, cp) - 1
    return index >= 0 and ranges[index][1] >= cp


def case_closure(ranges: Ranges, *, unicode: bool) -> Ranges:
    """Return ``ranges`` plus every character case-equivalent to one of its members.

    A character class matches a character under ``i`` when some member has the same canonical
    form (ECMA-262 ``CharacterSetMatcher``), so the closed set matches exactly those.

    Args:
        ranges: the class as merged ranges.
        unicode: whether the regex has the ``u`` flag.

    Returns:
        The closed set, as merged ranges.
    """
    starts = [low for low, _ in ranges]
    extra: list[tuple[int, int]] = []
    seen: set[tuple[int, ...]] = set()
    for group in _partners(unicode).values():
        if group in seen:
            continue
        seen.add(group)
        if any(_contains(ranges, starts, cp) for cp in group):
            extra.extend((cp, cp) for cp in group)
    if not extra:
        return ranges
    return merge_ranges([*ranges, *extra])
