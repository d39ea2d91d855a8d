from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.scorers.tone import create_tone_scorer, sentiment_stability
from tests.conformance import cases_for, options, run_args, to_snake

CASES = cases_for("tone")


def test_corpus_is_present() -> None:
    assert len(CASES) == 33


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    result = create_tone_scorer(**options(case)).run_sync(**run_args(case))
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
    ("This is a great product.", 1.0),
    ("", 1.0),
    ("The sky is blue. The grass is green. The tree is tall.", 1.0),
    ("I am not happy. Good.", 0.0),
    ("Great! Terrible", 1.0),  # text after the last terminator is ignored (Mastra)
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


@pytest.mark.parametrize(
    "output", ["東京は日本の首都です。", "Привет мир. Пока.", "مرحبا بالعالم", "   ", "\n\n"]
)
def test_non_english_and_whitespace(output: str) -> None:
    result = create_tone_scorer().run_sync(output=output)
    assert result.status == "ok"
    assert result.score == 1.0


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
