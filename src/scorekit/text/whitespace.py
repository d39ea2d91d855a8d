"""JavaScript's ``\\s`` whitespace set, which Mastra's text handling relies on.

JS ``\\s`` is not Python's: it includes U+FEFF and excludes U+001C–U+001F and U+0085
(divergences.md row 3). Source: ECMAScript ``WhiteSpace`` and ``LineTerminator`` productions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = [
    "JS_WHITESPACE",
    "JS_WS_CLASS",
    "SLICE",
    "collapse_whitespace",
    "js_trim",
    "remove_whitespace",
    "space_slices",
    "split_agrees",
]

JS_WHITESPACE: frozenset[str] = frozenset(
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""Every character JS ``\\s`` matches."""

JS_WS_CLASS = "[" + "".join(sorted(JS_WHITESPACE)).replace("\\", "\\\\") + "]"
"""A regex character class matching one JS whitespace character."""

_RUNS = re.compile(JS_WS_CLASS + "+")
_DELETE = {ord(c): None for c in JS_WHITESPACE}
_STRIP = "".join(JS_WHITESPACE)
# the characters on which Python's str.split() and JS \s disagree
_DISAGREE = re.compile("[\x1c-\x1f\x85\ufeff]")
_DISAGREE_ASCII = "\x1c\x1d\x1e\x1f"
_ASCII_SPACE = " \t\n\v\f\r"
"""JS whitespace within ASCII."""


def split_agrees(text: str) -> bool:
    """Whether ``str.split()`` splits ``text`` where JS ``\\s`` does (a few scans of ASCII)."""
    if text.isascii():
        return not any(c in text for c in _DISAGREE_ASCII)
    return _DISAGREE.search(text) is None


def js_trim(text: str) -> str:
    """Strip JS whitespace from both ends (JS ``String.prototype.trim``).

    Unlike ``str.strip()``, U+0085 and U+001C–U+001F stay and U+FEFF goes.
    """
    return text.strip(_STRIP)


SLICE = 1 << 16
"""Characters in a slice of :func:`space_slices` (its words stay in the processor's cache)."""


def space_slices(text: str) -> Iterator[str]:
    """Yield ``text`` in pieces of about :data:`SLICE` characters, cut at single spaces.

    Each cut is the first ``" "`` at or after :data:`SLICE` characters into the rest, and that
    space belongs to neither piece. So splitting the pieces on whitespace, or on ``" "``, gives
    exactly the words (or tokens) of the whole text, with no word spanning two pieces. At least
    one piece is yielded (``""`` for ``""``). A megabyte text processed piece by piece never
    builds its whole word list, which would not fit the processor's cache: about half the
    time of one split.
    """
    start = 0
    while len(text) - start > SLICE:
        cut = text.find(" ", start + SLICE)
        if cut < 0:
            break
        yield text[start:cut]
        start = cut + 1
    yield text[start:]


def _joined_words(text: str, sep: str) -> str:
    """``sep.join(text.split())``, a piece of :func:`space_slices` at a time."""
    pieces = [sep.join(piece.split()) for piece in space_slices(text)]
    return sep.join([piece for piece in pieces if piece])


def remove_whitespace(text: str) -> str:
    """Delete every JS whitespace character (JS ``text.replace(/\\s+/g, '')``)."""
    if text.isascii():
        # str.replace for each ASCII whitespace character present: a few memchr-speed passes
        for space in _ASCII_SPACE:
            if space in text:
                text = text.replace(space, "")
        return text
    if _DISAGREE.search(text) is None:
        # str.split() has the same whitespace set here; str.translate takes ~40 ns a character
        # on text that is not ASCII, where split and join take ~10
        return _joined_words(text, "")
    return text.translate(_DELETE)


def collapse_whitespace(text: str) -> str:
    """Collapse runs of JS whitespace to one space and trim (JS ``replace(/\\s+/g,' ').trim()``).

    JS ``trim`` removes the same whitespace set, so the result has none at either end.
    """
    if text.isascii() and not any(space in text for space in _ASCII_SPACE[1:]):
        # spaces only: halve the runs until none is left (each pass a fast str.replace; a run
        # of n spaces takes log2(n) passes), where splitting builds a string per word
        trimmed = text.strip(" ")
        while "  " in trimmed:
            trimmed = trimmed.replace("  ", " ")
        return trimmed
    if split_agrees(text):
        # str.split() has the same whitespace set here, and is much faster than the regex
        return _joined_words(text, " ")
    return js_trim(_RUNS.sub(" ", text))
