from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.scorers.tool_call_accuracy import (
    check_tool_order,
    create_tool_call_accuracy_scorer_code,
)
from tests.conformance import cases_for, options, run_args, to_snake

CASES = cases_for("tool-call-accuracy")


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    if "error" in expected:
        with pytest.raises((ConfigError, ScorerRunError)):
            create_tool_call_accuracy_scorer_code(**options(case)).run_sync(**run_args(case))
        return
    result = create_tool_call_accuracy_scorer_code(**options(case)).run_sync(**run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.preprocess_step_result == to_snake(expected["preprocessStepResult"])
    assert result.analyze_step_result is None


def mastra(*names: str, state: str = "result") -> list[dict[str, Any]]:
    invocations = [
        {"toolCallId": f"c{i}", "toolName": n, "args": {}, "state": state}
        for i, n in enumerate(names)
    ]
    return [{"role": "assistant", "content": "ok", "toolInvocations": invocations}]


def openai(*names: str) -> list[dict[str, Any]]:
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": "{}"}}
        for i, n in enumerate(names)
    ]
    return [{"role": "assistant", "content": None, "tool_calls": calls}]


@pytest.mark.parametrize("shape", [mastra, openai])
@pytest.mark.parametrize(
    ("kwargs", "calls", "score"),
    [
        ({"expected_tool": "weather"}, ["weather"], 1.0),
        ({"expected_tool": "weather"}, ["calculator"], 0.0),
        ({"expected_tool": "weather"}, [], 0.0),
        ({"expected_tool": "weather"}, ["search", "weather", "calendar"], 1.0),
        ({"expected_tool": "weather", "strict_mode": True}, ["search", "weather", "calendar"], 0.0),
        ({"expected_tool": "weather", "strict_mode": True}, ["weather", "weather"], 0.0),
        (
            {"expected_tool_order": ["search", "weather"], "strict_mode": True},
            ["search", "weather"],
            1.0,
        ),
        (
            {"expected_tool_order": ["search", "weather"], "strict_mode": True},
            ["weather", "search"],
            0.0,
        ),
        ({"expected_tool_order": ["search", "weather"]}, ["search", "calendar", "weather"], 1.0),
        ({"expected_tool_order": ["search", "weather"]}, ["weather", "calendar", "search"], 0.0),
        ({"expected_tool_order": ["search", "weather", "calendar"]}, ["search", "weather"], 0.0),
        ({"expected_tool_order": ["s", "w"]}, ["w", "s", "w"], 0.0),  # first index counts
    ],
)
def test_spec_vectors(shape: Any, kwargs: dict, calls: list[str], score: float) -> None:
    scorer = create_tool_call_accuracy_scorer_code(**kwargs)
    assert scorer.run_sync(input="q", output=shape(*calls)).score == score


@pytest.mark.parametrize(
    ("state", "score"), [("call", 1.0), ("output-error", 1.0), ("partial-call", 0.0)]
)
def test_states(state: str, score: float) -> None:
    scorer = create_tool_call_accuracy_scorer_code(expected_tool="weather")
    assert scorer.run_sync(input="q", output=mastra("weather", state=state)).score == score


def test_mastra_db_message_parts_and_legacy_are_merged() -> None:
    message = {
        "id": "m1",
        "role": "assistant",
        "createdAt": "2026-01-01T00:00:00Z",
        "content": {
            "format": 2,
            "parts": [
                {"type": "text", "text": "checking"},
                {
                    "type": "tool-invocation",
                    "toolInvocation": {
                        "toolCallId": "b",
                        "toolName": "weather",
                        "state": "output-error",
                    },
                },
            ],
            "toolInvocations": [
                {"toolCallId": "a", "toolName": "search", "state": "result", "result": {}},
                {"toolCallId": "b", "toolName": "weather", "state": "call"},
                {"toolCallId": "c", "toolName": "calendar", "state": "result", "result": {}},
            ],
        },
    }
    scorer = create_tool_call_accuracy_scorer_code(
        expected_tool_order=["search", "weather", "calendar"], strict_mode=True
    )
    result = scorer.run_sync(input="q", output=[message])
    assert result.preprocess_step_result["actual_tools"] == ["search", "weather", "calendar"]
    assert result.score == 1.0


def test_ids_fall_back_to_positions() -> None:
    output = [{"role": "assistant", "toolInvocations": [{"toolName": "x", "state": "call"}]}]
    result = create_tool_call_accuracy_scorer_code(expected_tool="x").run_sync(
        input="q", output=output
    )
    assert result.preprocess_step_result["tool_call_infos"] == [
        {"tool_name": "x", "tool_call_id": "0-0", "message_index": 0, "invocation_index": 0}
    ]


def test_order_check() -> None:
    assert check_tool_order(["a"], [], strict=False)
    assert not check_tool_order(["a"], [], strict=True)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({}, "expected_tool"),
        ({"expected_tool": ""}, "expected_tool"),
        ({"expected_tool": 3}, "expected_tool"),
        ({"expected_tool": "x", "strict_mode": "yes"}, "strict_mode"),
        ({"expected_tool_order": "search"}, "expected_tool_order"),
        ({"expected_tool_order": ["a", 1]}, "expected_tool_order"),
    ],
)
def test_bad_options_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_tool_call_accuracy_scorer_code(**kwargs)
    assert info.value.field == field


def test_missing_output_is_refused_before_any_step() -> None:
    scorer = create_tool_call_accuracy_scorer_code(expected_tool="x")
    with pytest.raises(ConfigError) as info:
        scorer.run_sync(input="q", output=None)
    assert info.value.field == "output"


@pytest.mark.parametrize(("input", "output"), [("q", []), ([], mastra("x")), (None, mastra("x"))])
def test_empty_input_or_output_is_an_error(input: Any, output: Any) -> None:
    scorer = create_tool_call_accuracy_scorer_code(expected_tool="x")
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input=input, output=output)
    assert info.value.result is not None
    assert info.value.result.status == "error"


@pytest.mark.parametrize("text", ["東京", "Привет", "مرحبا", "   "])
def test_text_only_output_scores_zero(text: str) -> None:
    scorer = create_tool_call_accuracy_scorer_code(expected_tool="x")
    assert scorer.run_sync(input=text, output=text).score == 0.0


def test_ai_sdk_5_ui_tool_parts_are_read() -> None:
    # AI SDK 5 UI messages name the tool in the part's type ("tool-search") or, for dynamic
    # tools, in toolName; their states map to Mastra's (output-available is a result)
    from scorekit.inputs.tool_calls import extract_tool_calls, message_tool_invocations

    message = {
        "role": "assistant",
        "parts": [
            {"type": "text", "text": "Looking it up."},
            {
                "type": "tool-search",
                "toolCallId": "1",
                "state": "output-available",
                "input": {"q": "x"},
                "output": {"hits": 3},
            },
            {
                "type": "dynamic-tool",
                "toolName": "weather",
                "toolCallId": "2",
                "state": "output-error",
                "input": {},
                "errorText": "timeout",
            },
            {"type": "tool-draft", "toolCallId": "3", "state": "input-streaming"},
        ],
    }
    invocations = message_tool_invocations(message)
    assert [(i["toolName"], i["state"]) for i in invocations] == [
        ("search", "result"),
        ("weather", "output-error"),
        ("draft", "partial-call"),
    ]
    assert invocations[0]["result"] == {"hits": 3}
    assert [c.tool_name for c in extract_tool_calls([message])] == ["search", "weather"]
