"""Sentiment scoring identical to npm ``sentiment`` 5.0.2 (AFINN-165 plus emoji), as Mastra uses it.

Mastra evals 1.10.2 tone calls ``new Sentiment().analyze(text).comparative``
(mastra-scorers.md §2.3):

* Tokenise: lowercase; ``\\n`` → space; each of ``. , / # ! ? $ % ^ & * ; : { } = _ ` " ~ ( )`` →
  space; runs of two or more JS whitespace characters → one space; JS ``trim``; split on ``" "``.
  A lone tab therefore does not separate words, and ``""`` gives one empty token.
* Score: the sum over tokens found in the label map (AFINN-165, 3382 words, plus 767 emoji) of
  their value, negated when the previous token is a negator (``not``, ``don't``, ...).
* ``comparative = score / number_of_tokens``.

Data files are in ``data/`` (source and licence in ``data/README.md``), loaded once.

One deliberate difference (``docs/divergences.md``): npm sentiment looks negators up in a plain JS
object, so a token preceded by ``constructor`` (an inherited property of every JS object) is
negated. scorekit looks up only the 12 listed negators.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import compress

from scorekit.text.whitespace import JS_WS_CLASS, SLICE, js_trim, space_slices

__all__ = [
    "SentimentResult",
    "analyze",
    "comparative",
    "comparatives",
    "sentiment_labels",
    "sentiment_negators",
    "tokenize",
]

_SPECIAL = re.compile(r"[.,/#!?$%^&*;:{}=_`\"~()]")
_WS_RUN = re.compile(f"{JS_WS_CLASS}{JS_WS_CLASS}+")


def _load_json(name: str) -> dict[str, int]:
    text = resources.files("scorekit.text").joinpath(f"data/{name}").read_text("utf-8")
    raw = json.loads(text)
    return {str(key): int(value) for key, value in raw.items()}


@functools.cache
def sentiment_labels() -> Mapping[str, int]:
    """Return the word/emoji → valence map: AFINN-165 (3382 words) merged with 767 emoji.

    Values are integers in −5..5. Loaded once from ``data/afinn165_labels.json`` and
    ``data/emoji_sentiment.json``; the emoji are merged over the words as npm sentiment does
    (the two key sets are disjoint).
    """
    labels = _load_json("afinn165_labels.json")
    labels.update(_load_json("emoji_sentiment.json"))
    return labels


@functools.cache
def sentiment_negators() -> frozenset[str]:
    """Return the 12 English negators of npm sentiment 5.0.2 (``data/sentiment_negators.json``)."""
    return frozenset(_load_json("sentiment_negators.json"))


def _normalised(text: str) -> str:
    """The text as npm sentiment splits it: lower case, marks and whitespace runs → spaces."""
    lowered = text.lower().replace("\n", " ")
    return js_trim(_WS_RUN.sub(" ", _SPECIAL.sub(" ", lowered)))


def tokenize(text: str) -> list[str]:
    """Split ``text`` into tokens exactly as npm sentiment 5.0.2 does (see the module docstring).

    Args:
        text: any string.

    Returns:
        At least one token (``""`` gives ``[""]``).
    """
    return _normalised(text).split(" ")


@dataclass(frozen=True)
class SentimentResult:
    """The sentiment of one text."""

    score: int
    """Sum of the (possibly negated) valences of the tokens found in the label map."""
    token_count: int
    """How many tokens :func:`tokenize` gives (at least one)."""

    @property
    def comparative(self) -> float:
        """``score / token_count``, a finite float (0.0 for no tokens)."""
        return self.score / self.token_count if self.token_count else 0.0


def analyze(text: str) -> SentimentResult:
    """Score ``text`` with AFINN-165 and emoji valences (npm sentiment 5.0.2 ``analyze``).

    The tokens are read a piece of :func:`scorekit.text.whitespace.space_slices` at a time, so
    that a megabyte text never builds its whole token list: linear time without falling out of
    the processor's cache.

    Args:
        text: any string.

    Returns:
        The integer score and the number of tokens.

    Example:
        >>> analyze("I am not happy")
        SentimentResult(score=-3, token_count=4)
    """
    score = 0
    count = 0
    previous: str | None = None  # the token before the current one (none before the first)
    for piece in space_slices(_normalised(text)):
        tokens = piece.split(" ")
        count += len(tokens)
        score += _valence_sum(tokens, previous)
        previous = tokens[-1]
    return SentimentResult(score=score, token_count=count)


def _valence_sum(tokens: Sequence[str], previous: str | None = None) -> int:
    """The valences of ``tokens``, each negated after a negator.

    ``previous`` is the token before the first (``None``: there is none).
    """
    labels = sentiment_labels()
    negators = sentiment_negators()
    score = 0
    for token in tokens:
        value = labels.get(token)
        if value is not None:
            score += -value if previous in negators else value
        previous = token
    return score


def comparative(text: str) -> float:
    """Return npm sentiment's ``comparative`` score of ``text``: valence sum per token.

    Source: npm ``sentiment`` 5.0.2, used by Mastra evals 1.10.2 tone.

    Args:
        text: any string.

    Returns:
        ``score / number_of_tokens``; unbounded in principle, in practice within −5..5.

    Example:
        >>> comparative("I love this amazing product!")
        1.4
    """
    return analyze(text).comparative


_SEPARATOR = "\x00"
"""Joins the texts :func:`comparatives` normalises at once: no normalisation step touches it
(not a mark, not JS whitespace, no case), and it ends ``str.lower``'s context (not cased, not
case-ignorable), so each text is normalised as it would be alone."""

_TO_SPACE = str.maketrans(dict.fromkeys('\n.,/#!?$%^&*;:{}=_`"~()', " "))
"""``\\n`` and :data:`_SPECIAL`'s marks, each to a space (:func:`_normalised`'s first steps)."""

_NOT_PLAIN_SPACE = "\t\v\f\r\x1c\x1d\x1e\x1f"
"""ASCII whitespace but ``" "`` and ``"\\n"``, for JS or for ``str.split``: where they are
absent, ``str.split()`` gives :func:`tokenize`'s tokens of a normalised ASCII text."""


@functools.cache
def _valenced_or_separator() -> frozenset[str]:
    """The tokens with a valence, and :data:`_SEPARATOR`."""
    return frozenset(sentiment_labels()) | {_SEPARATOR}


def comparatives(texts: Sequence[str]) -> list[float]:
    """Return :func:`comparative` of each text, normalising them all in one pass.

    The same values as ``[comparative(t) for t in texts]`` (npm sentiment 5.0.2, used by
    Mastra evals 1.10.2 tone for each sentence), at a fraction of the cost for many short
    texts. The texts are joined by :data:`_SEPARATOR` and normalised at once, in batches of
    about :data:`scorekit.text.whitespace.SLICE` characters (a text longer than that is scored
    alone, a slice at a time; texts that hold the separator are scored one by one). An ASCII
    batch whose only whitespace is spaces and newlines is split by ``str.split`` and its tokens
    looked up in one pass, each text's score summed from its tokens with a valence; any other
    is split by :func:`_normalised`'s rules.

    Args:
        texts: any strings.

    Returns:
        One comparative score per text, in order.

    Example:
        >>> comparatives(["I love it.", "It is not good.", ""])
        [1.0, -0.75, 0.0]
    """
    lengths = list(map(len, texts))
    if sum(lengths) <= SLICE:  # one batch (a whole output of up to SLICE characters)
        return _comparatives_of(texts)
    scores: list[float] = []
    batch: list[str] = []
    size = 0
    for text, length in zip(texts, lengths, strict=True):
        if length > SLICE:  # a long text alone, a slice at a time (analyze)
            scores += _comparatives_of(batch)
            scores.append(comparative(text))
            batch, size = [], 0
            continue
        batch.append(text)
        size += length
        if size >= SLICE:  # a batch's tokens stay in the processor's cache
            scores += _comparatives_of(batch)
            batch, size = [], 0
    return scores + _comparatives_of(batch)


def _comparatives_of(texts: Sequence[str]) -> list[float]:
    """:func:`comparatives` of a batch of about :data:`SLICE` characters or less."""
    if not texts:
        return []
    joined = f" {_SEPARATOR} ".join(texts)
    if joined.count(_SEPARATOR) != len(texts) - 1:
        return [comparative(text) for text in texts]
    if joined.isascii() and not any(c in joined for c in _NOT_PLAIN_SPACE):
        normalised = joined.lower().translate(_TO_SPACE)
        kernel = _kernel()
        if kernel is not None:
            return kernel(normalised)
        return _ascii_comparatives(normalised.split())
    normalised = _WS_RUN.sub(" ", _SPECIAL.sub(" ", joined.lower().replace("\n", " ")))
    scores = []
    for piece in normalised.split(_SEPARATOR):
        tokens = js_trim(piece).split(" ")
        scores.append(_valence_sum(tokens) / len(tokens))
    return scores


@functools.cache
def _kernel() -> Callable[[str], list[float]] | None:
    """The C kernel's :func:`_ascii_comparatives` of a normalised ASCII batch, or ``None``.

    ``scorekit/text/_sentiment_kernel.c``, built by ``make core`` and importable only while
    that build is current (:mod:`scorekit.text.compiled`): the batch's tokens (those of
    ``str.split``) are found and looked up in C, the same values as :func:`_ascii_comparatives`
    (``tests/text/test_sentiment.py`` compares the two on seeded text of every kind the Python
    path reads; ``benchmarks/code_scorer_fingerprint.py`` on the shared data) in about a
    fourth of the time. Without it the Python code runs.
    """
    try:
        from scorekit.text import _sentiment_kernel
    except ImportError:
        return None
    table = _sentiment_kernel.lexicon(dict(sentiment_labels()), sentiment_negators())
    return functools.partial(_sentiment_kernel.comparatives, table)


def _ascii_comparatives(tokens: list[str]) -> list[float]:
    """Each text's comparative from the tokens of all, :data:`_SEPARATOR` between texts.

    One look-up pass finds the tokens with a valence and the separators; a text with no token
    counts one (``tokenize("")`` is ``[""]``), and a negator negates the next token of its
    own text only.
    """
    wanted = _valenced_or_separator()
    negators = sentiment_negators()
    # the places of the tokens wanted, in C: no Python step per token
    found = compress(range(len(tokens)), map(wanted.__contains__, tokens))
    valence = sentiment_labels()
    scores = []
    start = score = 0
    for place in found:
        token = tokens[place]
        if token == _SEPARATOR:
            scores.append(score / (place - start) if place > start else 0.0)
            start, score = place + 1, 0
            continue
        value = valence[token]
        score += -value if place > start and tokens[place - 1] in negators else value
    end = len(tokens)
    scores.append(score / (end - start) if end > start else 0.0)
    return scores
