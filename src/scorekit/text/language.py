"""Which language a text is in: its script, then stop words (scorekit's rule, documented).

The code scorers follow Mastra's English rules on English text and must not give a meaningless
number on other text. :func:`detect_language` decides, in linear time:

1. **No letters** (``""``, digits, punctuation, emoji): ``code=None, script=None``; nothing is
   language-specific, so the callers keep Mastra's (English) rules.
2. The **dominant script** is the one with most letters (Unicode character names; Han and kana
   count together, and any kana makes the text Japanese, Han alone Chinese).
3. **Latin letters, all ASCII** (no diacritics): English, exactly as Mastra treats it. A Latin
   text with a letter outside ASCII (``ł``, ``é``) is English too unless more of its words are
   stop words of one other Latin-script language than of English (Polish ``"To jest okropne"``:
   ``to``, ``jest`` are Polish stop words, only ``to`` is English), then it is that language;
   ties go to the code first in alphabetical order. ``"café résumé naïve"`` stays English.
4. **Another script**: the language of that script whose stop words the text has most of; with
   no stop word, the script's usual language (Cyrillic → Russian, Arabic → Arabic, Devanagari
   → Hindi); a script no stop-word list is written in gives ``code=None`` and says so.

Steps 3 (with letters outside ASCII) and 4 read the ``stopwordsiso`` lists of the optional extra
``scorekit[multilingual]``; without it the script is still known, the language is not
(``code=None``, ``reason`` names the extra).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from scorekit.text.stopwords import MULTILINGUAL_HINT, stopword_lists

__all__ = [
    "LANGUAGE_NAMES",
    "NO_SPACE_SCRIPTS",
    "Detection",
    "detect_language",
    "dominant_script",
    "language_name",
    "language_script",
    "script_of",
]

_ASCII_LETTER = re.compile("[A-Za-z]")
"""An ASCII letter: ``str.isalpha`` of an ASCII character."""

LANGUAGE_NAMES: dict[str, str] = {
    "af": "Afrikaans", "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "br": "Breton",
    "ca": "Catalan", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek",
    "en": "English", "eo": "Esperanto", "es": "Spanish", "et": "Estonian", "eu": "Basque",
    "fa": "Persian", "fi": "Finnish", "fr": "French", "ga": "Irish", "gl": "Galician",
    "gu": "Gujarati", "ha": "Hausa", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
    "hu": "Hungarian", "hy": "Armenian", "id": "Indonesian", "it": "Italian", "ja": "Japanese",
    "ko": "Korean", "ku": "Kurdish", "la": "Latin", "lt": "Lithuanian", "lv": "Latvian",
    "mr": "Marathi", "ms": "Malay", "nl": "Dutch", "no": "Norwegian", "pl": "Polish",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian",
    "so": "Somali", "st": "Sesotho", "sv": "Swedish", "sw": "Swahili", "th": "Thai",
    "tl": "Tagalog", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese",
    "yo": "Yoruba", "zh": "Chinese", "zu": "Zulu",
}  # fmt: skip
"""English names of the languages scorekit knows (those of the ``stopwordsiso`` lists)."""

NO_SPACE_SCRIPTS = frozenset({"Han", "Kana", "Thai", "Lao", "Khmer", "Myanmar"})
"""Scripts written without spaces between words: splitting them needs a word segmenter."""

_USUAL = {"Cyrillic": "ru", "Arabic": "ar", "Devanagari": "hi", "Latin": "en", "Han": "zh"}
_IGNORED_NAMES = frozenset({"", "MODIFIER", "MATHEMATICAL", "SUPERSCRIPT", "SUBSCRIPT"})


@functools.cache
def script_of(char: str) -> str | None:
    """Return the script of a letter (``"Latin"``, ``"Cyrillic"``, ``"Han"``, ``"Kana"``...).

    ``None`` for a character that is not a letter, or a letter of no script (modifier letters).
    Read from the Unicode character name: ``"FULLWIDTH LATIN ..."`` is Latin, every
    ``"CJK ..."`` and ``"IDEOGRAPHIC ..."`` letter Han, hiragana and katakana ``"Kana"``.

    Example:
        >>> script_of("ł"), script_of("ж"), script_of("東"), script_of("の"), script_of("1")
        ('Latin', 'Cyrillic', 'Han', 'Kana', None)
    """
    if not unicodedata.category(char).startswith("L"):
        return None
    name = unicodedata.name(char, "")
    words = name.replace("-", " ").split(" ")
    if words[0] in ("FULLWIDTH", "HALFWIDTH") and len(words) > 1:
        words = words[1:]
    first = words[0]
    if first in ("CJK", "IDEOGRAPHIC"):
        return "Han"
    if first in ("HIRAGANA", "KATAKANA"):
        return "Kana"
    if first in _IGNORED_NAMES:
        return None
    return first.title()


def dominant_script(text: str) -> str | None:
    """Return the script with most letters in ``text``, or ``None`` when there is no letter.

    Han and kana count together: ``"Kana"`` when any kana is present, else ``"Han"``.

    Linear: the characters are counted once, each distinct character classified once.

    Example:
        >>> dominant_script("東京は日本の首都"), dominant_script("我喜欢"), dominant_script("1 2")
        ('Kana', 'Han', None)
    """
    if text.isascii():
        return "Latin" if _ASCII_LETTER.search(text) else None
    counts: Counter[str] = Counter()
    for char, count in Counter(text).items():
        script = script_of(char)
        if script is not None:
            counts[script] += count
    if not counts:
        return None
    kana = counts.pop("Kana", 0)
    if kana:
        counts["Kana"] = kana + counts.pop("Han", 0)
    # most letters first; a tie goes to the name first in alphabetical order (deterministic)
    return min(counts, key=lambda script: (-counts[script], script))


@functools.cache
def _scripts_of_lists() -> dict[str, str]:
    """Each ``stopwordsiso`` language's script: the dominant script of its list's letters."""
    lists = stopword_lists() or {}
    found: dict[str, str] = {}
    for code, words in lists.items():
        script = dominant_script(" ".join(sorted(words)))
        if script is not None:
            found[code] = script
    found["ja"] = "Kana"
    found["zh"] = "Han"
    return found


def language_script(code: str) -> str | None:
    """Return the script language ``code`` is written in (from its stop words), or ``None``."""
    if code == "en":
        return "Latin"
    return _scripts_of_lists().get(code)


def language_name(code: str | None, script: str | None = None) -> str:
    """Return a language's English name (``"Polish"`` for ``"pl"``), or what is known of it.

    ``"text in Georgian script"`` when only the script is known, ``"text without letters"``
    when neither is.
    """
    if code is not None:
        return LANGUAGE_NAMES.get(code, code)
    if script is not None:
        return f"text in {script} script"
    return "text without letters"


@dataclass(frozen=True)
class Detection:
    """What :func:`detect_language` found.

    Attributes:
        code: the ISO 639-1 code (``"en"``, ``"pl"``, ``"ja"``); ``None`` when there are no
            letters or the language could not be told (``reason`` says why).
        script: the dominant script (``"Latin"``, ``"Cyrillic"``, ``"Han"``, ``"Kana"``...);
            ``None`` when the text has no letter.
        reason: why ``code`` is ``None`` although there are letters; else ``None``.
    """

    code: str | None
    script: str | None
    reason: str | None = None

    @property
    def english_rules(self) -> bool:
        """Whether Mastra's English rules apply: an English text, or one without letters."""
        return self.script is None or self.code == "en"

    @property
    def name(self) -> str:
        """The language's English name, or what is known of it (:func:`language_name`)."""
        return language_name(self.code, self.script)


@functools.cache
def _stop_word_index(candidates: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each stop word of the ``candidates`` languages → the candidates whose list has it."""
    lists = stopword_lists() or {}
    index: dict[str, list[str]] = {}
    for code in candidates:
        for word in lists[code]:
            index.setdefault(word, []).append(code)
    return {word: tuple(codes) for word, codes in index.items()}


def _vote(text: str, candidates: list[str]) -> dict[str, int]:
    """How many of ``text``'s words are stop words of each candidate language.

    One look-up per distinct word (an index of the candidates' stop words), not one per word
    and candidate.
    """
    from scorekit.text.segment import normalise, unicode_words  # segment imports this module

    index = _stop_word_index(tuple(candidates))
    hits = dict.fromkeys(candidates, 0)
    for word, count in Counter(unicode_words(normalise(text))).items():
        for code in index.get(word, ()):
            hits[code] += count
    return hits


def detect_language(text: str) -> Detection:
    """Tell the language of ``text`` (the module docstring gives the rule).

    Example:
        >>> detect_language("The quick brown fox").code
        'en'
        >>> detect_language("東京は日本の首都です。").code
        'ja'
        >>> detect_language("12345")
        Detection(code=None, script=None, reason=None)
    """
    if text.isascii():  # the common case, without a pass per character in Python
        return Detection("en", "Latin") if _ASCII_LETTER.search(text) else Detection(None, None)
    script = dominant_script(text)
    if script is None:
        return Detection(None, None)
    if script == "Latin" and not any(ord(c) > 127 and script_of(c) == "Latin" for c in set(text)):
        return Detection("en", "Latin")
    if script == "Kana":
        return Detection("ja", script)
    if stopword_lists() is None:
        if script == "Han":
            return Detection("zh", script)
        return Detection(
            None,
            script,
            f"telling the language of text in {script} script needs stop-word lists: "
            + MULTILINGUAL_HINT,
        )
    scripts = _scripts_of_lists()
    candidates = sorted(code for code, s in scripts.items() if s == script)
    if not candidates:
        return Detection(None, script, f"scorekit knows no language written in {script} script")
    if len(candidates) == 1:
        return Detection(candidates[0], script)
    hits = _vote(text, candidates)
    best = min(candidates, key=lambda code: (-hits[code], code))
    if script == "Latin" and hits[best] <= hits["en"]:
        return Detection("en", script)
    if hits[best] == 0:
        return Detection(_USUAL.get(script, best), script)
    return Detection(best, script)
