"""Which written words compromise takes for acronyms (``SARS``, ``NDA``, ``U.S``, ``F``).

compromise 14.17.0 tests each word for an acronym first in its third tagging pass
(``checkAcronym``), before a noun gets its number: an acronym is a noun with no number
(``SARS`` is not a plural). scorekit's own code; the tagger (:mod:`scorekit.text.tagger`) calls
:func:`acronym_tags` and replaces the word's tags with the answer.
"""

from __future__ import annotations

import re

__all__ = ["acronym_tags"]

_ONE_LETTER = re.compile(r"^[A-Z]('s|,)?$")
_UPPER = re.compile(r"^[A-Z-]+$")
_UPPER_THEN_S = re.compile(r"^[A-Z]+s$")
_PERIODS = re.compile(r"([A-Z]\.)+[A-Z]?,?$")
_NO_PERIODS = re.compile(r"[A-Z]{2,}('s|,)?$")
_LOWER_PERIODS = re.compile(r"([a-z]\.)+[a-z]\.?$")
_ONE_LETTER_WORDS = frozenset({"I", "A"})
_PLACES = frozenset({"la", "ny", "us", "dc", "gb", "uk"})
"""Short words that are places when written in capitals (``US``, ``NY``)."""


def _no_period(text: str, normal: str, known: bool) -> bool:
    """Tell compromise's ``isNoPeriodAcronym``: capitals (a final ``s`` allowed), not known."""
    if not _UPPER.match(text):
        if len(text) > 3 and _UPPER_THEN_S.match(text):
            text = text[:-1]
        else:
            return False
    elif normal in _PLACES:
        return True
    if len(text) > 5 or text in _ONE_LETTER_WORDS or known:
        return False
    return bool(
        _PERIODS.search(text)
        or _LOWER_PERIODS.search(text)
        or _ONE_LETTER.match(text)
        or _NO_PERIODS.search(text)
    )


def acronym_tags(text: str, normal: str, tags: set[str], known: bool) -> tuple[str, ...] | None:
    """The tags that make the written word ``text`` an acronym, or ``None`` when it is not one.

    Source: compromise 14.17.0 ``checkAcronym``. A word in capitals of at most five letters
    that is not in the lexicon (``known``), or a single capital other than *I* and *A*, is
    ``Acronym`` and ``Noun`` alone (its other tags dropped; the answer starts with ``""`` to
    say so), with ``Place`` for *US*, *UK*, *NY*… and ``Plural`` for ``UFOs``; a known
    organisation of at most three letters, or in capitals and at most six, gets ``Acronym``
    added. A word already tagged ``Acronym`` or ``RomanNumeral`` is left alone.

    Example:
        >>> acronym_tags("SARS", "sars", set(), False)
        ('', 'Acronym', 'Noun')
        >>> acronym_tags("UFOs", "ufos", set(), False)
        ('', 'Acronym', 'Noun', 'Plural')
        >>> acronym_tags("Pizza", "pizza", {"Noun"}, True) is None
        True
    """
    if "RomanNumeral" in tags or "Acronym" in tags:
        return None
    if text.islower():  # every other test needs a capital
        return ("Acronym",) if "Organization" in tags and len(text) <= 3 else None
    if _no_period(text, normal, known):
        found: tuple[str, ...] = ("", "Acronym", "Noun")
        if normal in _PLACES:
            found = (*found, "Place")
        if _UPPER_THEN_S.match(text):
            found = (*found, "Plural")
        return found
    if text not in _ONE_LETTER_WORDS and _ONE_LETTER.match(text):
        return ("", "Acronym", "Noun")
    if "Organization" in tags and (len(text) <= 3 or (_UPPER.match(text) and len(text) <= 6)):
        return ("Acronym",)
    return None
