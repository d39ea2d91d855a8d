"""Tool-Call Accuracy (code): whether the agent called the expected tool, or tools in order.

Score: 0 or 1.

Formula (Mastra evals 1.10.2 code tool-call-accuracy), with ``actual`` the names of the tools
called in the output (:func:`scorekit.inputs.tool_calls.run_tool_calls`: Mastra agent messages and
OpenAI-style ``tool_calls``), first rule that applies:

1. no tool was called → 0;
2. ``expected_tool_order`` is non-empty → 1 when the order check passes, else 0
   (``expected_tool`` is then ignored). Strict: ``actual == expected_tool_order`` exactly.
   Otherwise: the *first* index of each expected tool in ``actual`` must exist and strictly
   increase (so an expected name listed twice always fails);
3. no ``expected_tool`` → 0;
4. strict: exactly one call, to ``expected_tool`` → 1;
5. otherwise: ``expected_tool`` is among the calls → 1.

Divergences (docs/divergences.md): 1 (keyword options, each with its own default). An empty
input or output is an error, as in Mastra.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.tool_calls import run_tool_calls
from scorekit.pipeline import Scorer, StepContext, create_scorer
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.options import check_flag

__all__ = [
    "ENTRY",
    "SCORER_ID",
    "check_tool_order",
    "create_tool_call_accuracy_scorer_code",
    "tool_call_accuracy",
]

SCORER_ID = "code-tool-call-accuracy-scorer"
"""The scorer's stable id (Mastra's)."""


def check_tool_order(actual: Sequence[str], expected: Sequence[str], *, strict: bool) -> bool:
    """Return whether ``actual`` calls follow ``expected`` (Mastra ``checkToolOrder``).

    Args:
        actual: the called tool names, in call order.
        expected: the expected names, in order.
        strict: require ``actual`` to equal ``expected`` exactly.

    Returns:
        ``True`` when the order holds (always for an empty ``expected`` when not strict).

    Example:
        >>> check_tool_order(["search", "calendar", "weather"], ["search", "weather"], strict=False)
        True
    """
    if strict:
        return list(actual) == list(expected)
    indices = []
    for tool in expected:
        if tool not in actual:
            return False
        indices.append(list(actual).index(tool))
    return all(later > earlier for earlier, later in itertools.pairwise(indices))


def tool_call_accuracy(
    actual: Sequence[str],
    *,
    expected_tool: str | None,
    strict_mode: bool,
    expected_tool_order: Sequence[str] | None,
) -> float:
    """Return the 0/1 tool-call accuracy (Mastra ``calculateAccuracy``; rules in the module doc).

    Args:
        actual: the called tool names, in call order.
        expected_tool: the tool that should be called, or ``None``.
        strict_mode: see the module docstring.
        expected_tool_order: the expected call order, or ``None``.

    Returns:
        1.0 or 0.0.
    """
    if not actual:
        return 0.0
    if expected_tool_order:
        return 1.0 if check_tool_order(actual, expected_tool_order, strict=strict_mode) else 0.0
    if not expected_tool:
        return 0.0
    if strict_mode:
        return 1.0 if len(actual) == 1 and actual[0] == expected_tool else 0.0
    return 1.0 if expected_tool in actual else 0.0


def _check_order(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigError(
            "expected_tool_order must be a list of tool names", field="expected_tool_order"
        )
    if not all(isinstance(name, str) for name in value):
        raise ConfigError(
            "expected_tool_order must hold only strings (tool names)", field="expected_tool_order"
        )
    return list(value)


def create_tool_call_accuracy_scorer_code(
    expected_tool: str | None = None,
    strict_mode: bool = False,
    expected_tool_order: Sequence[str] | None = None,
) -> Scorer:
    """Create the code Tool-Call Accuracy scorer.

    Args:
        expected_tool: the tool the agent should call.
        strict_mode: with ``expected_tool``, require it to be the only call; with
            ``expected_tool_order``, require exactly that sequence of calls.
        expected_tool_order: the tools the agent should call, in this order. An empty list is
            accepted (Mastra) and then scores by ``expected_tool`` (0 without one).

    Returns:
        A scorer whose ``preprocess_step_result`` holds ``expected_tool`` (when given),
        ``actual_tools`` ([str]), ``strict_mode``, ``expected_tool_order`` (when given),
        ``has_tool_calls``, ``correct_tool_called``, ``tool_call_infos`` ([{"tool_name",
        "tool_call_id", "message_index", "invocation_index"}]) and ``correct_order_called``
        (``None`` without an order). Score 0 or 1.

    Raises:
        ConfigError: neither ``expected_tool`` nor ``expected_tool_order`` is given, or an
            option has a wrong type.

    Example:
        >>> scorer = create_tool_call_accuracy_scorer_code(expected_tool="weather")
        >>> scorer.run_sync(input="Weather in Paris?", output=[{"role": "assistant",
        ...     "content": "", "tool_calls": [{"id": "1", "function": {"name": "weather"}}]}]).score
        1.0
    """
    if expected_tool is not None and not isinstance(expected_tool, str):
        raise ConfigError("expected_tool must be a string (a tool name)", field="expected_tool")
    strict = check_flag(strict_mode, field="strict_mode")
    order = _check_order(expected_tool_order)
    if not expected_tool and order is None:
        raise ConfigError(
            "either expected_tool or expected_tool_order must be provided", field="expected_tool"
        )

    def preprocess(ctx: StepContext) -> dict[str, Any]:
        calls = run_tool_calls(ctx.run.input, ctx.run.output)
        actual = [call.tool_name for call in calls]
        if expected_tool:
            correct = (
                len(actual) == 1 and actual[0] == expected_tool
                if strict
                else expected_tool in actual
            )
        else:
            correct = False
        result: dict[str, Any] = {}
        if expected_tool is not None:
            result["expected_tool"] = expected_tool
        result["actual_tools"] = actual
        result["strict_mode"] = strict
        if order is not None:
            result["expected_tool_order"] = order
        result["has_tool_calls"] = bool(actual)
        result["correct_tool_called"] = correct
        result["tool_call_infos"] = [call.to_dict() for call in calls]
        result["correct_order_called"] = (
            check_tool_order(actual, order, strict=strict) if order is not None else None
        )
        return result

    def generate_score(ctx: StepContext) -> float:
        step = ctx.results.preprocess_step_result
        return tool_call_accuracy(
            step["actual_tools"],
            expected_tool=expected_tool,
            strict_mode=strict,
            expected_tool_order=order,
        )

    description = (
        f"Whether the agent called tools in the order [{', '.join(order)}]"
        if order is not None
        else f"Whether the agent selected the tool {expected_tool!r}"
    )
    return (
        create_scorer(SCORER_ID, name="Tool Call Accuracy Scorer", description=description)
        .preprocess(preprocess)
        .generate_score(generate_score)
    )


ENTRY = ScorerEntry(
    name="tool-call-accuracy-code",
    aliases=("code-tool-call-accuracy",),
    scorer_id=SCORER_ID,
    factory=create_tool_call_accuracy_scorer_code,
    kind="code",
    summary="Whether the agent called the expected tool, or tools in the expected order",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
