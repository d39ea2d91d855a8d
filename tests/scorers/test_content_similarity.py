from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.scorers import create_content_similarity_scorer
from scorekit.text import dice_similarity
from tests.conformance import cases_for, options, run_args, to_snake

CASES = cases_for("content-similarity")


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    scorer = create_content_similarity_scorer(**options(case))
    result = scorer.run_sync(**run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.preprocess_step_result == to_snake(expected["preprocessStepResult"])
    # Mastra 1.10.2 leaves analyzeStepResult empty; scorekit follows the seed (divergence 11)
    assert expected["analyzeStepResult"] is None
    assert result.analyze_step_result == {"similarity": expected["score"]}
    assert result.reason is None


SPEC_VECTORS = [
    ("The quick brown fox", "The quick brown fox", 1.0),
    (
        "The quick brown fox jumps over the lazy dog",
        "The quick brown fox runs past the lazy dog",
        0.7164179104477612,
    ),
    ("The quick brown fox", "Lorem ipsum dolor sit amet", 0.0),
    ("", "", 1.0),
    ("The quick brown fox", "", 0.0),
    ("a", "a", 1.0),
    ("a", "b", 0.0),
    ("ab", "ba", 0.0),
    ("Hello World", "hello world!", 0.9473684210526315),
    ("night", "nacht", 0.25),
    ("context", "contact", 0.5),
]


@pytest.mark.parametrize(("reference", "output", "score"), SPEC_VECTORS)
def test_spec_vectors(reference: str, output: str, score: float) -> None:
    assert (
        create_content_similarity_scorer().run_sync(input=reference, output=output).score == score
    )


def test_case_sensitive_option() -> None:
    scorer = create_content_similarity_scorer(ignore_case=False)
    result = scorer.run_sync(input="The Quick Brown FOX", output="the quick brown fox")
    assert result.score == 0.4666666666666667


def test_whitespace_only_against_empty_is_identical() -> None:
    result = create_content_similarity_scorer().run_sync(input=" \t\n ", output="")
    assert result.preprocess_step_result == {"processed_input": "", "processed_output": ""}
    assert result.score == 1.0


def test_whitespace_kept_when_not_ignored() -> None:
    scorer = create_content_similarity_scorer(ignore_whitespace=False)
    result = scorer.run_sync(input="Hello   World", output="hello world")
    assert result.preprocess_step_result["processed_input"] == "hello   world"
    assert result.score == 1.0  # the Dice step deletes whitespace itself


def test_js_whitespace_semantics() -> None:
    # U+FEFF is JS whitespace; U+0085 and U+001F are not (divergences.md row 3)
    assert dice_similarity("ab\ufeffcd", "abcd") == 1.0
    assert dice_similarity("ab\x85cd", "abcd") == 2 * 2 / (5 + 4 - 2)
    assert dice_similarity("ab\x1fcd", "abcd") == 2 * 2 / (5 + 4 - 2)


def test_non_bmp_text_counts_code_points() -> None:
    # "😀😀" is two code points (four UTF-16 units in JS): one bigram, shared with itself
    assert dice_similarity("😀😀a", "😀😀b") == 2 * 1 / (3 + 3 - 2)
    assert dice_similarity("😀", "😀") == 1.0
    assert dice_similarity("😀", "😃") == 0.0  # one character each


def test_scale_multiplies() -> None:
    scorer = create_content_similarity_scorer(scale=10)
    assert scorer.run_sync(input="night", output="nacht").score == 2.5


def test_ground_truth_is_the_reference_when_given() -> None:
    scorer = create_content_similarity_scorer()
    result = scorer.run_sync(
        input="Summarize the benefits of TypeScript",
        output="TypeScript adds static typing.",
        ground_truth="TypeScript adds static typing.",
    )
    assert result.score == 1.0
    forced = create_content_similarity_scorer(compare_to="input").run_sync(
        input="night", output="nacht", ground_truth="nacht"
    )
    assert forced.score == 0.25


def test_compare_to_ground_truth_without_one_is_an_error() -> None:
    from scorekit.errors import ScorerRunError

    scorer = create_content_similarity_scorer(compare_to="ground_truth")
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="a", output="b")
    assert info.value.failed_step == "preprocess"
    assert info.value.result is not None
    assert info.value.result.status == "error"
    assert "ground_truth" in info.value.result.error.message


def test_messages_are_joined() -> None:
    scorer = create_content_similarity_scorer()
    result = scorer.run_sync(
        input=[{"role": "user", "content": "hello"}, {"role": "user", "content": "world"}],
        output="hello, world",
    )
    assert result.preprocess_step_result["processed_input"] == "hello, world"
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"scale": 0}, "scale"),
        ({"scale": float("nan")}, "scale"),
        ({"scale": -1}, "scale"),
        ({"scale": "2"}, "scale"),
        ({"ignore_case": "false"}, "ignore_case"),
        ({"compare_to": "output"}, "compare_to"),
    ],
)
def test_bad_options_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_content_similarity_scorer(**kwargs)
    assert info.value.field == field
    assert field in str(info.value)


def test_partial_options_keep_other_defaults() -> None:
    # divergence 1: ignore_whitespace=False does not switch ignore_case off
    scorer = create_content_similarity_scorer(ignore_whitespace=False)
    assert scorer.run_sync(input="ABC", output="abc").score == 1.0


def test_numpy_scale_is_accepted() -> None:
    import numpy as np

    scorer = create_content_similarity_scorer(scale=np.int64(2))
    assert scorer.run_sync(input="night", output="nacht").score == 0.5


def test_no_reference_at_all_is_an_error() -> None:
    from scorekit.errors import ScorerRunError

    with pytest.raises(ScorerRunError, match="no input to compare"):
        create_content_similarity_scorer().run_sync(output="x")
