"""The quick checks on the tools the agent called.

Source: Mastra evals 1.10.2 ``checks`` (mastra-scorers.md §3.10, §1.3). The calls are those of
:func:`scorekit.inputs.tool_calls.extract_tool_calls` over every output message, in order: merged
``toolInvocations`` / ``tool-invocation`` parts with a ``toolName`` and the state ``result``,
``call`` or ``output-error`` (a ``partial-call`` is still being streamed and is no call), plus
OpenAI-style ``tool_calls`` (divergences.md row 17). Tool names compare exactly
(case-sensitive). Every score is 0 or 1.

Honest results (divergences): an output with no messages is ``skipped`` (row 30); options
that make a check pass or fail whatever the agent did (``times=0``, an empty order, a negative
or infinite limit, an empty tool name) are a ``ConfigError`` (row 31); ``no_tool_errors``
counts the same calls as the other checks (Mastra also counts ``partial-call`` invocations in
``totalCalls``) and is ``skipped`` when there is no call to inspect (row 33).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.checks.check_scorer import check_scorer, passed_score
from scorekit.errors import ConfigError
from scorekit.inputs.tool_calls import (
    called_invocations,
    extract_tool_calls,
    message_tool_invocations,
)
from scorekit.pipeline import Scorer, not_scorable
from scorekit.steps import NotScorable

__all__ = [
    "CALLED_TOOL_ID",
    "DID_NOT_CALL_ID",
    "MAX_TOOL_CALLS_ID",
    "NO_CALLS",
    "NO_TOOL_ERRORS_ID",
    "TOOL_ORDER_ID",
    "USED_NO_TOOLS_ID",
    "called_tool",
    "did_not_call",
    "follows_order",
    "invocation_failed",
    "max_tool_calls",
    "no_tool_errors",
    "tool_order",
    "used_no_tools",
]

CALLED_TOOL_ID = "check-called-tool"
"""Mastra's id of the ``calledTool`` check."""
DID_NOT_CALL_ID = "check-did-not-call"
"""Mastra's id of the ``didNotCall`` check."""
TOOL_ORDER_ID = "check-tool-order"
"""Mastra's id of the ``toolOrder`` check."""
MAX_TOOL_CALLS_ID = "check-max-tool-calls"
"""Mastra's id of the ``maxToolCalls`` check."""
USED_NO_TOOLS_ID = "check-used-no-tools"
"""Mastra's id of the ``usedNoTools`` check."""
NO_TOOL_ERRORS_ID = "check-no-tool-errors"
"""Mastra's id of the ``noToolErrors`` check."""

NO_CALLS = "the output has no tool calls, so there is no tool error to look for"
"""The reason ``no_tool_errors`` gives when it is skipped (row 33)."""


def _tool_name(value: Any, field: str = "tool_name") -> str:
    if not isinstance(value, str) or not value:
        what = "each name in expected_order" if field == "expected_order" else field
        raise ConfigError(f"{what} must be a non-empty string (a tool name)", field=field)
    return value


def _names(messages: list[Any]) -> list[str]:
    return [call.tool_name for call in extract_tool_calls(messages)]


def called_tool(tool_name: str, *, times: int = 1, scorer_id: str | None = None) -> Scorer:
    """Check that the agent called ``tool_name`` at least ``times`` times (``calledTool``).

    Args:
        tool_name: the tool's name (exact, case-sensitive).
        times: the least number of calls; an int >= 1.
        scorer_id: the scorer's id, by default Mastra's ``check--tool-name``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-called-tool``): 1 when the tool was called ``times`` times or
        more, else 0. ``preprocess_step_result`` is ``{"tool_name", "expected_times",
        "actual_count", "passed"}``.

    Raises:
        ConfigError: an empty ``tool_name``, or ``times`` not an int >= 1 (``times=0`` passes
            whatever the agent does; row 31).

    Example:
        >>> reply = [{"role": "assistant", "content": "", "toolInvocations": [
        ...     {"toolCallId": "1", "toolName": "search", "state": "result", "result": {}}]}]
        >>> called_tool("search").run_sync(output=reply).score
        1.0
    """
    name = _tool_name(tool_name)
    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise ConfigError(f"times must be an int >= 1, got {times!r}", field="times")

    def preprocess(messages: list[Any]) -> dict[str, Any]:
        count = _names(messages).count(name)
        return {
            "tool_name": name,
            "expected_times": times,
            "actual_count": count,
            "passed": count >= times,
        }

    return check_scorer(
        scorer_id or CALLED_TOOL_ID,
        description=f"Whether the agent called {name!r}"
        + (f" at least {times} times" if times > 1 else ""),
        preprocess=preprocess,
        score=passed_score("passed"),
    )


def did_not_call(tool_name: str, *, scorer_id: str | None = None) -> Scorer:
    """Check that the agent never called ``tool_name`` (``didNotCall``).

    Args:
        tool_name: the tool's name (exact, case-sensitive).
        scorer_id: the scorer's id, by default Mastra's ``check-did-not-call``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-did-not-call``): 1 when the tool was not called, else 0.
        ``preprocess_step_result`` is ``{"tool_name", "count", "passed"}``.

    Raises:
        ConfigError: an empty ``tool_name``.

    Example:
        >>> did_not_call("delete_user").run_sync(
        ...     output=[{"role": "assistant", "content": "Done."}]).score
        1.0
    """
    name = _tool_name(tool_name)

    def preprocess(messages: list[Any]) -> dict[str, Any]:
        count = _names(messages).count(name)
        return {"tool_name": name, "count": count, "passed": count == 0}

    return check_scorer(
        scorer_id or DID_NOT_CALL_ID,
        description=f"Whether the agent avoided calling {name!r}",
        preprocess=preprocess,
        score=passed_score("passed"),
    )


def follows_order(actual: Sequence[str], expected: Sequence[str]) -> bool:
    """Return whether ``expected`` is a subsequence of ``actual`` (greedy, Mastra ``toolOrder``).

    Other calls may come between and around the expected ones; a name listed twice must be
    called twice.

    Example:
        >>> follows_order(["search", "fetch", "search"], ["search", "search"])
        True
        >>> follows_order(["fetch", "search"], ["search", "fetch"])
        False
    """
    position = 0
    for name in actual:
        if position < len(expected) and name == expected[position]:
            position += 1
    return position == len(expected)


def tool_order(expected_order: Sequence[str], *, scorer_id: str | None = None) -> Scorer:
    """Check that the agent called the tools in this order (``toolOrder``).

    Args:
        expected_order: tool names; they must appear in the calls in this order, other calls
            allowed between them. Non-empty.
        scorer_id: the scorer's id, by default Mastra's ``check-follows-order``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-tool-order``): 1 when the order holds, else 0.
        ``preprocess_step_result`` is ``{"actual_tools", "expected_order", "passed"}``.

    Raises:
        ConfigError: ``expected_order`` is not a list of non-empty names, or is empty (it would
            pass whatever the agent does; row 31).

    Example:
        >>> reply = [{"role": "assistant", "content": "", "toolInvocations": [
        ...     {"toolCallId": str(i), "toolName": n, "state": "result", "result": {}}
        ...     for i, n in enumerate(["fetch", "log", "save"])]}]
        >>> tool_order(["fetch", "save"]).run_sync(output=reply).score
        1.0
    """
    if isinstance(expected_order, (str, bytes)) or not isinstance(expected_order, Sequence):
        raise ConfigError("expected_order must be a list of tool names", field="expected_order")
    order = [_tool_name(name, "expected_order") for name in expected_order]
    if not order:
        raise ConfigError(
            "expected_order must name at least one tool: an empty order always holds",
            field="expected_order",
        )

    def preprocess(messages: list[Any]) -> dict[str, Any]:
        actual = _names(messages)
        return {
            "actual_tools": actual,
            "expected_order": list(order),
            "passed": follows_order(actual, order),
        }

    return check_scorer(
        scorer_id or TOOL_ORDER_ID,
        description=f"Whether the agent called {' → '.join(order)} in this order",
        preprocess=preprocess,
        score=passed_score("passed"),
    )


def max_tool_calls(max_calls: float, *, scorer_id: str | None = None) -> Scorer:
    """Check that the agent made at most ``max_calls`` tool calls (``maxToolCalls``).

    Args:
        max_calls: the limit (Mastra's ``max``); a finite number >= 0. A fractional limit
            works as its floor (``1.5`` allows 1 call), as in Mastra.
        scorer_id: the scorer's id, by default Mastra's ``check-max-tool-calls``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-max-tool-calls``): 1 when the number of calls is within the
        limit, else 0. ``preprocess_step_result`` is ``{"count", "max", "passed"}``.

    Raises:
        ConfigError: ``max_calls`` is not a number, negative (it could never pass), or not
            finite (row 31).

    Example:
        >>> max_tool_calls(2).run_sync(output=[{"role": "assistant", "content": "Hi"}]).score
        1.0
    """
    if isinstance(max_calls, bool) or not isinstance(max_calls, numbers.Real):
        raise ConfigError(
            f"max_calls must be a number, not {type(max_calls).__name__}", field="max_calls"
        )
    if not math.isfinite(max_calls) or max_calls < 0:
        raise ConfigError(
            f"max_calls must be a finite number >= 0, got {max_calls!r}", field="max_calls"
        )
    limit = max_calls

    def preprocess(messages: list[Any]) -> dict[str, Any]:
        count = len(extract_tool_calls(messages))
        return {"count": count, "max": limit, "passed": count <= limit}

    return check_scorer(
        scorer_id or MAX_TOOL_CALLS_ID,
        description=f"Whether the agent made at most {limit} tool calls",
        preprocess=preprocess,
        score=passed_score("passed"),
    )


def used_no_tools(*, scorer_id: str | None = None) -> Scorer:
    """Check that the agent called no tool at all (``usedNoTools``).

    Args:
        scorer_id: the scorer's id, by default Mastra's ``check-used-no-tools``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-used-no-tools``): 1 without tool calls, else 0.
        ``preprocess_step_result`` is ``{"count", "passed"}``.

    Example:
        >>> used_no_tools().run_sync(output=[{"role": "assistant", "content": "Hi"}]).score
        1.0
    """

    def preprocess(messages: list[Any]) -> dict[str, Any]:
        count = len(extract_tool_calls(messages))
        return {"count": count, "passed": count == 0}

    return check_scorer(
        scorer_id or USED_NO_TOOLS_ID,
        description="Whether the agent answered without calling a tool",
        preprocess=preprocess,
        score=passed_score("passed"),
    )


def _js_truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, numbers.Real):
        return value != 0 and not math.isnan(value)
    if isinstance(value, str):
        return value != ""
    return True  # objects and arrays, even empty ones, are truthy in JS


def invocation_failed(invocation: Mapping[str, Any]) -> bool:
    """Return whether a Mastra tool invocation failed (Mastra ``noToolErrors``).

    It failed when its state is ``call`` (it never returned a result) or ``output-error``,
    when ``isError`` is ``true``, or when its ``result`` is an object whose ``error`` is truthy
    in the JS sense (``{}`` and ``[]`` count, ``""`` and ``0`` do not).

    Example:
        >>> invocation_failed({"toolName": "a", "state": "result", "result": {"error": "404"}})
        True
    """
    if invocation.get("state") in ("call", "output-error"):
        return True
    if invocation.get("isError") is True:
        return True
    result = invocation.get("result")
    return isinstance(result, Mapping) and _js_truthy(result.get("error"))


def _openai_call_count(message: Mapping[str, Any]) -> int:
    # message_tool_invocations lists a message's OpenAI tool_calls last, one per mapping
    calls = message.get("tool_calls")
    return sum(isinstance(call, Mapping) for call in calls) if isinstance(calls, list) else 0


def _tool_errors(messages: list[Any]) -> tuple[int, int]:
    """``(error count, call count)`` over the calls the other checks count."""
    answered = {
        message.get("tool_call_id")
        for message in messages
        if isinstance(message, Mapping) and message.get("role") == "tool"
    }
    errors = total = 0
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        first_openai = len(message_tool_invocations(message)) - _openai_call_count(message)
        for index, invocation, _name in called_invocations(message):
            total += 1
            if index >= first_openai:
                # an OpenAI call fails when no tool message answers it
                failed = invocation.get("toolCallId") not in answered
            else:
                failed = invocation_failed(invocation)
            errors += failed
    return errors, total


def no_tool_errors(*, scorer_id: str | None = None) -> Scorer:
    """Check that no tool call failed (``noToolErrors``).

    A Mastra invocation fails as :func:`invocation_failed` says; an OpenAI-style call fails
    when no ``{"role": "tool", "tool_call_id": ...}`` message answers it.

    Args:
        scorer_id: the scorer's id, by default Mastra's ``check--js-truthy``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-no-tool-errors``): 1 when no call failed, else 0.
        ``preprocess_step_result`` is ``{"error_count", "total_calls", "passed"}``. Skipped
        when the output has no tool call (row 33).

    Example:
        >>> reply = [{"role": "assistant", "content": "", "toolInvocations": [
        ...     {"toolCallId": "1", "toolName": "a", "state": "result", "result": {"ok": True}}]}]
        >>> no_tool_errors().run_sync(output=reply).score
        1.0
    """

    def preprocess(messages: list[Any]) -> dict[str, Any] | NotScorable:
        errors, total = _tool_errors(messages)
        if total == 0:
            return not_scorable(NO_CALLS)
        return {"error_count": errors, "total_calls": total, "passed": errors == 0}

    return check_scorer(
        scorer_id or NO_TOOL_ERRORS_ID,
        description="Whether every tool call succeeded",
        preprocess=preprocess,
        score=passed_score("passed"),
    )
