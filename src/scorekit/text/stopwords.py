"""Stop-word lists per language, from the maintained package ``stopwordsiso``.

English keyword extraction keeps Mastra's list (the SMART list of npm keyword-extractor,
:func:`scorekit.text.keywords.stopwords_en`). Every other language takes its list from
``stopwordsiso`` (MIT; the stopwords-iso collection, 58 languages by ISO 639-1 code), which
comes with the optional extra ``scorekit[multilingual]``. Without it, :func:`stopword_lists`
returns ``None`` and the callers say which extra is missing (:data:`MULTILINGUAL_EXTRA`).

The lists are read once, lower-cased and NFKC-normalised (the form the non-English keyword path
compares, :func:`scorekit.text.segment.normalise`).
"""

from __future__ import annotations

import functools
import importlib
import unicodedata
from collections.abc import Mapping

__all__ = [
    "MULTILINGUAL_EXTRA",
    "MULTILINGUAL_HINT",
    "stopword_lists",
    "stopwords_for",
]

MULTILINGUAL_EXTRA = "scorekit[multilingual]"
"""The optional extra that brings stop-word lists and the Japanese and Chinese segmenters."""

MULTILINGUAL_HINT = f"install the optional extra {MULTILINGUAL_EXTRA}"
"""How to get it, as a reason's tail."""


@functools.cache
def stopword_lists() -> Mapping[str, frozenset[str]] | None:
    """Return every ``stopwordsiso`` list by ISO 639-1 code, or ``None`` without the extra.

    Words are lower-cased and NFKC-normalised. Loaded once.
    """
    try:
        module = importlib.import_module("stopwordsiso")
    except ImportError:
        return None
    lists: dict[str, frozenset[str]] = {}
    for code in sorted(module.langs()):
        words = module.stopwords(code)
        lists[code] = frozenset(unicodedata.normalize("NFKC", w).lower() for w in words if w)
    return lists


def stopwords_for(code: str) -> frozenset[str] | None:
    """Return the ``stopwordsiso`` list of language ``code``, or ``None`` when there is none.

    Example:
        >>> words = stopwords_for("pl")
        >>> words is None or "jest" in words
        True
    """
    lists = stopword_lists()
    return None if lists is None else lists.get(code)
