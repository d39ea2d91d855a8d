from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.inputs.messages import joined_text
from scorekit.scorers.keyword_coverage import create_keyword_coverage_scorer, keyword_coverage
from scorekit.text.language import detect_language
from tests.conformance import cases_for, options, run_args, to_snake
from tests.text.test_language import MULTILINGUAL_MISSING, needs_multilingual

CASES = cases_for("keyword-coverage")
EMPTY_REFERENCE = "the reference text is empty: there are no keywords to look for"
NO_KEYWORDS = (
    "the reference has no keywords: all its words are stop words, numbers, punctuation or markup"
)


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    step = to_snake(expected["preprocessStepResult"])
    step = step.get("result", step)  # Mastra wraps the both-empty result (row 14)
    reference = joined_text(case["input"], field="input")
    found = detect_language(reference)
    if found.code is None and found.script is not None and MULTILINGUAL_MISSING:
        # a Latin text with diacritics: telling it English needs the stop-word lists
        pytest.skip("needs the optional extra scorekit[multilingual]")
    result = create_keyword_coverage_scorer(**options(case)).run_sync(**run_args(case))
    if not found.english_rules:
        # row 75, row 76: a text in another language than English has its own rules
        # (exact values in test_corpus_texts_in_other_languages)
        if MULTILINGUAL_MISSING:
            assert result.status == "skipped"
            assert "scorekit[multilingual]" in (result.reason or "")
            return
        assert result.status == "ok"
        assert result.preprocess_step_result["language"] == found.code
        return
    if not step["reference_keywords"]:
        # row 74: Mastra's preprocess shows no reference keyword; Mastra scores 1
        assert result.status == "skipped"
        assert result.score is None
        assert result.preprocess_step_result == step
        assert result.analyze_step_result is None
        assert result.reason == (EMPTY_REFERENCE if not reference.strip() else NO_KEYWORDS)
        return
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.preprocess_step_result == step
    assert result.analyze_step_result == to_snake(expected["analyzeStepResult"])
    assert result.reason is None


SPEC_VECTORS = [
    (
        "The quick brown fox jumps over the lazy dog",
        "A quick brown fox runs past a sleeping cat",
        0.5,
    ),
    ("The quick brown fox", "", 0.0),
    ("The quick-brown fox!", "The quick brown fox", 0.5),
    ("Don't stop believing, it's 2024!", "dont stop", 0.5),
    ("<b>Quick</b> brown fox", "quick fox", 0.6666666666666666),
    ("Visit https://example.com today", "visit today", 0.6666666666666666),
    ('He said "hello" (twice); then left.', "hello twice left", 1.0),
]


@pytest.mark.parametrize(("reference", "output", "score"), SPEC_VECTORS)
def test_spec_vectors(reference: str, output: str, score: float) -> None:
    assert create_keyword_coverage_scorer().run_sync(input=reference, output=output).score == score


def test_both_empty_has_the_usual_shape() -> None:
    result = create_keyword_coverage_scorer().run_sync(input="", output="")
    assert result.status == "skipped"
    assert result.reason == EMPTY_REFERENCE
    assert result.preprocess_step_result == {"reference_keywords": [], "response_keywords": []}
    assert result.analyze_step_result is None
    assert result.score is None


@pytest.mark.parametrize(
    ("reference", "output", "reason"),
    [
        ("", "The quick brown fox", EMPTY_REFERENCE),
        (" \t\n ", "anything here", EMPTY_REFERENCE),
        ("the and of", "completely different words", NO_KEYWORDS),
        ("12345 3.14", "12345", NO_KEYWORDS),
        ("<br/> ?!", "x", NO_KEYWORDS),
    ],
)
def test_reference_without_keywords_is_skipped(reference: str, output: str, reason: str) -> None:
    # row 74: Mastra scores these 1.0
    result = create_keyword_coverage_scorer().run_sync(input=reference, output=output)
    assert (result.status, result.score, result.reason) == ("skipped", None, reason)


@needs_multilingual
@pytest.mark.parametrize(
    ("reference", "output", "reference_keywords", "response_keywords", "language", "score"),
    [
        # the corpus texts in other languages (Mastra: one keyword per space-free run)
        ("東京は日本の首都です。", "東京は日本の首都です。", ["東京", "日本", "首都"],
         ["東京", "日本", "首都"], "ja", 1.0),
        ("東京は日本の首都です。", "東京は日本の首都である。", ["東京", "日本", "首都"],
         ["東京", "日本", "首都"], "ja", 1.0),
        ("こんにちは世界", "konnichiwa sekai", ["こんにちは", "世界"], ["konnichiwa", "sekai"],
         "ja", 0.0),
        ("我喜欢学习机器学习", "我喜欢机器学习", ["喜欢", "学习", "机器"], ["喜欢", "机器", "学习"],
         "zh", 1.0),
        ("ΟΔΟΣ ΣΟΦΙΑΣ", "οδος σοφιας", ["οδος", "σοφιας"], ["οδος", "σοφιας"], "el", 1.0),
        ("Привет мир", "привет Мир", ["привет"], ["привет"], "ru", 1.0),
        ("مرحبا بالعالم", "مرحبا", ["مرحبا", "بالعالم"], ["مرحبا"], "ar", 0.5),
        # Polish: its own stop words, Unicode words, the output read as Polish too
        ("Ten produkt jest okropny, nienawidzę go!", "Produkt okropny. Nienawidzę!",
         ["produkt", "okropny", "nienawidzę"], ["produkt", "okropny", "nienawidzę"], "pl", 1.0),
        ("Zażółć gęślą jaźń, tak jest", "zażółć jaźń", ["zażółć", "gęślą", "jaźń"],
         ["zażółć", "jaźń"], "pl", 2 / 3),
    ],
)  # fmt: skip
def test_corpus_texts_in_other_languages(
    reference: str,
    output: str,
    reference_keywords: list[str],
    response_keywords: list[str],
    language: str,
    score: float,
) -> None:
    result = create_keyword_coverage_scorer().run_sync(input=reference, output=output)
    assert result.status == "ok"
    assert result.preprocess_step_result == {
        "reference_keywords": reference_keywords,
        "response_keywords": response_keywords,
        "language": language,
    }
    assert result.score == score


@needs_multilingual
def test_forced_language() -> None:
    # "To jest" has no diacritics: read as English unless the language is given
    auto = create_keyword_coverage_scorer().run_sync(input="To jest produkt", output="produkt")
    assert auto.preprocess_step_result["reference_keywords"] == ["jest", "produkt"]
    forced = create_keyword_coverage_scorer(language="pl").run_sync(
        input="To jest produkt", output="produkt"
    )
    assert forced.preprocess_step_result["reference_keywords"] == ["produkt"]
    assert forced.score == 1.0
    english = create_keyword_coverage_scorer(language="en").run_sync(
        input="東京は日本の首都です。", output="東京は日本の首都です。"
    )
    assert english.preprocess_step_result == {
        "reference_keywords": ["東京は日本の首都です。"],
        "response_keywords": ["東京は日本の首都です。"],
    }


@needs_multilingual
@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("สวัสดีครับ", "the reference is Thai; keyword coverage cannot split Thai text into words: "
         "no word segmenter for it"),
        ("ქართული ენა", "keyword coverage cannot tell the language of the reference: scorekit "
         "knows no language written in Georgian script"),
    ],
)  # fmt: skip
def test_languages_it_cannot_handle_are_skipped(reference: str, reason: str) -> None:
    result = create_keyword_coverage_scorer().run_sync(input=reference, output="x")
    assert (result.status, result.score, result.reason) == ("skipped", None, reason)
    assert result.preprocess_step_result is None


def test_without_the_extra_other_languages_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    import scorekit.scorers.keyword_coverage as module

    monkeypatch.setattr(module, "stopwords_for", lambda code: None)
    result = create_keyword_coverage_scorer().run_sync(input="東京は日本の首都です。", output="x")
    assert result.status == "skipped"
    assert result.reason == (
        "the reference is Japanese; keyword coverage needs the Japanese stop-word list: "
        "install the optional extra scorekit[multilingual]"
    )
    with pytest.raises(ConfigError) as info:
        create_keyword_coverage_scorer(language="ja")
    assert info.value.field == "language"
    assert "scorekit[multilingual]" in str(info.value)


@pytest.mark.parametrize("language", ["EN", "xx", "", 3, "th"])
def test_bad_language(language: object) -> None:
    with pytest.raises(ConfigError) as info:
        create_keyword_coverage_scorer(language=language)  # type: ignore[arg-type]
    assert info.value.field == "language"


def test_very_long_inputs() -> None:
    reference = " ".join(f"word{i % 500}x" for i in range(20_000))  # ~150k chars
    result = create_keyword_coverage_scorer().run_sync(input=reference, output=reference[:1000])
    assert result.analyze_step_result["total_keywords_length"] == 500
    assert result.score == result.analyze_step_result["matched_keywords_length"] / 500


def test_ground_truth_is_the_reference_when_given() -> None:
    scorer = create_keyword_coverage_scorer()
    result = scorer.run_sync(input="question", output="paris capital", ground_truth="Paris")
    assert result.score == 1.0
    assert (
        create_keyword_coverage_scorer(compare_to="input")
        .run_sync(input="question", output="paris", ground_truth="Paris")
        .score
        == 0.0
    )


def test_formula() -> None:
    assert keyword_coverage(0, 0) == 1.0  # Mastra's formula; the scorer skips instead
    assert keyword_coverage(3, 1) == 1 / 3


def test_bad_compare_to() -> None:
    with pytest.raises(ConfigError) as info:
        create_keyword_coverage_scorer(compare_to="both")  # type: ignore[arg-type]
    assert info.value.field == "compare_to"
