"""Words of a text as compromise 14.17.0 splits them: terms, contractions, clauses.

Step 1 of the tagger (:mod:`scorekit.text.tagger`): whitespace-separated words, punctuation
kept aside (on the word before), hyphenated words split where compromise splits them
(:func:`_splits_hyphen`), contractions expanded into a written term and an implicit one
(``don't`` → ``do`` + ``not``; ``it's`` → ``it`` + ``is``; another ``X's`` is decided after
the first tags, :mod:`scorekit.text.contractions`), sentence starts marked (after
``.``/``!``/``?`` and after every line break: compromise splits the lines first).
:func:`clauses` cuts the terms where compromise's quick split does. scorekit's own code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scorekit.text.term import Term

__all__ = ["S_ENDINGS", "clauses", "tokenize"]

_LINE_BREAKS = re.compile(r"[\r\n]+")
_WORD_EDGE = re.compile(r"^([^\w']*)(.*?)([^\w']*)$", re.DOTALL)
_SENTENCE_END = re.compile(r"[.!?]")
_ELLIPSIS = re.compile(r"(\u2026|\.{2,})\W*$")
_INITIAL = re.compile(r"(^|\.)[A-Za-z]\.$")
S_ENDINGS = frozenset({"'s", "\u2019s", "'S", "\u2019S"})
"""The written endings of an ``X's`` (straight or curly apostrophe, either case)."""

# contraction suffix → the implicit word (n't is handled apart: "can't" → can + not)
_SUFFIXES = {"'m": "am", "'re": "are", "'ve": "have", "'ll": "will", "'d": "would"}
_NEGATIVE_HEADS = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
# compromise's contractions written without an apostrophe (not "didnt", "doesnt")
_BARE_NEGATIVES = {"dont": "do", "cant": "can", "wont": "will", "isnt": "is", "arent": "are"}
_BARE_NEGATIVES |= {"wasnt": "was", "hasnt": "has", "shouldnt": "should", "couldnt": "could"}
_BARE_NEGATIVES |= {"wouldnt": "would"}
_IS_BEFORE = frozenset(
    {"it", "he", "she", "that", "what", "there", "here", "who", "where", "how", "this", "let"}
    | {"when", "why", "which", "everything", "everyone", "nothing", "something", "someone"}
)


def _split_contraction(core: str, following: str) -> list[tuple[str, str, bool]]:
    """Split one written word into ``(text, normal, implicit)`` terms."""
    low = core.lower().replace("\u2019", "'")
    if low.endswith("n't") and len(low) > 3:
        head = low[:-3]
        return [(core, _NEGATIVE_HEADS.get(head, head), False), ("", "not", True)]
    if low in _BARE_NEGATIVES:
        return [(core, _BARE_NEGATIVES[low], False), ("", "not", True)]
    if low == "cannot":
        return [(core, "can", False), ("", "not", True)]
    for suffix, word in _SUFFIXES.items():
        if low.endswith(suffix) and len(low) > len(suffix):
            return [(core, low[: -len(suffix)], False), ("", word, True)]
    if low.endswith("'s") and len(low) > 2:
        head = low[:-2]
        nxt = following.lower()
        if head in _IS_BEFORE or nxt in ("not", "been", "going", "gonna", "also", "never"):
            return [(core, head, False), ("", "is", True)]
        return [(core, low, False)]
    return [(core, low, False)]


_Piece = tuple[str, str, bool, str]  # text, normal, implicit, punctuation after

_DASHES = re.compile("[-\u2013\u2014]")
_WORDS_DASHED = re.compile(
    "^([a-z\u00c0-\u00ff`\"'/]+)[-\u2013\u2014]([a-z0-9\u00c0-\u00ff].*)", re.I
)
_NUMBER_DASHED = re.compile(
    "^[('\"]?([0-9]{1,4})[-\u2013\u2014]([a-z\u00c0-\u00ff`\"'/-]+[)'\"]?$)", re.I
)
_HYPHEN_PREFIXES = frozenset(
    {"anti", "bi", "co", "contra", "de", "extra", "infra", "inter", "intra", "macro", "micro"}
    | {"mis", "mono", "multi", "peri", "pre", "pro", "proto", "pseudo", "re", "sub", "supra"}
    | {"trans", "tri", "un", "out", "ex"}
)
_HYPHEN_SUFFIXES = frozenset({"like", "ish", "less", "able", "elect", "type", "designate"})


def _splits_hyphen(raw: str) -> bool:
    """Whether compromise splits the whitespace-separated token ``raw`` at its hyphen.

    Source: compromise 14.17.0 ``hasHyphen``, on the token as written (its punctuation too):
    not ``x-ray`` (one letter first), ``re-do`` (a prefix), ``flower-like`` (a suffix);
    yes for letters, a dash and a letter or digit (``well-known``, ``covid-19``: never
    ``**value-added`` or ``(well-known``), or a number, a dash and letters (``20-aug``).
    """
    parts = _DASHES.split(raw)
    if len(parts) <= 1:
        return False
    first = parts[0]
    if len(first) == 1 and first.isascii() and first.isalpha():
        return False
    if first in _HYPHEN_PREFIXES:
        return False
    second = parts[1].strip()
    if second[-1:] in (".", "?", "!"):
        second = second[:-1]
    if second in _HYPHEN_SUFFIXES:
        return False
    return bool(_WORDS_DASHED.match(raw) or _NUMBER_DASHED.match(raw))


def _pieces(raw: str, following: str) -> tuple[list[_Piece], bool]:
    """The terms of one whitespace-separated token, and whether it ends a sentence."""
    match = _WORD_EDGE.match(raw)
    assert match is not None  # the pattern matches any string
    core, post = match.group(2).strip("'"), match.group(3)
    if not core:
        return [("", "", False, raw)], bool(_SENTENCE_END.search(raw))
    if _splits_hyphen(raw):
        dash = _DASHES.search(core)
        mark = dash.group() if dash else "-"
        parts = [p for p in _DASHES.split(core) if p]
    else:
        mark, parts = "-", [core]
    pieces: list[_Piece] = [(part, part.lower(), False, mark) for part in parts[:-1]]
    pieces.extend((t, n, i, "") for t, n, i in _split_contraction(parts[-1], following))
    text, normal, implicit, _ = pieces[-1]
    pieces[-1] = (text, normal, implicit, post)
    return pieces, bool(_SENTENCE_END.search(post))


_Token = tuple[list[_Piece], bool, bool]  # pieces, ends a sentence, has a letter


def _token_facts(raw: str, following: str) -> _Token:
    pieces, ends = _pieces(raw, following)
    lettered = any(ch.isalpha() for ch in raw)
    if ends and lettered and (_ELLIPSIS.search(raw) or _INITIAL.search(raw)):
        ends = False  # "wait..." or "U.S." / "J." does not end a sentence
    return pieces, ends, lettered


def tokenize(text: str) -> list[Term]:
    """Split ``text`` into terms (see the module docstring, step 1)."""
    # compromise splits the text into lines first: a line break always ends a sentence
    raws: list[str] = []
    breaks: list[bool] = []
    for line in _LINE_BREAKS.split(text):
        words = line.split()
        if words:
            raws.extend(words)
            breaks.extend([False] * (len(words) - 1))
            breaks.append(True)
    if breaks:
        breaks[-1] = False
    terms: list[Term] = []
    append = terms.append
    start = True
    lettered = False
    cache: dict[tuple[str, str], _Token] = {}
    last = len(raws) - 1
    for index, raw in enumerate(raws):
        # only a final "'s" looks at the next word ("Tony's not…"); key the cache on it then
        following = raws[index + 1] if index < last and raw[-2:] in S_ENDINGS else ""
        key = (raw, following)
        found = cache.get(key)
        if found is None:
            found = cache[key] = _token_facts(raw, following)
        pieces, ends, has_letter = found
        if has_letter:
            lettered = True
        elif ends:
            if not lettered:
                ends = False  # "1." alone is no sentence: compromise merges it with the next
            elif _ELLIPSIS.search(raw) or _INITIAL.search(raw):
                ends = False
        if breaks[index]:
            ends = True
        for text_, normal, implicit, post in pieces:
            if not normal:  # punctuation only: it belongs to the word before
                if terms:
                    # after a space, as in compromise's post: " - " is a dash, no hyphen
                    terms[-1].post += " " + post if _DASHES.match(post) else post
                continue
            append(Term(text_, normal, post, start, set(), "", implicit))
            start = False
        if ends:
            start = True
            lettered = False
    return terms


_COMMA = re.compile(r"[,:;]")
_HARD_END = re.compile(r"[.!?()\[\]\u2014\u2013]|\s-\s")
_MAYBE_DATES = frozenset({"may", "april", "august", "jan"})
_SHORT_NUMBER = re.compile(r"^([0-9]{1,2}|[0-9]{4})$")


def _comma_splits(terms: list[Term], i: int) -> bool:
    """Whether compromise's quick split cuts after the comma of ``terms[i - 1]``.

    Source: compromise 14.17.0 ``quickSplit`` (``splitOn``): not before *like*, a month-like
    word, a place or a date, a short number; not after a date; not next to an adjective.
    """
    if i >= len(terms):
        return False
    term, last = terms[i], terms[i - 1]
    if term.normal == "like" or term.normal in _MAYBE_DATES:
        return False
    if "Place" in term.tags or "Date" in term.tags:
        return False
    if "Date" in last.tags or last.normal in _MAYBE_DATES:
        return False
    if "Adjective" in last.tags or "Adjective" in term.tags:
        return False
    return not _SHORT_NUMBER.match(term.normal)


def clauses(terms: list[Term]) -> Iterable[list[Term]]:
    """Yield runs of terms split after sentence ends and commas (compromise's quick split).

    A comma, colon or semicolon splits only where :func:`_comma_splits` says, by the tags the
    terms carry when it is called.
    """
    begin = 0
    for i, term in enumerate(terms):
        post = term.post
        if post and (
            _HARD_END.search(post) or (_COMMA.search(post) and _comma_splits(terms, i + 1))
        ):
            yield terms[begin : i + 1]
            begin = i + 1
    if begin < len(terms):
        yield terms[begin:]
