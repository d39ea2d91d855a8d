"""Trajectory Accuracy (code): the conformance corpus and our own rules."""

from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.scorers.trajectory_accuracy import (
    NO_EXPECTED_TRAJECTORY,
    SKIP_REASON,
    create_trajectory_accuracy_scorer_code,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, snake, to_snake

CASES = cases_for("trajectory-accuracy", corpus=CATALOG)
ORDERINGS = {"strict", "relaxed", "unordered"}


def case_options(case: dict[str, Any]) -> dict[str, Any]:
    """The factory options: nested option keys snake_cased; trajectories are data, as given."""
    opts = options(case)
    if "comparison_options" in opts:
        opts["comparison_options"] = {snake(k): v for k, v in opts["comparison_options"].items()}
    return opts


def mapped(step: dict[str, Any]) -> dict[str, Any]:
    """Mastra's preprocess step result with scorekit's keys: top-level keys and the comparison
    snake_cased; the trajectories (data) keep their camelCase."""
    return {snake(k): to_snake(v) if k == "comparison" else v for k, v in step.items()}


def unknown_ordering(case: dict[str, Any]) -> bool:
    """row 61: the case configures an ordering that is not one of the three."""
    ordering = (case.get("options", {}).get("comparisonOptions") or {}).get("ordering")
    return ordering is not None and ordering not in ORDERINGS


def unknown_comparison_key(case: dict[str, Any]) -> bool:
    """row 62: the case's comparisonOptions has a key Mastra 1.10.2 does not read."""
    given = case.get("options", {}).get("comparisonOptions") or {}
    return any(key not in ("ordering", "allowRepeatedSteps") for key in given)


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    if unknown_ordering(case) or unknown_comparison_key(case):
        with pytest.raises(ConfigError) as info:
            create_trajectory_accuracy_scorer_code(**case_options(case))
        assert info.value.field is not None
        assert info.value.field.startswith("comparison_options.")
        return
    scorer = create_trajectory_accuracy_scorer_code(**case_options(case))
    if "error" in expected:
        with pytest.raises(ScorerRunError) as error:
            scorer.run_sync(**catalog_run_args(case))
        assert error.value.failed_step == expected["failedStep"]
        return
    result = scorer.run_sync(**catalog_run_args(case))
    assert result.preprocess_step_result == mapped(expected["preprocessStepResult"])
    assert result.analyze_step_result is None
    assert result.reason is None if result.status == "ok" else result.reason == SKIP_REASON
    if expected["preprocessStepResult"].get("error") == NO_EXPECTED_TRAJECTORY:
        # row 63: Mastra scores 0 when nothing resolves to compare against
        assert expected["score"] == 0
        assert result.status == "skipped"
        assert result.score is None
        return
    assert result.status == "ok"
    assert result.score == expected["score"]


def steps(*names: str) -> dict[str, Any]:
    return {"steps": [{"stepType": "tool_call", "name": n} for n in names]}


SEARCH_SUMMARIZE = [
    {"stepType": "tool_call", "name": "search"},
    {"stepType": "tool_call", "name": "summarize"},
]


@pytest.mark.parametrize(
    ("ordering", "actual", "score"),
    [
        ("relaxed", ["search", "summarize"], 1.0),
        ("relaxed", ["search", "validate", "summarize"], 1.0),
        ("relaxed", ["summarize", "search"], 0.5),
        ("strict", ["search", "summarize", "format"], 0.75),
        ("strict", ["search", "summarize", "a", "b", "c", "d"], 0.0),
        ("unordered", ["summarize", "search"], 1.0),
    ],
)
def test_spec_vectors(ordering: str, actual: list[str], score: float) -> None:
    scorer = create_trajectory_accuracy_scorer_code(
        expected_trajectory=SEARCH_SUMMARIZE, comparison_options={"ordering": ordering}
    )
    assert scorer.run_sync(output=steps(*actual)).score == score


def test_unknown_ordering_is_refused() -> None:
    # row 61: Mastra compares "STRICT" as relaxed
    with pytest.raises(ConfigError) as info:
        create_trajectory_accuracy_scorer_code(comparison_options={"ordering": "STRICT"})
    assert info.value.field == "comparison_options.ordering"
    scorer = create_trajectory_accuracy_scorer_code(expected_trajectory=SEARCH_SUMMARIZE)
    with pytest.raises(ScorerRunError) as error:
        scorer.run_sync(output=steps("search"), expected_trajectory={"ordering": "Strict"})
    assert "expected_trajectory.ordering" in str(error.value)


def test_legacy_option_names_are_refused() -> None:
    # row 62: Mastra 1.10.2 silently ignores strictOrder / compareStepData
    for key in ("strict_order", "compare_step_data", "allowRepeatedSteps"):
        with pytest.raises(ConfigError) as info:
            create_trajectory_accuracy_scorer_code(comparison_options={key: True})
        assert info.value.field == f"comparison_options.{key}"
    with pytest.raises(ConfigError, match="true or false"):
        create_trajectory_accuracy_scorer_code(comparison_options={"allow_repeated_steps": "no"})


def test_nothing_to_compare_is_skipped() -> None:
    # row 63: Mastra returns score 0 with an "error" in its step result
    scorer = create_trajectory_accuracy_scorer_code()
    result = scorer.run_sync(output=steps("search"))
    assert result.status == "skipped"
    assert result.score is None
    assert result.reason == SKIP_REASON
    assert result.preprocess_step_result == {
        "actual_trajectory": steps("search"),
        "actual_step_names": ["search"],
        "expected_step_names": [],
        "error": NO_EXPECTED_TRAJECTORY,
    }
    # a run expectation without steps resolves nothing either
    assert scorer.run_sync(
        output=steps("a"), expected_trajectory={"ordering": "strict"}
    ).status == ("skipped")


def test_expect_no_steps_is_a_measurement() -> None:
    scorer = create_trajectory_accuracy_scorer_code(expected_trajectory=[])
    assert scorer.run_sync(output=steps()).score == 1.0
    assert scorer.run_sync(output=steps("x")).score == 0.0


def test_run_expectation_supplies_steps_and_options() -> None:
    scorer = create_trajectory_accuracy_scorer_code()
    run = {"steps": SEARCH_SUMMARIZE, "ordering": "strict"}
    assert scorer.run_sync(
        output=steps("search", "summarize", "x"), expected_trajectory=run
    ).score == (0.75)
    # a list of steps is accepted as the run's expected trajectory too
    listed = scorer.run_sync(output=steps("search"), expected_trajectory=SEARCH_SUMMARIZE)
    assert listed.score == 0.5
    # snake_case expectation keys are accepted as well
    snake_run = {"steps": [{"name": "a"}], "allow_repeated_steps": False}
    assert scorer.run_sync(output=steps("a", "a"), expected_trajectory=snake_run).score == 0.9


def test_trajectory_option_is_converted() -> None:
    trajectory = {
        "steps": [
            {"stepType": "tool_call", "name": "search", "durationMs": 5, "metadata": {"a": 1}},
            {"stepType": "agent_run", "name": "sub", "children": [{"name": "inner"}]},
        ]
    }
    scorer = create_trajectory_accuracy_scorer_code(expected_trajectory=trajectory)
    result = scorer.run_sync(output={"steps": trajectory["steps"]})
    assert result.score == 1.0
    assert result.preprocess_step_result["expected_trajectory"] == {
        "steps": [
            {"stepType": "tool_call", "name": "search"},
            {"stepType": "agent_run", "name": "sub", "children": {"steps": [{"name": "inner"}]}},
        ]
    }


def test_messages_are_read_as_a_trajectory() -> None:
    output = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "1", "function": {"name": "search", "arguments": "{}"}}],
        }
    ]
    scorer = create_trajectory_accuracy_scorer_code(expected_trajectory=SEARCH_SUMMARIZE)
    result = scorer.run_sync(output=output)
    assert result.score == 0.5
    assert result.preprocess_step_result["actual_step_names"] == ["search"]


@pytest.mark.parametrize(
    "expected_trajectory",
    [{"stepz": []}, "search", [{"stepType": "tool_call"}], [{"name": 3}]],
)
def test_bad_expected_trajectory_is_refused(expected_trajectory: Any) -> None:
    with pytest.raises(ConfigError) as info:
        create_trajectory_accuracy_scorer_code(expected_trajectory=expected_trajectory)
    assert info.value.field is not None
    assert info.value.field.startswith("expected_trajectory")


def test_output_without_steps_is_an_error() -> None:
    scorer = create_trajectory_accuracy_scorer_code(expected_trajectory=SEARCH_SUMMARIZE)
    with pytest.raises(ScorerRunError, match="no 'steps' list"):
        scorer.run_sync(output={"rawOutput": []})


def test_comparison_is_fast_on_long_trajectories() -> None:
    n = 4000
    expected = [{"stepType": "tool_call", "name": "s", "toolArgs": {"i": i}} for i in range(n)]
    actual = {"steps": [{"stepType": "tool_call", "name": "s", "toolArgs": {"i": -1}}] * n}
    for ordering in ("relaxed", "unordered", "strict"):
        scorer = create_trajectory_accuracy_scorer_code(
            expected_trajectory=expected, comparison_options={"ordering": ordering}
        )
        assert scorer.run_sync(output=actual).score == 0.0
