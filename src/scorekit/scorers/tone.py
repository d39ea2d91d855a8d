"""Tone: how steady the output's sentiment is, or how close it is to a reference tone.

Score range ``[0, 1]``; 1 means a steady tone (or exactly the reference's sentiment).

Formula (Mastra evals 1.10.2 tone), over the output's text only (the input is ignored), with
``comparative`` the AFINN-165 sentiment per token of npm sentiment 5.0.2
(:func:`scorekit.text.sentiment.comparative`):

* with ``reference_tone``: ``difference = |comparative(output) − comparative(reference_tone)|``
  and score = ``max(0, 1 − difference)``;
* without it (stability): sentences are the matches of ``[^.!?]+[.!?]+`` (text after the
  last ``.``/``!``/``?`` is ignored, as in Mastra); score = ``max(0, 1 − variance)`` with the
  population variance of the sentences' ``comparative``.

Nothing to measure is ``skipped`` with the reason (row 101), where Mastra scores 1 or a
distance to nothing: a blank output (:data:`EMPTY_OUTPUT`), and, without a reference tone, an
output of fewer than two sentences (:data:`ONE_SENTENCE`: the variance of one value is 0 by
definition, so Mastra's 1.0 there says nothing about the tone).

An empty ``reference_tone`` counts as none (Mastra tests it for truth).

Languages (``language=``): the lexicon is English. With ``"auto"`` (default) the output's
language is told first (:func:`scorekit.text.language.detect_language`: Latin letters without
diacritics, or no letters at all, are English as in Mastra); any other language gives
``skipped`` with the reason (``"tone needs an English text: no sentiment lexicon for Polish"``),
and a ``reference_tone`` in another language is a ``ConfigError`` (row 77). ``"en"`` scores
any text with the English lexicon, as Mastra does.

Divergences (docs/divergences.md): 2 (code points), 3 (JS whitespace), 15 (no JS prototype
lookup of negators), row 77 (text in another language than English is not scored), row 101
(nothing to measure).
"""

from __future__ import annotations

import re
from functools import reduce
from itertools import repeat
from operator import add, sub

from scorekit.errors import ConfigError
from scorekit.inputs.messages import joined_text
from scorekit.pipeline import NotScorable, Scorer, StepContext, create_scorer, not_scorable
from scorekit.scorers.entry import ScorerEntry
from scorekit.text.language import detect_language
from scorekit.text.sentiment import comparative, comparatives
from scorekit.text.whitespace import js_trim

__all__ = [
    "EMPTY_OUTPUT",
    "ENTRY",
    "ONE_SENTENCE",
    "SCORER_ID",
    "create_tone_scorer",
    "sentence_bodies",
    "sentences_of",
    "sentiment_stability",
    "tone_language_problem",
    "tone_match",
]

SCORER_ID = "tone-scorer"
"""The scorer's stable id (Mastra's)."""

EMPTY_OUTPUT = "the output is empty: there is no tone to measure"
"""The reason of a blank output's ``skipped`` result (row 101)."""

ONE_SENTENCE = (
    "tone stability compares the sentiment of the output's sentences, and it has fewer than two "
    "(a sentence ends with . ! or ?): there is nothing to compare; give reference_tone to "
    "compare the output with a tone instead"
)
"""The reason of ``skipped`` without a reference tone and with fewer than two sentences."""

_SENTENCE = re.compile(r"[^.!?]+[.!?]+")


def sentences_of(text: str) -> list[str]:
    """Return the sentences of ``text``: the matches of ``[^.!?]+[.!?]+`` (Mastra's), in order.

    Text after the last ``.``, ``!`` or ``?`` can never match, so the search stops there: run on
    the whole text, the regex would rescan that tail from each of its positions (quadratic on
    text without sentence punctuation); bounded so, it runs in linear time.

    Example:
        >>> sentences_of("Hi. How are you?! fine")
        ['Hi.', ' How are you?!']
    """
    end = max(text.rfind("."), text.rfind("!"), text.rfind("?")) + 1
    return _SENTENCE.findall(text, 0, end)


_ENDS = str.maketrans(dict.fromkeys(".!?", "\x00"))


def sentence_bodies(text: str) -> list[str]:
    """The sentences of ``text`` (:func:`sentences_of`) without their closing marks.

    Each sentence is a run of text ended by a run of ``.``, ``!`` or ``?``: with each mark made
    one ``\\x00``, the pieces between separators that are not empty, but the last (text after
    the last mark), are the sentences' bodies, in one ``str.translate`` and one ``str.split``.
    Their sentiment is their sentence's (the marks become spaces in npm sentiment's tokens, at
    the end, and are trimmed). A text holding ``\\x00`` itself is read by the regex.

    Example:
        >>> sentence_bodies("..Hi!! How are you? fine")
        ['Hi', ' How are you']
    """
    if "\x00" in text:
        return sentences_of(text)
    return [piece for piece in text.translate(_ENDS).split("\x00")[:-1] if piece]


def tone_match(response: float, reference: float) -> float:
    """Return ``max(0, 1 − |response − reference|)``.

    Args:
        response: the output's comparative sentiment.
        reference: the reference tone's comparative sentiment.

    Returns:
        A float in ``[0, 1]``.
    """
    return max(0.0, 1 - abs(response - reference))


def sentiment_stability(sentiments: list[float]) -> tuple[float, float, float]:
    """Return ``(score, mean, variance)`` of per-sentence sentiments.

    Formula (Mastra evals 1.10.2 tone): mean and population variance summed left to right (as
    JS ``reduce`` does, not Python's compensated ``sum``); score = ``max(0, 1 − variance)``.

    Args:
        sentiments: at least one comparative sentiment.

    Returns:
        The score in ``[0, 1]``, the mean and the variance (``>= 0``).

    Example:
        >>> sentiment_stability([0.5, -0.5])
        (0.75, 0.0, 0.25)
    """
    # functools.reduce adds left to right in C; Python's sum() may compensate (3.12+)
    mean = reduce(add, sentiments, 0.0) / len(sentiments)
    # squared as ``x ** 2`` (C pow), which is not always ``x * x`` in the last bit
    squares = map(pow, map(sub, sentiments, repeat(mean)), repeat(2.0))
    variance = reduce(add, squares, 0.0) / len(sentiments)
    return max(0.0, 1 - variance), mean, variance


def tone_language_problem(text: str) -> str | None:
    """Why ``text`` cannot be scored with the English lexicon, or ``None`` when it can.

    Example:
        >>> tone_language_problem("Gorzej być nie mogło, nienawidzę tego.")
        'tone needs an English text: no sentiment lexicon for Polish'
    """
    found = detect_language(text)
    if found.english_rules:
        return None
    if found.code is None and found.reason is not None and found.script == "Latin":
        return (
            "tone needs an English text and the language of this one cannot be told: "
            f"{found.reason}; or pass language='en'"
        )
    return f"tone needs an English text: no sentiment lexicon for {found.name}"


def create_tone_scorer(reference_tone: str | None = None, *, language: str = "auto") -> Scorer:
    """Create the Tone scorer.

    Args:
        reference_tone: a text whose sentiment the output should match; ``None`` or ``""``
            scores the stability of the output's own tone instead.
        language: ``"auto"`` (score English text only, skip the rest) or ``"en"`` (score any
            text with the English lexicon, as Mastra does); see the module docstring.

    Returns:
        A scorer whose ``preprocess_step_result`` is ``{"score", "response_sentiment",
        "reference_sentiment", "difference"}`` with a reference tone, else ``{"score",
        "avg_sentiment", "sentiment_variance"}``; the score is its ``score`` (in ``[0, 1]``).
        An output in another language than English ends the run as ``skipped`` (``"auto"``),
        and so does a blank output (:data:`EMPTY_OUTPUT`) and, without a reference tone, an
        output of fewer than two sentences (:data:`ONE_SENTENCE`; row 101).

    Raises:
        ConfigError: ``reference_tone`` is not a string, or (``"auto"``) not English;
            ``language`` is neither ``"auto"`` nor ``"en"``.

    Example:
        >>> create_tone_scorer().run_sync(output="I love it. It works well.").score
        0.75
        >>> create_tone_scorer().run_sync(output="This is a great product.").status
        'skipped'
    """
    if reference_tone is not None and not isinstance(reference_tone, str):
        raise ConfigError(
            f"reference_tone must be a string, not {type(reference_tone).__name__}",
            field="reference_tone",
        )
    if language not in ("auto", "en"):
        raise ConfigError(
            f"language must be 'auto' or 'en' (the sentiment lexicon is English), not {language!r}",
            field="language",
        )
    if language == "auto" and reference_tone:
        problem = tone_language_problem(reference_tone)
        if problem is not None:
            raise ConfigError(f"reference_tone: {problem}", field="reference_tone")

    def preprocess(ctx: StepContext) -> dict[str, float] | NotScorable:
        text = joined_text(ctx.run.output, field="output")
        if language == "auto":
            problem = tone_language_problem(text)
            if problem is not None:
                return not_scorable(problem)
        if not js_trim(text):
            return not_scorable(EMPTY_OUTPUT)
        if reference_tone:
            response = comparative(text)
            reference = comparative(reference_tone)
            return {
                "score": tone_match(response, reference),
                "response_sentiment": response,
                "reference_sentiment": reference,
                "difference": abs(response - reference),
            }
        sentences = sentence_bodies(text)
        if len(sentences) < 2:
            return not_scorable(ONE_SENTENCE)
        score, mean, variance = sentiment_stability(comparatives(sentences))
        return {"score": score, "avg_sentiment": mean, "sentiment_variance": variance}

    def generate_score(ctx: StepContext) -> float:
        score: float = ctx.results.preprocess_step_result["score"]
        return score

    return (
        create_scorer(
            SCORER_ID,
            name="Tone Scorer",
            description="Sentiment stability of the output, or its distance to a reference tone",
        )
        .preprocess(preprocess)
        .generate_score(generate_score)
    )


ENTRY = ScorerEntry(
    name="tone",
    scorer_id=SCORER_ID,
    factory=create_tone_scorer,
    kind="code",
    summary=(
        "Sentiment stability of the output, or closeness to a reference tone; "
        "languages: English only (AFINN-165), other languages skipped"
    ),
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
