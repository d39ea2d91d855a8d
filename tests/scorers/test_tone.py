from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.inputs.messages import joined_text
from scorekit.scorers.tone import (
    EMPTY_OUTPUT,
    ONE_SENTENCE,
    create_tone_scorer,
    sentences_of,
    sentiment_stability,
    tone_language_problem,
)
from scorekit.text.language import detect_language
from scorekit.text.whitespace import js_trim
from tests.conformance import cases_for, options, run_args, to_snake
from tests.text.test_language import MULTILINGUAL_MISSING, needs_multilingual

CASES = cases_for("tone")


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


def nothing_to_measure(case: dict) -> str | None:
    """Rows 77 and 101 by the case's content, in the scorer's order: the reason scorekit skips
    it, or ``None``."""
    text = joined_text(run_args(case)["output"], field="output")
    if options(case).get("language", "auto") == "auto":
        problem = tone_language_problem(text)
        if problem is not None:
            return problem  # row 77: not English
    if not js_trim(text):
        return EMPTY_OUTPUT
    if not options(case).get("reference_tone") and len(sentences_of(text)) < 2:
        return ONE_SENTENCE
    return None


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    reference = options(case).get("reference_tone")
    auto = options(case).get("language", "auto") == "auto"
    if reference and auto and tone_language_problem(reference) is not None:
        with pytest.raises(ConfigError):  # row 77: a reference tone that is not English
            create_tone_scorer(**options(case))
        return
    result = create_tone_scorer(**options(case)).run_sync(**run_args(case))
    reason = nothing_to_measure(case)
    if reason is not None:  # row 101: Mastra scores it (1 when there is one sentence or none)
        assert (result.status, result.score, result.reason) == ("skipped", None, reason)
        if reason == ONE_SENTENCE and "preprocessStepResult" in expected:
            assert expected["score"] == 1
            assert expected["preprocessStepResult"]["sentimentVariance"] == 0
        return
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.preprocess_step_result == to_snake(expected["preprocessStepResult"])
    assert result.analyze_step_result is None
    assert result.reason is None


REFERENCE_VECTORS = [
    (
        "This product is wonderful and fantastic!",
        "I love this amazing product!",
        0.9333333333333333,
    ),
    ("This is excellent and amazing!", "This is terrible and disappointing.", 0.0),
    ("Trees are tall. Water is wet.", "The sky is blue. The grass is green.", 1.0),
    (
        "While the interface is beautiful, performance is poor.",
        "The product has great features but some annoying bugs.",
        0.9861111111111112,
    ),
    ("helpful, professional, and knowledgeable", "I am glad to help you with that.", 0.875),
]


@pytest.mark.parametrize(("reference", "output", "score"), REFERENCE_VECTORS)
def test_reference_vectors(reference: str, output: str, score: float) -> None:
    assert create_tone_scorer(reference_tone=reference).run_sync(output=output).score == score


STABILITY_VECTORS = [
    (
        "I love this product! It works amazingly well. The features are fantastic.",
        0.8194444444444444,
    ),
    ("This is terrible. It never works properly. The support is awful.", 0.8194444444444444),
    (
        "This is amazing! But it has terrible flaws. "
        "Yet somehow I love it. Though it frustrates me.",
        0.16479166666666678,
    ),
    ("The sky is blue. The grass is green. The tree is tall.", 1.0),
    ("I am not happy. Good.", 0.0),
    ("Good. Nice! Terrible", 1.0),  # text after the last terminator is ignored (Mastra)
]


@pytest.mark.parametrize(("output", "score"), STABILITY_VECTORS)
def test_stability_vectors(output: str, score: float) -> None:
    assert create_tone_scorer().run_sync(output=output).score == score


def test_stability_step_result() -> None:
    result = create_tone_scorer().run_sync(output="I am not happy. Good.")
    assert result.preprocess_step_result == {
        "score": 0.0,
        "avg_sentiment": 1.125,
        "sentiment_variance": 3.515625,
    }


def test_summation_is_left_to_right() -> None:
    # Python 3.12's sum() compensates rounding; Mastra's reduce does not
    values = [0.1, 0.2, 0.3]
    _, mean, _ = sentiment_stability(values)
    assert mean == ((0.1 + 0.2) + 0.3) / 3


@pytest.mark.parametrize("output", ["12345. 678.", "\U0001f60d! \U0001f60d!"])
def test_text_without_letters_keeps_mastras_rules(output: str) -> None:
    result = create_tone_scorer().run_sync(output=output)
    assert result.status == "ok"
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("output", "reference_tone", "reason"),
    [
        ("", None, EMPTY_OUTPUT),
        ("  \n\t", None, EMPTY_OUTPUT),
        ("   ", "Helpful and friendly.", EMPTY_OUTPUT),  # Mastra: 1 - |0 - 0.67| = 0.33
        ("This is a great product.", None, ONE_SENTENCE),  # Mastra: 1.0
        ("Great! Terrible", None, ONE_SENTENCE),  # one sentence, then ignored text
        ("no sentence marks at all in this reply", None, ONE_SENTENCE),
        ("12345.", None, ONE_SENTENCE),
    ],
)
def test_nothing_to_measure_is_skipped_with_the_reason(
    output: str, reference_tone: str | None, reason: str
) -> None:
    # row 101: one sentence has a variance of 0 by definition, so its 1.0 measured nothing
    result = create_tone_scorer(reference_tone=reference_tone).run_sync(output=output)
    assert (result.status, result.score, result.reason) == ("skipped", None, reason)
    assert result.preprocess_step_result is None


def test_one_sentence_is_scored_against_a_reference_tone() -> None:
    result = create_tone_scorer(reference_tone="I love it.").run_sync(output="I love it.")
    assert (result.status, result.score) == ("ok", 1.0)


POLISH = "To jest okropny produkt, nienawidzę go. Straszne!"


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("東京は日本の首都です。", "tone needs an English text: no sentiment lexicon for Japanese"),
        ("我喜欢学习机器学习", "tone needs an English text: no sentiment lexicon for Chinese"),
        ("Привет мир. Пока.", "tone needs an English text: no sentiment lexicon for Russian"),
        ("مرحبا بالعالم", "tone needs an English text: no sentiment lexicon for Arabic"),
        (POLISH, "tone needs an English text: no sentiment lexicon for Polish"),
        ("ქართული ენა", "tone needs an English text: no sentiment lexicon for text in "
         "Georgian script"),
    ],
)  # fmt: skip
def test_other_languages_are_skipped(output: str, reason: str) -> None:
    # row 77: Mastra scores these with the English lexicon (the Polish one 1.0)
    if detect_language(output).code is None and MULTILINGUAL_MISSING and "Georgian" not in reason:
        pytest.skip("needs the optional extra scorekit[multilingual]")
    result = create_tone_scorer().run_sync(output=output)
    assert (result.status, result.score, result.reason) == ("skipped", None, reason)
    assert result.preprocess_step_result is None


@needs_multilingual
def test_latin_text_with_diacritics_in_english_is_scored() -> None:
    result = create_tone_scorer().run_sync(output="The café was great. Naïve but lovely!")
    assert result.status == "ok"
    assert result.preprocess_step_result == {
        "score": 0.9565972222222222,
        # the sentences: 3/4 ("great") and 1/3 (naïve -2, lovely 3, over 3 tokens)
        "avg_sentiment": 0.5416666666666666,
        "sentiment_variance": 0.043402777777777776,
    }


def test_without_the_extra_diacritics_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    import scorekit.text.language as language

    monkeypatch.setattr(language, "stopword_lists", lambda: None)
    result = create_tone_scorer().run_sync(output=POLISH)
    assert result.status == "skipped"
    assert result.reason == (
        "tone needs an English text and the language of this one cannot be told: telling the "
        "language of text in Latin script needs stop-word lists: install the optional extra "
        "scorekit[multilingual]; or pass language='en'"
    )


def test_language_en_scores_any_text_as_mastra() -> None:
    result = create_tone_scorer(language="en").run_sync(output=POLISH)
    assert result.status == "ok"
    assert result.score == 1.0  # no English lexicon word: Mastra's meaningless 1.0, opted into


@pytest.mark.parametrize("language", ["pl", "EN", "", None])
def test_bad_language(language: object) -> None:
    with pytest.raises(ConfigError) as info:
        create_tone_scorer(language=language)  # type: ignore[arg-type]
    assert info.value.field == "language"


def test_reference_tone_in_another_language_is_refused() -> None:
    with pytest.raises(ConfigError) as info:
        create_tone_scorer(reference_tone="Это ужасно")
    assert info.value.field == "reference_tone"
    assert str(info.value) == (
        "reference_tone: tone needs an English text: no sentiment lexicon for Russian"
        if not MULTILINGUAL_MISSING
        else "reference_tone: tone needs an English text: no sentiment lexicon for text in "
        "Cyrillic script"
    )
    scorer = create_tone_scorer(reference_tone="Это ужасно", language="en")
    assert scorer.run_sync(output="Fine.").score == 0.0  # fine 2 vs 0: difference 2


def test_very_long_output() -> None:
    text = "I love it. I hate it. " * 5_000
    result = create_tone_scorer().run_sync(output=text)
    assert result.preprocess_step_result["sentiment_variance"] == 1.0
    assert result.score == 0.0


def test_input_is_ignored() -> None:
    scorer = create_tone_scorer()
    bad = scorer.run_sync(input="terrible!", output="Fine. Great.")
    good = scorer.run_sync(input="great!", output="Fine. Great.")
    assert bad.preprocess_step_result == good.preprocess_step_result
    assert bad.score == good.score == 0.75  # "fine" 2, "great" 3: variance 0.25


def test_bad_reference_tone() -> None:
    with pytest.raises(ConfigError) as info:
        create_tone_scorer(reference_tone=3)  # type: ignore[arg-type]
    assert info.value.field == "reference_tone"


def test_sentences_are_the_regex_matches_found_in_linear_time() -> None:
    # the bounded search gives exactly the matches of Mastra's regex on the whole text
    import random
    import re

    from scorekit.scorers.tone import sentences_of

    mastra = re.compile(r"[^.!?]+[.!?]+")
    rng = random.Random(7)
    texts = ["", "no punctuation at all", "...", "..a.", "a!?b?..c", "Hi. How are you?! fine"]
    texts += [
        "".join(rng.choice("ab .!?\n") for _ in range(rng.randrange(40))) for _ in range(2000)
    ]
    for text in texts:
        assert sentences_of(text) == mastra.findall(text), text


def test_sentence_bodies_score_as_the_sentences() -> None:
    # issue 35: the scorer reads the sentences without their closing marks, in one split; the
    # same sentences, in the same order, with the same sentiment
    import random

    from scorekit.scorers.tone import sentence_bodies, sentences_of
    from scorekit.text.sentiment import comparatives

    rng = random.Random(35)
    words = ["good", "bad", "not", "the", "Love", "!", "?", ".", "..", " ", " ", "\n", "\x00", "ü"]
    for _ in range(3000):
        text = "".join(rng.choice(words) for _ in range(rng.randrange(30)))
        sentences = sentences_of(text)
        bodies = sentence_bodies(text)
        assert len(bodies) == len(sentences), text
        assert comparatives(bodies) == comparatives(sentences), text
        if "\x00" not in text:
            assert bodies == [s.rstrip(".!?") for s in sentences], text
