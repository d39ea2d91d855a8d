"""The text checks: exact results for each check and option, and the honest-results rules."""

from __future__ import annotations

import re
from typing import Any

import pytest

from scorekit import checks
from scorekit.checks.check_scorer import NO_MESSAGES, NO_TEXT
from scorekit.errors import ConfigError, ScorerRunError


def reply(*texts: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": text} for text in texts]


WEATHER = reply("It is Sunny in Paris.", "Highs of 72°F.")


def run(scorer: Any, output: Any) -> Any:
    return scorer.run_sync(input="What is the weather?", output=output)


# ---- includes / excludes / equals ----


@pytest.mark.parametrize(
    ("expected", "kwargs", "score", "step"),
    [
        ("sunny", {}, 1.0, ("it is sunny in paris. highs of 72°f.", "sunny", True)),
        ("SUNNY", {}, 1.0, ("it is sunny in paris. highs of 72°f.", "sunny", True)),
        (
            "sunny",
            {"ignore_case": False},
            0.0,
            ("It is Sunny in Paris. Highs of 72°F.", "sunny", False),
        ),
        ("paris. highs", {}, 1.0, ("it is sunny in paris. highs of 72°f.", "paris. highs", True)),
        ("paris.highs", {}, 0.0, ("it is sunny in paris. highs of 72°f.", "paris.highs", False)),
    ],
)
def test_includes(expected: str, kwargs: dict, score: float, step: tuple) -> None:
    result = run(checks.includes(expected, **kwargs), WEATHER)
    assert result.status == "ok"
    assert result.score == score
    assert result.preprocess_step_result == dict(
        zip(("output", "target", "found"), step, strict=True)
    )
    assert result.reason is None
    assert result.analyze_step_result is None
    assert result.scorer_id == "check-includes"


def test_includes_folds_case_as_js_to_lower_case() -> None:
    # JS toLowerCase does not turn ß into ss; neither does str.lower
    result = run(checks.includes("STRASSE"), reply("Die Straße ist nass."))
    assert result.score == 0.0
    assert result.preprocess_step_result["output"] == "die straße ist nass."
    assert run(checks.includes("STRAẞE"), reply("Die Straße")).score == 1.0  # ẞ lowers to ß


@pytest.mark.parametrize(
    ("unwanted", "kwargs", "score", "target"),
    [
        ("error", {}, 1.0, "error"),
        ("PARIS", {}, 0.0, "paris"),
        ("PARIS", {"ignore_case": False}, 1.0, "PARIS"),
        ("72°f", {}, 0.0, "72°f"),
    ],
)
def test_excludes(unwanted: str, kwargs: dict, score: float, target: str) -> None:
    result = run(checks.excludes(unwanted, **kwargs), WEATHER)
    assert result.score == score
    assert result.preprocess_step_result["target"] == target
    assert result.preprocess_step_result["excluded"] is (score == 1.0)
    assert result.scorer_id == "check-excludes"


@pytest.mark.parametrize(
    ("expected", "kwargs", "output", "score", "shown"),
    [
        ("ab", {}, reply("a", "b"), 1.0, "ab"),  # joined without a separator
        ("AB", {}, reply("a", "b"), 1.0, "ab"),
        ("AB", {"ignore_case": False}, reply("a", "b"), 0.0, "ab"),
        ("sunny", {}, reply(" sunny "), 0.0, " sunny "),  # not trimmed
        ("a b", {}, reply("a", "b"), 0.0, "ab"),
    ],
)
def test_equals(expected: str, kwargs: dict, output: list, score: float, shown: str) -> None:
    result = run(checks.equals(expected, **kwargs), output)
    assert result.score == score
    assert result.preprocess_step_result["output"] == shown
    assert result.preprocess_step_result["is_equal"] is (score == 1.0)
    assert result.scorer_id == "check-equals"


def test_only_assistant_messages_count() -> None:
    output = [
        {"role": "user", "content": "sunny?"},
        {"role": "assistant", "content": "Rain."},
        {"role": "tool", "content": "sunny"},
    ]
    result = run(checks.includes("sunny"), output)
    assert result.score == 0.0
    assert result.preprocess_step_result["output"] == "rain."


def test_a_tool_only_message_adds_an_empty_text() -> None:
    output = [
        {
            "role": "assistant",
            "content": "",
            "toolInvocations": [{"toolName": "t", "state": "call"}],
        },
        {"role": "assistant", "content": "Done"},
    ]
    assert run(checks.equals("done"), output).score == 1.0
    # joined with a space, the empty text leaves a leading space
    assert run(checks.includes("done"), output).preprocess_step_result["output"] == " done"


# ---- matches ----


def test_matches_js_regex() -> None:
    result = run(checks.matches(checks.js_regex(r"\d{1,3}°[FC]")), WEATHER)
    assert result.score == 1.0
    assert result.preprocess_step_result == {
        "output": "It is Sunny in Paris.Highs of 72°F.",
        "pattern": "/\\d{1,3}°[FC]/",
        "matched": True,
    }
    assert result.scorer_id == "check-matches"


@pytest.mark.parametrize(
    ("pattern", "kwargs", "output", "score"),
    [
        (checks.js_regex("SUNNY", "i"), {}, WEATHER, 1.0),
        (checks.js_regex("SUNNY"), {}, WEATHER, 0.0),
        (checks.js_regex(r"\d"), {}, reply("気温は２２度です。"), 0.0),  # ASCII \d
        (re.compile(r"\d"), {}, reply("気温は２２度です。"), 1.0),  # Python's \d is Unicode
        (r"Sunny", {}, WEATHER, 1.0),
        (re.compile("sunny", re.IGNORECASE), {}, WEATHER, 1.0),
        (r"^ab$", {}, reply("a", "b"), 1.0),  # joined without a separator
        (checks.js_regex("Sunny"), {"exact": True}, reply("It is Sunny"), 0.0),
        (checks.js_regex("It.*"), {"exact": True}, reply("It is Sunny"), 1.0),
        ("It.*", {"exact": True}, reply("It is Sunny"), 1.0),
        ({"source": "sunny", "flags": "i"}, {}, WEATHER, 1.0),
        (checks.js_regex("Paris", "y"), {}, WEATHER, 0.0),  # sticky: at the start only
        (checks.js_regex("It", "y"), {}, WEATHER, 1.0),
        (checks.js_regex("Paris", "g"), {}, WEATHER, 1.0),
    ],
)
def test_matches(pattern: Any, kwargs: dict, output: list, score: float) -> None:
    scorer = checks.matches(pattern, **kwargs)
    assert run(scorer, output).score == score
    assert run(scorer, output).score == score  # a g/y regex is stateless (row 34)


def test_matches_shows_the_pattern() -> None:
    shown = [
        run(checks.matches(p), WEATHER).preprocess_step_result["pattern"]
        for p in (checks.js_regex("sunny", "ig"), re.compile(r"\w+"), r"\d", {"source": "a/b"})
    ]
    assert shown == ["/sunny/gi", r"\w+", r"\d", r"/a\/b/"]


def test_exact_requires_the_whole_text_to_match() -> None:
    # row 32: Mastra builds /^cat|dog$/, which accepts "hotdog" and "catalog"
    scorer = checks.matches(checks.js_regex("cat|dog"), exact=True)
    assert run(scorer, reply("hotdog")).score == 0.0
    assert run(scorer, reply("catalog")).score == 0.0
    assert run(scorer, reply("dog")).score == 1.0
    assert run(checks.matches("cat|dog", exact=True), reply("hotdog")).score == 0.0
    # with m, exact still means the whole text, not one line
    lines = checks.matches(checks.js_regex("dog", "m"), exact=True)
    assert run(lines, reply("cat\ndog")).score == 0.0


def test_bad_patterns_are_config_errors() -> None:
    for pattern in ("(", b"x", re.compile(b"x"), 3, {"source": "a", "flag": "i"}, {"flags": "i"}):
        with pytest.raises(ConfigError) as info:
            checks.matches(pattern)  # type: ignore[arg-type]
        assert info.value.field == "pattern"
    with pytest.raises(ConfigError) as info:
        checks.matches("a", exact="yes")  # type: ignore[arg-type]
    assert info.value.field == "exact"


# ---- similarity ----


@pytest.mark.parametrize(
    ("expected", "kwargs", "output", "score", "raw"),
    [
        ("Sunny, 72°F", {}, reply("Sunny, 73°F"), 0.7777777777777778, 0.7777777777777778),
        ("Sunny, 72°F", {"threshold": 0.9}, reply("Sunny, 73°F"), 0.0, 0.7777777777777778),
        ("Sunny, 72°F", {"threshold": 0.7}, reply("Sunny, 73°F"), 1.0, 0.7777777777777778),
        ("Sunny, 72°F", {"threshold": 1}, reply("sunny,72°f"), 1.0, 1.0),
        ("abcdefgh", {}, reply("xyz12345"), 0.0, 0.0),
        ("SUNNY DAY", {"ignore_case": False}, reply("sunny day"), 0.0, 0.0),
        ("sunny paris", {}, reply("sunny", "paris"), 1.0, 1.0),
        (
            "Schönes Wetter heute",
            {"ignore_case": False},
            reply("schönes Wetter heute"),
            0.9411764705882353,
            0.9411764705882353,
        ),
    ],
)
def test_similarity(expected: str, kwargs: dict, output: list, score: float, raw: float) -> None:
    result = run(checks.similarity(expected, **kwargs), output)
    assert result.score == score
    assert result.preprocess_step_result["score"] == raw
    assert ("threshold" in result.preprocess_step_result) is ("threshold" in kwargs)
    assert result.scorer_id == "check-similarity"


def test_similarity_step_result() -> None:
    result = run(checks.similarity("Sunny, 72°F", threshold=0.9), reply("Sunny, 73°F"))
    assert result.preprocess_step_result == {
        "output": "sunny, 73°f",
        "target": "sunny, 72°f",
        "score": 0.7777777777777778,
        "threshold": 0.9,
    }


# ---- honest results and validation ----


@pytest.mark.parametrize(
    "scorer",
    [
        checks.includes("x"),
        checks.excludes("x"),
        checks.equals("x"),
        checks.matches(".*"),
        checks.similarity("x"),
    ],
)
def test_text_checks_skip_when_there_is_no_text(scorer: Any) -> None:
    # row 30: Mastra checks the empty string (excludes → 1, includes → 0)
    empty = run(scorer, [])
    assert (empty.status, empty.score, empty.reason) == ("skipped", None, NO_MESSAGES)
    for output in (
        [{"role": "user", "content": "x"}],
        [{"role": "assistant", "content": ""}, {"role": "assistant", "content": ""}],
        [{"role": "assistant", "content": "", "toolInvocations": [{"toolName": "t"}]}],
    ):
        result = run(scorer, output)
        assert (result.status, result.score, result.reason) == ("skipped", None, NO_TEXT)
    # whitespace is text
    assert run(scorer, reply(" ")).status == "ok"


@pytest.mark.parametrize("output", ["It is sunny.", {"role": "assistant", "content": "x"}, 3])
def test_the_output_must_be_a_message_list(output: Any) -> None:
    with pytest.raises(ScorerRunError) as info:
        run(checks.includes("sunny"), output)
    assert info.value.failed_step == "preprocess"
    assert "list of output messages" in str(info.value)


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: checks.includes(""), "expected"),
        (lambda: checks.includes(3), "expected"),
        (lambda: checks.excludes(""), "unwanted"),
        (lambda: checks.equals(""), "expected"),
        (lambda: checks.similarity(""), "expected"),
        (lambda: checks.similarity(" \t\u3000"), "expected"),
        (lambda: checks.similarity("x", threshold=0), "threshold"),
        (lambda: checks.similarity("x", threshold=-0.1), "threshold"),
        (lambda: checks.similarity("x", threshold=1.01), "threshold"),
        (lambda: checks.similarity("x", threshold=float("nan")), "threshold"),
        (lambda: checks.similarity("x", threshold=True), "threshold"),
        (lambda: checks.similarity("x", threshold="0.5"), "threshold"),
        (lambda: checks.includes("x", ignore_case="no"), "ignore_case"),
        (lambda: checks.similarity("x", ignore_case=1), "ignore_case"),
    ],
)
def test_options_that_measure_nothing_are_config_errors(make: Any, field: str) -> None:
    # row 31
    with pytest.raises(ConfigError) as info:
        make()
    assert info.value.field == field


def test_text_checks_take_linear_time() -> None:
    text = "ab " * 100_000
    output = reply(text, text)
    for scorer in (
        checks.includes("ab ab ab c"),
        checks.excludes("abc"),
        checks.equals(text),
        checks.matches(checks.js_regex(r"\bzz\b|^\s*$", "im")),
        checks.similarity(text),
    ):
        assert run(scorer, output).status == "ok"
