"""The shared trajectory helpers (scorekit.inputs.trajectories,
scorekit.scorers.trajectory_criteria)."""

from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError
from scorekit.inputs.trajectories import (
    compare_trajectories,
    expected_step_matches,
    extract_trajectory,
    js_stringify,
    read_expectation,
    trajectory_of,
)
from scorekit.scorers.trajectory_criteria import (
    analyze_tool_failures,
    check_blacklist,
    check_efficiency,
)


def tool(name: str, **fields: Any) -> dict[str, Any]:
    return {"stepType": "tool_call", "name": name, **fields}


def test_js_stringify_writes_what_javascript_writes() -> None:
    assert js_stringify({"b": 1.0, "a": [True, None, 0.5]}) == '{"b":1,"a":[true,null,0.5]}'
    assert js_stringify({"x": 1, "10": 2, "2": 3}) == '{"2":3,"10":2,"x":1}'
    assert js_stringify(float("nan")) == "null"
    assert js_stringify("日本") == '"日本"'
    assert js_stringify(object()) is None


def test_step_match_compares_the_fields_the_expected_step_sets() -> None:
    assert expected_step_matches(tool("s", toolArgs={"a": 1}), {"name": "s"})
    assert expected_step_matches(tool("s", toolArgs={"a": 1}), tool("s", toolArgs={"a": 1.0}))
    assert not expected_step_matches(
        tool("s", toolArgs={"b": 2, "a": 1}), tool("s", toolArgs={"a": 1, "b": 2})
    )
    assert not expected_step_matches(tool("s"), tool("s", success=True))
    assert not expected_step_matches(tool("s"), {"stepType": "model_generation", "name": "s"})
    # a field outside the type's comparable fields is not compared
    assert expected_step_matches(tool("s", durationMs=1), tool("s", durationMs=2))


def test_relaxed_out_of_order_and_missing() -> None:
    result = compare_trajectories([tool("b"), tool("a")], [tool("a"), tool("b")])
    assert result == {
        "score": 0.5,
        "matched_steps": 1,
        "total_expected_steps": 2,
        "total_actual_steps": 2,
        "missing_steps": ["b"],
        "extra_steps": [],
        "out_of_order_steps": ["b"],
        "repeated_steps": [],
    }


def test_unordered_uses_each_actual_step_once() -> None:
    expected = [{"name": "s"}, tool("s", toolArgs={"q": 1}), {"name": "s"}]
    actual = [tool("s", toolArgs={"q": 1}), tool("s", toolArgs={"q": 2})]
    result = compare_trajectories(actual, expected, ordering="unordered")
    # the first name-only expectation takes position 0, so the one with args finds none left
    assert (result["matched_steps"], result["missing_steps"]) == (2, ["s"])


def test_strict_penalises_extra_steps_and_repeats() -> None:
    actual = [tool("a"), tool("a"), tool("b")]
    assert compare_trajectories(actual, [tool("a"), tool("a")], ordering="strict")["score"] == 0.75
    repeated = compare_trajectories(
        actual, [tool("a"), tool("a"), tool("b")], ordering="strict", allow_repeated_steps=False
    )
    assert repeated["score"] == 0.9


def test_efficiency_budgets_and_errors() -> None:
    steps = {
        "steps": [
            {
                "stepType": "model_generation",
                "name": "g",
                "promptTokens": 80,
                "completionTokens": 70,
            }
        ]
    }
    assert check_efficiency(steps, max_total_tokens=100)["score"] == 0.75
    assert check_efficiency({"steps": [tool("a"), tool("b")]}, max_steps=0)["score"] == 0.5
    with pytest.raises(ValueError, match="token budget"):
        check_efficiency({"steps": [tool("a")]}, max_total_tokens=100)
    with pytest.raises(ValueError, match="duration budget"):
        check_efficiency({"steps": []}, max_total_duration_ms=5)
    with pytest.raises(ValueError, match="Invalid maxSteps"):
        check_efficiency({"steps": []}, max_steps=-1)


def test_blacklist_sequences_are_contiguous() -> None:
    names = {"steps": [tool(n) for n in ("a", "b", "a", "b", "c")]}
    result = check_blacklist(
        names, blacklisted_tools=["c", "z"], blacklisted_sequences=[["a", "b", "c"], ["b", "b"], []]
    )
    assert result == {
        "score": 0.0,
        "violated_tools": ["c"],
        "violated_sequences": [["a", "b", "c"]],
    }


def test_tool_failures_patterns() -> None:
    steps = {"steps": [tool("s", success=False)] * 4 + [tool("web")]}
    result = analyze_tool_failures(steps)
    assert result == {
        "score": 0.8,
        "patterns": [
            {
                "tool_name": "s",
                "retry_count": 3,
                "fell_back_to_alternative": True,
                "alternative_tool": "web",
                "eventually_succeeded": False,
            }
        ],
        "total_retries": 3,
        "excessive_retry_tools": ["s"],
    }


def test_extract_trajectory_from_messages() -> None:
    message = {
        "role": "assistant",
        "content": {
            "format": 2,
            "parts": [
                {
                    "type": "tool-invocation",
                    "toolInvocation": {
                        "toolCallId": "p",
                        "toolName": "t",
                        "args": {"a": 1},
                        "state": "result",
                        "result": 5,
                        "isError": True,
                    },
                }
            ],
            "toolInvocations": [{"toolCallId": "x", "toolName": "skip", "state": "partial-call"}],
        },
    }
    assert extract_trajectory([message])["steps"] == [
        {
            "stepType": "tool_call",
            "name": "t",
            "toolArgs": {"a": 1},
            "toolResult": {"value": 5},
            "success": False,
        }
    ]


def test_trajectory_of_checks_the_shape() -> None:
    assert trajectory_of({"steps": [tool("a")]}) == {"steps": [tool("a")]}
    assert trajectory_of("plain text")["steps"] == []
    for bad in (
        {"totalDurationMs": 5},
        {"steps": [{"stepType": "tool_call"}]},
        {"steps": [{"name": "a", "children": "b"}]},
    ):
        with pytest.raises(ConfigError):
            trajectory_of(bad)


def test_read_expectation_spellings() -> None:
    assert read_expectation(
        {"maxSteps": 3, "no_redundant_calls": False}, field="d", strict=True
    ) == {"max_steps": 3, "no_redundant_calls": False}
    assert read_expectation({"extra": 1}, field="d", strict=False) == {"extra": 1}
    with pytest.raises(ConfigError) as info:
        read_expectation({"extra": 1}, field="d", strict=True)
    assert info.value.field == "d.extra"


def test_helpers_handle_long_trajectories() -> None:
    # no timing here (benchmarks/bench_code_scorers.py measures it); the sizes would make a
    # quadratic helper take minutes
    n = 20000
    actual = [tool(f"t{i % 50}", toolArgs={"i": i}) for i in range(n)]
    expected = [tool(f"t{i % 50}", toolArgs={"i": i + 1}) for i in range(n)]
    for ordering in ("relaxed", "unordered", "strict"):
        compare_trajectories(actual, expected, ordering=ordering)  # type: ignore[arg-type]
    check_blacklist({"steps": actual}, blacklisted_sequences=[["t0"] * 100])
    check_efficiency({"steps": actual}, max_steps=10)
    analyze_tool_failures({"steps": actual})
