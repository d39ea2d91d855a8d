"""Trajectory (code, unified): the conformance corpus and our own rules."""

from __future__ import annotations

import math
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.scorers.trajectory import NOTHING_TO_MEASURE, create_trajectory_scorer_code
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, snake, to_snake

CASES = cases_for("trajectory", corpus=CATALOG)


def case_options(case: dict[str, Any]) -> dict[str, Any]:
    """Option keys snake_cased at every level; the expected steps inside are data, as given."""
    opts = options(case)
    for key in ("defaults", "weights"):
        if key in opts:
            opts[key] = {snake(k): v for k, v in opts[key].items()}
    return opts


def mapped(step: dict[str, Any]) -> dict[str, Any]:
    """Mastra's preprocess step result with scorekit's keys: the sub-results snake_cased
    through and through; ``config`` only at its top level (its steps are data)."""
    return {
        snake(k): {snake(a): b for a, b in v.items()} if k == "config" else to_snake(v)
        for k, v in step.items()
    }


def all_weights_zero(case: dict[str, Any]) -> bool:
    """row 64: the case gives every weight as 0 (or less)."""
    weights = case.get("options", {}).get("weights")
    return bool(weights) and len(weights) == 4 and all(w <= 0 for w in weights.values())


BUDGETS = ("maxSteps", "maxTotalTokens", "maxTotalDurationMs", "maxRetriesPerTool")
LISTS = ("steps", "blacklistedTools", "blacklistedSequences")
KNOWN_KEYS = {*BUDGETS, *LISTS, "ordering", "allowRepeatedSteps", "noRedundantCalls"}


def malformed_defaults(case: dict[str, Any]) -> bool:
    """row 66, as it reads: a ``defaults`` budget that is negative, NaN, infinite or not a
    number, an unknown ordering, an unknown key, or a tool list that is not a list."""
    defaults = case.get("options", {}).get("defaults")
    if not isinstance(defaults, dict):
        return False
    for raw, value in defaults.items():
        key = raw if raw in KNOWN_KEYS else next((k for k in KNOWN_KEYS if snake(k) == raw), None)
        if key is None:
            return True
        if key in BUDGETS and value is not None:
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or value < 0:
                return True
        if key == "ordering" and value not in ("strict", "relaxed", "unordered"):
            return True
        if key in LISTS and not isinstance(value, list):
            return True
    return False


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    if all_weights_zero(case):
        # Mastra scores 1 whatever the trajectory; nothing could ever be weighed
        assert expected["score"] == 1
        with pytest.raises(ConfigError) as info:
            create_trajectory_scorer_code(**case_options(case))
        assert info.value.field == "weights"
        return
    if malformed_defaults(case):
        # row 66: refused at construction, naming the key (Mastra throws on each run, or
        # ignores an unknown key)
        with pytest.raises(ConfigError) as refused:
            create_trajectory_scorer_code(**case_options(case))
        assert refused.value.field is not None and refused.value.field.startswith("defaults")
        return
    scorer = create_trajectory_scorer_code(**case_options(case))
    if "error" in expected:
        with pytest.raises(ScorerRunError) as error:
            scorer.run_sync(**catalog_run_args(case))
        assert error.value.failed_step == expected["failedStep"]
        return
    result = scorer.run_sync(**catalog_run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result == mapped(expected["preprocessStepResult"])
    assert result.analyze_step_result is None


def tool(name: str, **fields: Any) -> dict[str, Any]:
    return {"stepType": "tool_call", "name": name, **fields}


def test_all_weights_zero_is_refused() -> None:
    # row 64
    zero = {"accuracy": 0, "efficiency": 0, "tool_failures": 0, "blacklist": -1}
    with pytest.raises(ConfigError, match="every weight is 0"):
        create_trajectory_scorer_code(weights=zero)
    for bad in ({"speed": 1}, {"accuracy": "1"}, {"accuracy": float("nan")}, [0.4]):
        with pytest.raises(ConfigError) as info:
            create_trajectory_scorer_code(weights=bad)  # type: ignore[arg-type]
        assert info.value.field is not None and info.value.field.startswith("weights")


def test_active_parts_without_weight_are_skipped() -> None:
    # row 64: Mastra gives 1 when the active parts' weights sum to 0
    scorer = create_trajectory_scorer_code(
        defaults={"steps": [{"name": "a"}]}, weights={"accuracy": 0}
    )
    result = scorer.run_sync(output={"steps": [tool("b")]})
    assert result.status == "skipped"
    assert result.reason == "Nothing weighed: the parts measured (accuracy) all have weight 0."
    assert result.preprocess_step_result["accuracy"]["score"] == 0.0


def test_nothing_configured_without_tool_calls_is_skipped() -> None:
    # row 65: Mastra scores 1 (no part is active, no retries were found)
    scorer = create_trajectory_scorer_code()
    generation = {"stepType": "model_generation", "name": "g"}
    result = scorer.run_sync(output={"steps": [generation]})
    assert result.status == "skipped"
    assert result.reason == NOTHING_TO_MEASURE
    assert scorer.run_sync(output={"steps": []}).status == "skipped"
    # with tool calls, "no retries" was measured: Mastra's 1 is kept
    checked = scorer.run_sync(output={"steps": [tool("a", success=False), tool("b")]})
    assert (checked.status, checked.score, checked.reason) == ("ok", 1.0, "Score: 1")


def test_bad_defaults_are_refused_at_construction() -> None:
    # row 66: Mastra throws only when a run is scored
    for defaults, field in (
        ({"max_steps": -1}, "defaults.max_steps"),
        ({"maxTotalTokens": float("inf")}, "defaults.max_total_tokens"),
        ({"ordering": "STRICT"}, "defaults.ordering"),
        ({"blacklisted_tools": "rm"}, "defaults.blacklisted_tools"),
        ({"max_step": 3}, "defaults.max_step"),
        ({"max_steps": 1, "maxSteps": 2}, "defaults.max_steps"),
        (
            {"steps": [{"name": "a", "children": {"maxStep": 1}}]},
            "defaults.steps[].children.maxStep",
        ),
    ):
        with pytest.raises(ConfigError) as info:
            create_trajectory_scorer_code(defaults=defaults)
        assert info.value.field == field


def test_run_expectation_errors_fail_the_run() -> None:
    scorer = create_trajectory_scorer_code(defaults={"max_steps": 3})
    with pytest.raises(ScorerRunError, match=r"expected_trajectory\.max_steps"):
        scorer.run_sync(output={"steps": [tool("a")]}, expected_trajectory={"maxSteps": "3"})
    # row 83: a misspelt key (maxStep) is an error naming it, not an expectation ignored
    with pytest.raises(ScorerRunError, match=r"unknown key 'maxStep'"):
        scorer.run_sync(output={"steps": [tool("a")]}, expected_trajectory={"maxStep": 1})
    # a whole trajectory as the expectation: its duration and raw output are not read
    whole = {"steps": [{"name": "a"}], "totalDurationMs": 12, "rawOutput": []}
    result = scorer.run_sync(output={"steps": [tool("a")]}, expected_trajectory=whole)
    assert result.status == "ok"
    assert "total_duration_ms" not in result.preprocess_step_result["config"]


def test_rounding_has_no_epsilon() -> None:
    # accuracy 0.5 and efficiency 0.75 weighed 0.7 / 0.3: 0.35 + 0.225 = 0.575 in binary, just
    # below the half: Math.round(x * 100) / 100 gives 0.57 (with the epsilon it would be 0.58)
    scorer = create_trajectory_scorer_code(
        defaults={
            "steps": [{"name": "a"}, {"name": "b"}],
            "max_steps": 4,
            "no_redundant_calls": False,
        },
        weights={"accuracy": 0.7, "efficiency": 0.3},
    )
    steps = [tool("a"), tool("x"), tool("y"), tool("z"), tool("w")]
    result = scorer.run_sync(output={"steps": steps})
    assert result.preprocess_step_result["accuracy"]["score"] == 0.5
    assert result.preprocess_step_result["efficiency"]["score"] == 0.75
    assert result.score == 0.57
    assert result.reason.startswith("Score: 0.57\n")


def test_nested_children_are_evaluated() -> None:
    defaults = {
        "steps": [
            {
                "stepType": "agent_run",
                "name": "agent",
                "children": {"steps": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},
            }
        ]
    }
    trajectory = {"steps": [{"stepType": "agent_run", "name": "agent", "children": [tool("a")]}]}
    result = create_trajectory_scorer_code(defaults=defaults).run_sync(output=trajectory)
    nested = result.preprocess_step_result["nested"]
    assert [(n["step_name"], n["score"]) for n in nested] == [("agent", 0.33)]
    assert result.score == 0.8  # 0.7 × 1 + 0.3 × 0.33
    assert result.reason.endswith("Nested scores: agent: 0.33.")


def test_messages_are_read_as_a_trajectory() -> None:
    output = [
        {
            "role": "assistant",
            "content": "",
            "toolInvocations": [
                {"toolCallId": "1", "toolName": "search", "args": {"q": "x"}, "state": "result"},
                {"toolCallId": "2", "toolName": "search", "args": {"q": "x"}, "state": "result"},
            ],
        }
    ]
    result = create_trajectory_scorer_code(defaults={"no_redundant_calls": True}).run_sync(
        output=output
    )
    assert result.score == 0.8
    assert result.reason == "Score: 0.8\nEfficiency (0.8): redundant calls: search."
