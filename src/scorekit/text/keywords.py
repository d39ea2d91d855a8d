"""Keyword extraction identical to npm ``keyword-extractor`` 0.0.28, as Mastra calls it.

Mastra evals 1.10.2 keyword-coverage calls ``extract(text, {language: 'english',
remove_digits: true, return_changed_case: true, remove_duplicates: true})``
(mastra-scorers.md §2.2). The algorithm:

1. Empty text gives ``[]``. HTML tags (``<[^>]+>``) are removed, then the text is trimmed with JS
   ``trim``; empty again gives ``[]``.
2. The text is split on *single* JS whitespace characters, so runs of spaces give empty tokens
   (which are then dropped).
3. A token containing ``http://`` or ``https://`` is kept as is. Any other token loses every
   ``. , ; ! ? ( ) : "`` and curly quote, a leading ``'`` and a trailing ``'``. A token left with
   one character also loses ``_ @ & #``. A token made only of ASCII digits is dropped.
4. Tokens whose lowercase form is in the English SMART stop list (571 entries, shipped in
   ``data/stopwords_en.txt``) are dropped; the others are returned lowercased (URLs keep their
   case), first occurrence first, without duplicates.

Lengths are Python code points, not UTF-16 units (``divergences.md`` row 2): a one-emoji token
counts as one character here and two in JS, which only matters for the ``_ @ & #`` rule, where it
changes nothing.

**Other languages** (``language=`` an ISO 639-1 code other than ``"en"``; row 75, row 76):
HTML tags are removed and the text is split on JS whitespace as above; a token containing
``http://`` or ``https://`` is kept as is; the rest is split into words by
:func:`scorekit.text.segment.words` (Unicode word boundaries, NFKC, lower case; Japanese and
Chinese segmented first). Words made only of digits (of any script), stop words of the language
(``stopwordsiso``) and, in a text of another script than Latin, English SMART stop words are
dropped; the others are kept once, first occurrence first.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from scorekit.text.language import language_script
from scorekit.text.segment import words
from scorekit.text.stopwords import MULTILINGUAL_HINT, stopwords_for
from scorekit.text.whitespace import JS_WHITESPACE, JS_WS_CLASS, js_trim, split_agrees

__all__ = ["extract_keywords", "stopwords_en"]

_HTML_TAG = re.compile(r"<[^>]+>")
_SPLIT = re.compile(JS_WS_CLASS)
# JS /https?:\/\/.*[\r\n]*/ without anchors: the token merely has to contain the scheme.
_URL = re.compile(r"https?://")
# One pass over the original token, as JS's global replace does: `^'`/`'$` see the token's ends
# before the other characters are removed.
_PUNCTUATION = re.compile("\\.|,|;|!|\\?|\\(|\\)|:|\"|\\A'|'\\Z|\u201c|\u201d|\u2018|\u2019")
_ODD_SINGLE = re.compile("[_@&#]")
_ASCII_DIGITS = re.compile("[0-9]+")
# The same removal over a whole text at once (a text without URLs), in two parts: a quote at a
# token's end (the text's ends, or next to a JS whitespace character, which splits tokens) is
# found in the text as given, then the other marks go wherever they are.
_QUOTE_AT_TOKEN_END = re.compile(f"'(?:(?<![^{JS_WS_CLASS[1:-1]}]')|(?![^{JS_WS_CLASS[1:-1]}]))")
_MARKS = str.maketrans("", "", '.,;!?():"\u201c\u201d\u2018\u2019')
_ODD_CHARACTERS = frozenset("_@&#")


@functools.cache
def stopwords_en() -> frozenset[str]:
    """Return the English SMART stop list of keyword-extractor 0.0.28 (570 distinct words).

    Loaded once from ``scorekit/text/data/stopwords_en.txt`` (see ``data/README.md`` for source
    and licence).
    """
    text = resources.files("scorekit.text").joinpath("data/stopwords_en.txt").read_text("utf-8")
    return frozenset(line for line in text.split("\n") if line)


def _clean_token(token: str) -> str:
    if _URL.search(token):
        return token
    word = _PUNCTUATION.sub("", token)
    if len(word) == 1:
        word = _ODD_SINGLE.sub("", word)
    if _ASCII_DIGITS.fullmatch(word):
        return ""
    return word


def _keywords_in(tokens: list[str], code: str) -> list[str]:
    """The non-English path (module docstring) over the whitespace tokens of a text."""
    stop = stopwords_for(code)
    if stop is None:
        raise ValueError(f"no stop-word list for language {code!r} ({MULTILINGUAL_HINT})")
    english = stopwords_en() if language_script(code) != "Latin" else frozenset()
    seen: set[str] = set()
    keywords: list[str] = []

    def keep(word: str) -> None:
        if word in seen or word in stop or word in english or word.isnumeric():
            return
        seen.add(word)
        keywords.append(word)

    run: list[str] = []
    for token in [*tokens, ""]:
        if token and not _URL.search(token):
            run.append(token)
            continue
        for word in words(" ".join(run), code) if run else ():
            keep(word)
        run = []
        if token:
            keep(token)
    return keywords


def extract_keywords(text: str, language: str | None = None) -> list[str]:
    """Return the keywords of ``text`` as keyword-extractor 0.0.28 does for Mastra.

    Source: npm ``keyword-extractor`` 0.0.28 ``extract`` with the options of Mastra evals 1.10.2
    keyword-coverage (see the module docstring for the steps); for another language than
    English, scorekit's rule (module docstring).

    Args:
        text: any string; ``""`` gives ``[]``.
        language: ``None`` or ``"en"`` for Mastra's English rules, else the ISO 639-1 code of
            a language with a ``stopwordsiso`` list (``scorekit[multilingual]``).

    Returns:
        The keywords in order of first occurrence, lowercased except URLs, without duplicates
        and without stop words.

    Raises:
        ValueError: ``language`` has no stop-word list here.
        ImportError: ``language`` is Japanese or Chinese and its segmenter is not installed.

    Example:
        >>> extract_keywords("Don't stop believing, it's 2024!")
        ['stop', 'believing']
    """
    if not text:
        return []
    stripped = js_trim(_HTML_TAG.sub("", text))
    if not stripped:
        return []
    if language is not None and language != "en":
        return _keywords_in(_SPLIT.split(stripped), language)
    if _URL.search(stripped) is None:
        return _english_keywords(stripped)
    # a URL token is kept as it is: the text between URL tokens goes the whole-text way
    keywords: dict[str, None] = {}
    stop = stopwords_en()
    spaces = [space for space in JS_WHITESPACE if space in stripped]
    done = 0  # the text before this is read
    for scheme in _URL.finditer(stripped):
        if scheme.start() < done:
            continue  # a second scheme inside a URL token already read
        # the token's ends: the last whitespace before the scheme (looked for only since the
        # last token read, so every character is looked at a bounded number of times) and
        # the first after it
        before = max((stripped.rfind(s, done, scheme.start()) for s in spaces), default=-1)
        start = max(before + 1, done)
        after = _SPLIT.search(stripped, scheme.end())
        end = len(stripped) if after is None else after.start()
        keywords.update(dict.fromkeys(_english_keywords(stripped[done:start])))
        url = stripped[start:end]
        if url.lower() not in stop:
            keywords.setdefault(url)
        done = end
    keywords.update(dict.fromkeys(_english_keywords(stripped[done:])))
    return list(keywords)


def _english_keywords(text: str) -> list[str]:
    """Mastra's English rules on a text (or a stretch of one) without URLs, in a few passes.

    The same tokens and keywords as :func:`_english_keywords_by_token`: the quotes at token
    ends go in one regex pass (:data:`_QUOTE_AT_TOKEN_END`), the other marks in one
    ``str.translate``; an ASCII text is lowercased at once and split by ``str.split`` (the
    same tokens as JS whitespace once ``\\x1c``-``\\x1f`` are ruled out), any other by JS
    whitespace, each distinct token lowercased on its own (``str.lower`` of a whole text may
    read context across a token boundary: Greek final sigma next to U+FEFF). Each distinct
    token is looked at once, first occurrence first.
    """
    if "'" in text:
        text = _QUOTE_AT_TOKEN_END.sub("", text)
    cleaned = text.translate(_MARKS)
    ascii_text = cleaned.isascii() and split_agrees(cleaned)
    tokens = cleaned.lower().split() if ascii_text else _SPLIT.split(cleaned)
    stop = stopwords_en()
    odd = _ODD_CHARACTERS
    keywords = [
        word
        for word in dict.fromkeys(tokens)
        if word not in stop
        and word
        and not (len(word) == 1 and word in odd)
        and not (word.isdigit() and word.isascii())
    ]
    if ascii_text:
        return keywords
    # lowercase each distinct token, then drop stop words and the duplicates lower case made
    lowered = (word.lower() for word in keywords)
    return list(dict.fromkeys(word for word in lowered if word not in stop))


def _english_keywords_by_token(text: str) -> list[str]:
    """Mastra's English rules token by token, as the module docstring states them.

    The reference the faster paths are tested against (``tests/text/test_keywords.py``).
    """
    stop = stopwords_en()
    seen: set[str] = set()
    keywords: list[str] = []
    for token in _SPLIT.split(text):
        word = _clean_token(token)
        if not word:
            continue
        lower = word.lower()
        if lower in stop:
            continue
        result = word if _URL.search(word) else lower
        if result not in seen:
            seen.add(result)
            keywords.append(result)
    return keywords
