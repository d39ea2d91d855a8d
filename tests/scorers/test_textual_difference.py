from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.scorers.textual_difference import (
    count_changes,
    create_textual_difference_scorer,
    length_difference,
)
from tests.conformance import cases_for, options, run_args, to_snake

CASES = cases_for("textual-difference")


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    result = create_textual_difference_scorer(**options(case)).run_sync(**run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.preprocess_step_result == to_snake(expected["preprocessStepResult"])
    assert result.analyze_step_result is None
    assert result.reason is None


# (reference, output, score, changes, confidence, length_diff) from mastra-scorers.md §3.4
SPEC_VECTORS = [
    ("The quick brown fox", "The quick brown fox", 1.0, 0, 1.0, 0.0),
    ("The quick brown fox", "The quick brown cat", 0.8421052631578947, 1, 1.0, 0.0),
    (
        "The quick brown fox",
        "The very quick brown fox",
        0.8837209302325582,
        1,
        0.7916666666666666,
        0.20833333333333334,
    ),
    ("The quick brown fox jumps", "The quick fox jumps", 0.8636363636363636, 1, 0.76, 0.24),
    (
        "The quick brown fox",
        "Lorem ipsum dolor sit amet",
        0.26666666666666666,
        5,
        0.7307692307692308,
        0.2692307692307692,
    ),
    ("", "", 1.0, 0, 1.0, 0.0),
    ("The quick brown fox", "", 0.0, 4, 0.0, 1.0),
    ("The Quick Brown Fox", "the quick brown fox", 0.7894736842105263, 4, 1.0, 0.0),
    (
        "The   quick\nbrown    fox",
        "The quick brown fox",
        0.8372093023255814,
        1,
        0.7916666666666666,
        0.20833333333333334,
    ),
    ("abcd", "bcda", 0.75, 1, 1.0, 0.0),
    ("kitten", "sitting", 0.6153846153846154, 1, 0.8571428571428572, 0.14285714285714285),
]


@pytest.mark.parametrize(
    ("reference", "output", "score", "changes", "confidence", "diff"), SPEC_VECTORS
)
def test_spec_vectors(
    reference: str, output: str, score: float, changes: int, confidence: float, diff: float
) -> None:
    result = create_textual_difference_scorer().run_sync(input=reference, output=output)
    assert result.score == score
    assert result.preprocess_step_result == {
        "ratio": score,
        "confidence": confidence,
        "changes": changes,
        "length_diff": diff,
    }


def test_changes_greedy_matching() -> None:
    assert count_changes("a b a", "a a b") == 0
    assert count_changes("a a a", "a") == 2
    assert count_changes("x  y", "x y") == 1  # whitespace-only difference counts once
    assert count_changes("x\ufeffy", "x y") == 1  # U+FEFF is JS whitespace
    assert count_changes(" ", "") == 1


def test_length_difference() -> None:
    assert length_difference("", "") == 0.0
    assert length_difference("ab", "abcd") == 0.5


@pytest.mark.parametrize(
    ("reference", "output", "score"),
    [
        ("東京は日本の首都です。", "東京は日本の首都である。", 0.8695652173913043),
        ("Привет мир", "привет Мир", 0.8),
        ("مرحبا بالعالم", "مرحبا", 0.5555555555555556),
        ("   ", "", 0.0),
        ("\U0001f600", "\U0001f600\U0001f600", 2 / 3),  # code points (divergence 2)
    ],
)
def test_non_english_and_whitespace(reference: str, output: str, score: float) -> None:
    result = create_textual_difference_scorer().run_sync(input=reference, output=output)
    assert result.status == "ok"
    assert result.score == score


def test_hundred_thousand_characters() -> None:
    reference = "the quick brown fox jumps over the lazy dog " * 2_300  # ~100k chars
    output = reference.replace("lazy", "sleepy")
    result = create_textual_difference_scorer().run_sync(input=reference, output=output)
    assert result.status == "ok"
    assert result.duration_s < 1.0
    assert 0.9 < result.score < 1.0


def test_ground_truth_is_the_reference_when_given() -> None:
    result = create_textual_difference_scorer().run_sync(
        input="Say hi", output="hello", ground_truth="hello"
    )
    assert result.score == 1.0


def test_bad_compare_to() -> None:
    with pytest.raises(ConfigError):
        create_textual_difference_scorer(compare_to=None)  # type: ignore[arg-type]


def test_texts_longer_than_max_length_are_skipped_with_the_reason() -> None:
    # row 90: the exact LCS is quadratic; a run does not stall on two megabytes of text
    from scorekit.scorers.textual_difference import DEFAULT_MAX_LENGTH

    assert DEFAULT_MAX_LENGTH == 200_000
    scorer = create_textual_difference_scorer(max_length=10)
    result = scorer.run_sync(input="a" * 11, output="a")
    assert (result.status, result.score) == ("skipped", None)
    assert result.reason.startswith("a text of 11 characters is longer than max_length=10")
    assert scorer.run_sync(input="a" * 10, output="a").status == "ok"
    unlimited = create_textual_difference_scorer(max_length=None)
    assert unlimited.run_sync(input="ab" * 20, output="ab").score == 4 / 42


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_a_bad_max_length_names_the_field(bad: object) -> None:
    with pytest.raises(ConfigError) as info:
        create_textual_difference_scorer(max_length=bad)  # type: ignore[arg-type]
    assert info.value.field == "max_length"
