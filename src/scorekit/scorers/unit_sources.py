"""Units a judge takes out of a text must come from that text.

A scorer built on :mod:`scorekit.scorers.verdicts` first has the judge list the *units* of a
text (an answer's claims or statements, a ground truth's claims, an answer's opinions), then
judges each one. A judge that cannot do the first step well (a tiny model) may copy the
prompt's own example or invent units; the scorer would then judge those and report a score
that rests on nothing (issue 34: a faithfulness of 1.0 for claims about a Tesla that the
answer never named). So each unit is checked against its text before it is judged: the share
of its *words* found among the words of the text and of the user's query (a unit may take the
query's terms to stand alone) must be at least :data:`MIN_FOUND`. A unit below
it makes the reply invalid: it is sent back once for repair, naming the units, and a second
such reply is an ``error`` with the raw reply kept.

Words, as both sides are compared (:func:`words_of`): runs of letters and digits, in Unicode
normal form NFKC (``Müller`` written with a combining mark is ``Müller``), lower-cased;
a Latin, Greek or Cyrillic word is cut to its first :data:`STEM` characters (``recommended``
and ``recommends`` meet), words of one character and common English function words are left
out, and a run of CJK, kana or Hangul characters, which has no spaces to split at, gives its
two-character pieces. A unit without any such word (``"Yes."``) is not checked. The threshold
is the one measured on real extractions: ``benchmarks/unit_sources.py`` (see
``docs/judge-quality.md``).

A limit, by design: a unit in another language than its text (a judge that translates a German
answer's claims into English) shares few words with it and is refused; the repair request asks
for the text's own words and language, which a judge that follows instructions then gives.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

__all__ = ["MIN_FOUND", "STEM", "found_share", "stray_units", "words_of"]

MIN_FOUND = 0.25
"""The least share of a unit's words that its text (or the user's query) must hold: lenient,
so that a unit that restates (``2M live there`` → ``Paris has 2 million people``) passes;
measured in docs/judge-quality.md."""

STEM = 6
"""Characters a space-delimited word is compared by."""

_RUN = re.compile(r"\w+")
_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")

_FUNCTION_WORD_LIST = (
    "a about after all also an and any are as at be been being but by can could did do does "
    "for from had has have he her his how i if in into is it its may might more most much must "
    "no not of on or our out she should so some such than that the their them then there these "
    "they this those to was we were what when where which while who will with would you your"
)
_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_LIST.split())


def words_of(text: str) -> set[str]:
    """The words of ``text`` as units and texts are compared (module docstring)."""
    found: set[str] = set()
    for run in _RUN.findall(unicodedata.normalize("NFKC", text).lower()):
        if _WIDE.search(run):
            found.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
        elif len(run) > 1 and run not in _FUNCTION_WORDS:
            found.add(run[:STEM])
    return found


def found_share(unit: str, source_words: set[str]) -> float | None:
    """The share of ``unit``'s words among ``source_words`` (``None``: it has none)."""
    words = words_of(unit)
    if not words:
        return None
    return len(words & source_words) / len(words)


def stray_units(units: Sequence[str], source: str) -> list[int]:
    """The positions of the units that do not come from ``source`` (under :data:`MIN_FOUND`).

    Args:
        units: the units the judge listed.
        source: the text they were taken from.

    Example:
        >>> stray_units(["Paris is in France.", "The Model S is built by Tesla."],
        ...             "Paris, the capital, lies in northern France.")
        [1]
    """
    source_words = words_of(source)
    strays = []
    for place, unit in enumerate(units):
        share = found_share(unit, source_words)
        if share is not None and share < MIN_FOUND:
            strays.append(place)
    return strays
