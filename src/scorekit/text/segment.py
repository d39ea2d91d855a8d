"""Words of a text in any language: Unicode word boundaries; Japanese and Chinese segmenters.

* :func:`unicode_words`: a word is a run of letters, combining marks and digits of any script
  (Unicode categories L, M and N: ``zażółć``, ``привет``, ``नमस्ते`` stay whole, which Python's
  ``\\w`` alone would not do for the Devanagari vowel signs), joined inside by ``'``, ``’``,
  ``-``, ``‐`` or the zero-width (non-)joiner. Everything else separates words.
* :func:`words`: those words, after splitting Japanese with SudachiPy (core dictionary, split
  mode C) and Chinese with jieba (accurate mode), both from the optional extra
  ``scorekit[multilingual]``. Text is NFKC-normalised and lower-cased first (:func:`normalise`),
  and cut into pieces of at most :data:`CHUNK` characters (at a sentence mark when there is one)
  so that each segmenter call is bounded: linear time on any text.

Completeness (or any other scorer) can reuse :func:`words` with a code from
:func:`scorekit.text.language.detect_language`.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator

from scorekit.text.stopwords import MULTILINGUAL_HINT

__all__ = [
    "CHUNK",
    "SEGMENTED_LANGUAGES",
    "normalise",
    "segmenter_missing",
    "unicode_words",
    "words",
]

CHUNK = 4000
"""Most characters handed to a segmenter at once (SudachiPy refuses more than 49,149 bytes)."""

SEGMENTED_LANGUAGES = {"ja": "SudachiPy", "zh": "jieba"}
"""The languages written without spaces that scorekit can split, and the library that does."""

_CUT_AFTER = "。！？!?.\n；;、，, "


def normalise(text: str) -> str:
    """NFKC-normalise and lower-case ``text`` (full-width ``Ｐｙ`` → ``py``, ``é`` composed)."""
    return unicodedata.normalize("NFKC", text).lower()


@functools.lru_cache(maxsize=256)
def _word_pattern(marks: str) -> re.Pattern[str]:
    """The word pattern for a text whose combining marks are ``marks``.

    Python's ``\\w`` has letters and digits of every script but not the marks, so they are
    added as found.
    """
    unit = f"(?:[^\\W_]|[{re.escape(marks)}])" if marks else "[^\\W_]"
    return re.compile(f"{unit}+(?:['’\\-‐\u200c\u200d]+{unit}+)*")


def unicode_words(text: str) -> list[str]:
    """Return the words of ``text`` by Unicode word boundaries, in order, unchanged.

    Example:
        >>> unicode_words("Zażółć gęślą jaźń! «Привет», мир… l'école — naïve")
        ['Zażółć', 'gęślą', 'jaźń', 'Привет', 'мир', "l'école", 'naïve']
    """
    if text.isascii():
        return _word_pattern("").findall(text)
    marks = "".join(sorted(c for c in set(text) if unicodedata.category(c).startswith("M")))
    return _word_pattern(marks).findall(text)


def _chunks(text: str) -> Iterator[str]:
    """Yield ``text`` in pieces of at most :data:`CHUNK` characters.

    Each is cut after a sentence mark or a space when its window has one.
    """
    start = 0
    while len(text) - start > CHUNK:
        window = text[start : start + CHUNK]
        cut = max(window.rfind(mark) for mark in _CUT_AFTER) + 1
        end = start + (cut if cut > 0 else CHUNK)
        yield text[start:end]
        start = end
    if start < len(text):
        yield text[start:]


@functools.cache
def _sudachi() -> Callable[[str], list[str]]:
    dictionary = importlib.import_module("sudachipy")
    # only the surface is read: loading the other fields of each morpheme halves the speed
    tokenizer = dictionary.Dictionary(dict="core").tokenizer(
        mode=dictionary.SplitMode.C, fields={"surface"}
    )

    def split(text: str) -> list[str]:
        return [m.surface() for m in tokenizer.tokenize(text)]

    return split


@functools.cache
def _jieba() -> Callable[[str], list[str]]:
    import logging

    jieba = importlib.import_module("jieba")
    jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" chatter on stderr

    def split(text: str) -> list[str]:
        return list(jieba.lcut(text))

    return split


_SEGMENTERS = {"ja": (_sudachi, ("sudachipy", "sudachidict_core")), "zh": (_jieba, ("jieba",))}


def segmenter_missing(code: str) -> str | None:
    """Why language ``code`` cannot be split into words here, or ``None`` when it can.

    Languages written with spaces need no segmenter (``None``); Japanese and Chinese need their
    library from ``scorekit[multilingual]``.
    """
    if code not in _SEGMENTERS:
        return None
    _, modules = _SEGMENTERS[code]
    for module in modules:
        if sys.modules.get(module) is not None:
            continue
        try:
            importlib.import_module(module)
        except ImportError:
            return (
                f"splitting {'Japanese' if code == 'ja' else 'Chinese'} text into words needs "
                f"{SEGMENTED_LANGUAGES[code]}: {MULTILINGUAL_HINT}"
            )
    return None


def words(text: str, code: str) -> list[str]:
    """Return the normalised words of ``text`` in language ``code``, in order.

    Japanese (``"ja"``) and Chinese (``"zh"``) are segmented first (the module docstring);
    other languages are split by Unicode word boundaries only.

    Raises:
        ImportError: ``code`` needs a segmenter that is not installed (see
            :func:`segmenter_missing`).
    """
    text = normalise(text)
    if code not in _SEGMENTERS:
        return unicode_words(text)
    split = _SEGMENTERS[code][0]()
    found: list[str] = []
    seen: dict[str, list[str]] = {}  # morphemes repeat: split each distinct one once
    for chunk in _chunks(text):
        for piece in split(chunk):
            piece_words = seen.get(piece)
            if piece_words is None:
                piece_words = seen[piece] = unicode_words(piece)
            found.extend(piece_words)
    return found
