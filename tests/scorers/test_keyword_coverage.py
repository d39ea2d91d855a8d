from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.scorers.keyword_coverage import create_keyword_coverage_scorer, keyword_coverage
from tests.conformance import cases_for, options, run_args, to_snake

CASES = cases_for("keyword-coverage")


def test_corpus_is_present() -> None:
    assert len(CASES) == 54


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    result = create_keyword_coverage_scorer(**options(case)).run_sync(**run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    step = to_snake(expected["preprocessStepResult"])
    # Mastra wraps the both-empty result in {"result": ...}; scorekit keeps one shape
    # (docs/divergences.md row 14)
    assert result.preprocess_step_result == step.get("result", step)
    assert result.analyze_step_result == to_snake(expected["analyzeStepResult"])
    assert result.reason is None


SPEC_VECTORS = [
    (
        "The quick brown fox jumps over the lazy dog",
        "A quick brown fox runs past a sleeping cat",
        0.5,
    ),
    ("The quick brown fox", "", 0.0),
    ("", "The quick brown fox", 1.0),
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
    assert result.preprocess_step_result == {"reference_keywords": [], "response_keywords": []}
    assert result.analyze_step_result == {"total_keywords_length": 0, "matched_keywords_length": 0}
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("reference", "output", "score"),
    [
        ("東京は日本の首都です。", "東京は日本の首都です。", 1.0),
        ("Привет мир", "привет", 0.5),
        ("مرحبا بالعالم", "مرحبا", 0.5),
        (" \t\n ", "anything here", 1.0),
        ("", "", 1.0),
    ],
)
def test_non_english_and_whitespace(reference: str, output: str, score: float) -> None:
    result = create_keyword_coverage_scorer().run_sync(input=reference, output=output)
    assert result.status == "ok"
    assert result.score == score


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
    assert keyword_coverage(0, 0) == 1.0
    assert keyword_coverage(3, 1) == 1 / 3


def test_bad_compare_to() -> None:
    with pytest.raises(ConfigError) as info:
        create_keyword_coverage_scorer(compare_to="both")  # type: ignore[arg-type]
    assert info.value.field == "compare_to"
