"""The tool checks: exact results for each check and option, and the honest-results rules."""

from __future__ import annotations

from typing import Any

import pytest

from scorekit import checks
from scorekit.checks.check_scorer import NO_MESSAGES
from scorekit.checks.tool_checks import NO_CALLS, follows_order, invocation_failed
from scorekit.errors import ConfigError, ScorerRunError


def call(name: str, state: str = "result", call_id: str | None = None, **extra: Any) -> dict:
    invocation: dict[str, Any] = {"toolName": name, "state": state, "args": {}, **extra}
    if call_id is not None:
        invocation["toolCallId"] = call_id
    if state == "result" and "result" not in extra:
        invocation["result"] = {"ok": True}
    return invocation


def message(*invocations: dict, text: str = "ok") -> dict[str, Any]:
    return {"role": "assistant", "content": text, "toolInvocations": list(invocations)}


def in_parts(*invocations: dict) -> dict[str, Any]:
    parts = [{"type": "text", "text": "ok"}] + [
        {"type": "tool-invocation", "toolInvocation": inv} for inv in invocations
    ]
    return {"role": "assistant", "content": {"format": 2, "parts": parts}}


def openai(*names: str) -> dict[str, Any]:
    calls = [
        {"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        for name in names
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


RUN = [
    message(call("get_weather", call_id="c1"), call("search", call_id="c2")),
    message(call("get_weather", call_id="c3"), call("get_weather", "partial-call", "c4")),
]
PLAIN = [{"role": "assistant", "content": "I can answer directly."}]


def run(scorer: Any, output: Any) -> Any:
    return scorer.run_sync(input="q", output=output)


# ---- called_tool / did_not_call ----


@pytest.mark.parametrize(
    ("name", "times", "count", "score"),
    [
        ("search", 1, 1, 1.0),
        ("delete_user", 1, 0, 0.0),
        ("get_weather", 2, 2, 1.0),
        ("get_weather", 3, 2, 0.0),  # the partial call is no call
        ("Search", 1, 0, 0.0),  # names are case-sensitive
    ],
)
def test_called_tool(name: str, times: int, count: int, score: float) -> None:
    result = run(checks.called_tool(name, times=times), RUN)
    assert result.status == "ok"
    assert result.score == score
    assert result.preprocess_step_result == {
        "tool_name": name,
        "expected_times": times,
        "actual_count": count,
        "passed": score == 1.0,
    }
    assert result.reason is None
    assert result.scorer_id == "check-called-tool"


def test_called_tool_without_calls_scores_zero() -> None:
    assert run(checks.called_tool("search"), PLAIN).score == 0.0


@pytest.mark.parametrize(
    ("name", "output", "count"),
    [
        ("delete_user", RUN, 0),
        ("search", RUN, 1),
        ("draft", [message(call("draft", "partial-call"))], 0),
        ("save", [in_parts(call("save", call_id="p1"))], 1),
        ("save", [openai("save")], 1),
        ("save", PLAIN, 0),
    ],
)
def test_did_not_call(name: str, output: list, count: int) -> None:
    result = run(checks.did_not_call(name), output)
    assert result.score == (1.0 if count == 0 else 0.0)
    assert result.preprocess_step_result == {"tool_name": name, "count": count, "passed": not count}
    assert result.scorer_id == "check-did-not-call"


# ---- tool_order ----


@pytest.mark.parametrize(
    ("order", "score"),
    [
        (["get_weather", "get_weather"], 1.0),
        (["get_weather", "search"], 1.0),
        (["search", "get_weather"], 1.0),
        (["search", "get_weather", "search"], 0.0),
        (["get_weather", "get_weather", "get_weather"], 0.0),  # the partial call does not count
        (["search", "search"], 0.0),
    ],
)
def test_tool_order(order: list[str], score: float) -> None:
    result = run(checks.tool_order(order), RUN)
    assert result.score == score
    assert result.preprocess_step_result == {
        "actual_tools": ["get_weather", "search", "get_weather"],
        "expected_order": order,
        "passed": score == 1.0,
    }
    assert result.scorer_id == "check-tool-order"


def test_tool_order_reads_legacy_lists_parts_and_openai_calls() -> None:
    output = [
        message(call("fetch", call_id="1")),
        in_parts(call("save", "output-error", "2")),
        openai("log"),
    ]
    assert run(checks.tool_order(("fetch", "save", "log")), output).score == 1.0
    assert run(checks.tool_order(["save", "fetch"]), output).score == 0.0
    assert run(checks.tool_order(["fetch"]), PLAIN).score == 0.0


def test_follows_order() -> None:
    assert follows_order(["a", "x", "b"], ["a", "b"])
    assert not follows_order(["b", "a"], ["a", "b"])
    assert follows_order(["a", "a"], ["a", "a"])
    assert not follows_order(["a"], ["a", "a"])


# ---- max_tool_calls / used_no_tools ----


@pytest.mark.parametrize(
    ("limit", "output", "count", "score"),
    [
        (2, RUN, 3, 0.0),
        (3, RUN, 3, 1.0),
        (0, PLAIN, 0, 1.0),
        (0, [message(call("a", "partial-call", "1"))], 0, 1.0),
        (1.5, [message(call("a", call_id="1"), call("b", call_id="2"))], 2, 0.0),
        (1.5, [message(call("a", call_id="1"))], 1, 1.0),
        (4, [message(call("a", call_id=str(i))) for i in range(5)], 5, 0.0),
    ],
)
def test_max_tool_calls(limit: float, output: list, count: int, score: float) -> None:
    result = run(checks.max_tool_calls(limit), output)
    assert result.score == score
    assert result.preprocess_step_result == {"count": count, "max": limit, "passed": score == 1.0}
    assert result.scorer_id == "check-max-tool-calls"


@pytest.mark.parametrize(
    ("output", "count"),
    [
        (PLAIN, 0),
        ([message(call("search", "partial-call", "1"))], 0),
        ([message(call("search", "call", "1"))], 1),
        ([openai("a", "b")], 2),
        (RUN, 3),
    ],
)
def test_used_no_tools(output: list, count: int) -> None:
    result = run(checks.used_no_tools(), output)
    assert result.score == (1.0 if count == 0 else 0.0)
    assert result.preprocess_step_result == {"count": count, "passed": count == 0}
    assert result.scorer_id == "check-used-no-tools"


# ---- no_tool_errors ----


@pytest.mark.parametrize(
    ("output", "errors", "total"),
    [
        ([message(call("a", call_id="1"), call("b", call_id="2"))], 0, 2),
        ([message(call("a", "call", "1"))], 1, 1),  # invoked, never returned
        ([in_parts(call("a", "output-error", "1", errorText="boom"))], 1, 1),
        ([in_parts(call("save", call_id="p1", isError=True))], 1, 1),
        ([message(call("a", call_id="1", result={"error": "not found"}))], 1, 1),
        ([message(call("a", call_id="1", result={"error": {}}))], 1, 1),  # {} is truthy in JS
        ([message(call("a", call_id="1", result={"error": ""}))], 0, 1),
        ([message(call("a", call_id="1", result={"error": 0}))], 0, 1),
        ([message(call("a", call_id="1", result="error"))], 0, 1),
        ([message(call("a", call_id="1", isError="true"))], 0, 1),  # only the boolean true
        # partial calls are not calls (row 33)
        ([message(call("a", call_id="1"), call("b", "partial-call", "2"))], 0, 1),
        (RUN, 0, 3),
    ],
)
def test_no_tool_errors(output: list, errors: int, total: int) -> None:
    result = run(checks.no_tool_errors(), output)
    assert result.status == "ok"
    assert result.score == (1.0 if errors == 0 else 0.0)
    assert result.preprocess_step_result == {
        "error_count": errors,
        "total_calls": total,
        "passed": errors == 0,
    }
    assert result.scorer_id == "check-no-tool-errors"


def test_openai_calls_fail_without_an_answering_tool_message() -> None:
    answered = [
        openai("a", "b"),
        {"role": "tool", "tool_call_id": "call_a", "content": "{}"},
        {"role": "tool", "tool_call_id": "call_b", "content": "{}"},
        {"role": "assistant", "content": "Done."},
    ]
    result = run(checks.no_tool_errors(), answered)
    assert result.preprocess_step_result == {"error_count": 0, "total_calls": 2, "passed": True}
    result = run(checks.no_tool_errors(), answered[:2])
    assert result.preprocess_step_result == {"error_count": 1, "total_calls": 2, "passed": False}
    assert result.score == 0.0


def test_no_tool_errors_is_skipped_without_calls() -> None:
    # row 33: Mastra scores 1 ("no errors") when nothing was called, partial calls counted
    for output in (PLAIN, [message(call("a", "partial-call", "1"))]):
        result = run(checks.no_tool_errors(), output)
        assert (result.status, result.score, result.reason) == ("skipped", None, NO_CALLS)


def test_invocation_failed() -> None:
    assert invocation_failed({"state": "call"})
    assert invocation_failed({"state": "result", "result": {"error": [0]}})
    assert not invocation_failed({"state": "result", "result": {"error": None}})
    assert not invocation_failed({"state": "result", "result": {"error": float("nan")}})


# ---- honest results and validation ----


@pytest.mark.parametrize(
    "scorer",
    [
        checks.called_tool("search"),
        checks.did_not_call("search"),
        checks.tool_order(["search"]),
        checks.max_tool_calls(1),
        checks.used_no_tools(),
        checks.no_tool_errors(),
    ],
)
def test_tool_checks_skip_an_empty_output(scorer: Any) -> None:
    # row 30: Mastra counts zero calls in an empty output (used_no_tools → 1)
    result = run(scorer, [])
    assert (result.status, result.score, result.reason) == ("skipped", None, NO_MESSAGES)
    with pytest.raises(ScorerRunError):
        run(scorer, "It is sunny.")


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: checks.called_tool(""), "tool_name"),
        (lambda: checks.called_tool(None), "tool_name"),
        (lambda: checks.called_tool("a", times=0), "times"),
        (lambda: checks.called_tool("a", times=-1), "times"),
        (lambda: checks.called_tool("a", times=1.5), "times"),
        (lambda: checks.called_tool("a", times=True), "times"),
        (lambda: checks.did_not_call(""), "tool_name"),
        (lambda: checks.tool_order([]), "expected_order"),
        (lambda: checks.tool_order("search"), "expected_order"),
        (lambda: checks.tool_order(["a", ""]), "expected_order"),
        (lambda: checks.tool_order(["a", 3]), "expected_order"),
        (lambda: checks.max_tool_calls(-1), "max_calls"),
        (lambda: checks.max_tool_calls(float("inf")), "max_calls"),
        (lambda: checks.max_tool_calls(float("nan")), "max_calls"),
        (lambda: checks.max_tool_calls("2"), "max_calls"),
        (lambda: checks.max_tool_calls(False), "max_calls"),
    ],
)
def test_options_that_decide_the_result_alone_are_config_errors(make: Any, field: str) -> None:
    # row 31
    with pytest.raises(ConfigError) as info:
        make()
    assert info.value.field == field
