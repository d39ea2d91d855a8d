"""The efficiency, blacklist and tool-failure checks of trajectories (Mastra evals 1.10.2).

Mastra ``scorers/utils.ts`` ``checkTrajectoryEfficiency``, ``checkTrajectoryBlacklist`` and
``analyzeToolFailures`` (mastra-scorers.md §3.7), on trajectories as
:mod:`scorekit.inputs.trajectories` reads them. Results are plain dicts with snake_case keys
(docs/divergences.md row 10). Each check runs in time linear in the number of steps (the
blacklist's sequence search is Knuth–Morris–Pratt), plus the size of the data it serialises.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from typing_extensions import NotRequired

from scorekit.inputs.trajectories import TOOL_STEP_TYPES, is_number, js_stringify, walk_steps
from scorekit.rounding import round_to_two_decimals

__all__ = [
    "Blacklist",
    "Efficiency",
    "RedundantCall",
    "ToolFailurePattern",
    "ToolFailures",
    "analyze_tool_failures",
    "check_blacklist",
    "check_efficiency",
]

_MISSING = object()


class RedundantCall(TypedDict):
    """A call repeating the previous one (same tool, type and arguments)."""

    name: str
    index: int


class Efficiency(TypedDict):
    """The result of :func:`check_efficiency` (Mastra ``TrajectoryEfficiencyResult``)."""

    score: float
    total_steps: int
    over_step_budget: bool
    total_tokens: float
    over_token_budget: bool
    total_duration_ms: float
    over_duration_budget: bool
    redundant_calls: list[RedundantCall]


def _measurement(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value >= 0


def _or_zero(value: Any) -> Any:
    return value if is_number(value) else 0


def _budget_score(actual: float, budget: float) -> float:
    if actual <= budget:
        return 1.0
    if budget == 0:
        return 0.0  # JavaScript: 1 − x / 0 = −∞, clamped to 0
    return max(0.0, 1 - (actual - budget) / budget)


def check_efficiency(
    trajectory: Mapping[str, Any],
    *,
    max_steps: float | None = None,
    max_total_tokens: float | None = None,
    max_total_duration_ms: float | None = None,
    no_redundant_calls: bool = True,
) -> Efficiency:
    """Check budgets and redundant calls (Mastra ``checkTrajectoryEfficiency`` 1.10.2).

    Steps are counted at the top level; tokens are ``promptTokens + completionTokens`` of every
    ``model_generation`` step, children included; the duration is the trajectory's
    ``totalDurationMs``, else the sum of the top-level ``durationMs``. A redundant call is a
    top-level ``tool_call`` / ``mcp_tool_call`` step with the same name, type and
    ``toolArgs`` JSON as the step before it. Each budget scores 1 when met, else
    ``max(0, 1 − (actual − budget) / budget)``; redundancy scores ``max(0, 1 − 0.2 × #calls)``;
    the score is their mean (1 with none), rounded with Mastra's epsilon.

    Raises:
        ValueError: a budget is not a finite number >= 0; a token budget without a
            ``model_generation`` step, or with one whose counts are missing or invalid; a
            duration budget without valid durations.
    """
    budgets = {
        "maxSteps": max_steps,
        "maxTotalTokens": max_total_tokens,
        "maxTotalDurationMs": max_total_duration_ms,
    }
    for name, limit in budgets.items():
        if limit is not None and not _measurement(limit):
            raise ValueError(f"Invalid {name} budget: expected a finite nonnegative number")
    steps: list[Mapping[str, Any]] = trajectory["steps"]
    total_tokens: Any = 0
    generations = 0
    for step in walk_steps(steps):
        if step.get("stepType") != "model_generation":
            continue
        generations += 1
        prompt, completion = step.get("promptTokens"), step.get("completionTokens")
        if max_total_tokens is not None and not (_measurement(prompt) and _measurement(completion)):
            raise ValueError(
                f'Cannot evaluate token budget: model generation "{step["name"]}" has missing '
                "or invalid token counts"
            )
        total_tokens += _or_zero(prompt) + _or_zero(completion)
    if max_total_tokens is not None and (generations == 0 or not _measurement(total_tokens)):
        raise ValueError(
            "Cannot evaluate token budget: missing model-generation measurements or invalid "
            "total tokens"
        )
    given = trajectory.get("totalDurationMs")
    total_duration: Any = (
        given if given is not None else sum(_or_zero(s.get("durationMs")) for s in steps)
    )
    if max_total_duration_ms is not None:
        valid = (
            _measurement(given)
            if given is not None
            else bool(steps) and all(_measurement(s.get("durationMs")) for s in steps)
        )
        if not valid or not _measurement(total_duration):
            raise ValueError(
                "Cannot evaluate duration budget: missing or invalid duration measurements"
            )
    redundant: list[RedundantCall] = []
    if no_redundant_calls:
        for i in range(1, len(steps)):
            previous, current = steps[i - 1], steps[i]
            step_type = previous.get("stepType")
            if (
                previous["name"] == current["name"]
                and step_type == current.get("stepType")
                and step_type in TOOL_STEP_TYPES
            ):
                before = js_stringify(previous["toolArgs"]) if "toolArgs" in previous else _MISSING
                after = js_stringify(current["toolArgs"]) if "toolArgs" in current else _MISSING
                if before is not None and before == after:
                    redundant.append(RedundantCall(name=current["name"], index=i))
    over_steps = max_steps is not None and len(steps) > max_steps
    over_tokens = max_total_tokens is not None and total_tokens > max_total_tokens
    over_duration = max_total_duration_ms is not None and total_duration > max_total_duration_ms
    dimensions: list[float] = []
    if max_steps is not None:
        dimensions.append(_budget_score(len(steps), max_steps))
    if max_total_tokens is not None:
        dimensions.append(_budget_score(total_tokens, max_total_tokens))
    if max_total_duration_ms is not None:
        dimensions.append(_budget_score(total_duration, max_total_duration_ms))
    if no_redundant_calls:
        dimensions.append(1.0 if not redundant else max(0.0, 1 - len(redundant) * 0.2))
    score = sum(dimensions) / len(dimensions) if dimensions else 1.0
    return Efficiency(
        score=round_to_two_decimals(max(0.0, min(1.0, score))),
        total_steps=len(steps),
        over_step_budget=over_steps,
        total_tokens=total_tokens,
        over_token_budget=over_tokens,
        total_duration_ms=total_duration,
        over_duration_budget=over_duration,
        redundant_calls=redundant,
    )


class Blacklist(TypedDict):
    """The result of :func:`check_blacklist` (Mastra ``TrajectoryBlacklistResult``)."""

    score: float
    violated_tools: list[str]
    violated_sequences: list[list[str]]


def _contains_run(names: Sequence[str], run: Sequence[str]) -> bool:
    """Whether ``run`` occurs contiguously in ``names`` (Knuth–Morris–Pratt, O(len + len))."""
    failure = [0] * len(run)
    k = 0
    for i in range(1, len(run)):
        while k and run[i] != run[k]:
            k = failure[k - 1]
        if run[i] == run[k]:
            k += 1
        failure[i] = k
    k = 0
    for name in names:
        while k and name != run[k]:
            k = failure[k - 1]
        if name == run[k]:
            k += 1
            if k == len(run):
                return True
    return False


def check_blacklist(
    trajectory: Mapping[str, Any],
    *,
    blacklisted_tools: Sequence[str] = (),
    blacklisted_sequences: Sequence[Sequence[str]] = (),
) -> Blacklist:
    """Find forbidden tools and contiguous forbidden sequences among the top-level step names.

    Mastra ``checkTrajectoryBlacklist``: score 0 on any violation, else 1. An empty sequence
    is skipped; each sequence is reported once.
    """
    names = [step["name"] for step in trajectory["steps"]]
    present = set(names)
    tools = [tool for tool in blacklisted_tools if tool in present]
    sequences = [list(s) for s in blacklisted_sequences if s and _contains_run(names, s)]
    return Blacklist(
        score=0.0 if tools or sequences else 1.0,
        violated_tools=tools,
        violated_sequences=sequences,
    )


class ToolFailurePattern(TypedDict):
    """Consecutive calls of one tool after failures (Mastra ``ToolFailurePattern``)."""

    tool_name: str
    retry_count: int
    fell_back_to_alternative: bool
    alternative_tool: NotRequired[str]
    eventually_succeeded: bool


class ToolFailures(TypedDict):
    """The result of :func:`analyze_tool_failures` (Mastra ``ToolFailureAnalysisResult``)."""

    score: float
    patterns: list[ToolFailurePattern]
    total_retries: int
    excessive_retry_tools: list[str]


def analyze_tool_failures(
    trajectory: Mapping[str, Any], *, max_retries_per_tool: float = 2
) -> ToolFailures:
    """Find retries of failed tool calls (Mastra ``analyzeToolFailures``).

    Among the top-level ``tool_call`` / ``mcp_tool_call`` steps, a run of consecutive calls of
    one tool is a pattern when some call in it follows a failed one (``success`` false); its
    retry count is the number of such calls. Score ``max(0, 1 − 0.2 × Σ max(0, retries −
    max_retries_per_tool))``, rounded with Mastra's epsilon; 1 without tool calls.
    """
    calls = [s for s in trajectory["steps"] if s.get("stepType") in TOOL_STEP_TYPES]
    patterns: list[ToolFailurePattern] = []
    total = 0
    i = 0
    while i < len(calls):
        name = calls[i]["name"]
        retries = 0
        j = i + 1
        while j < len(calls) and calls[j]["name"] == name:
            if calls[j - 1].get("success") is False:
                retries += 1
            j += 1
        if retries:
            succeeded = calls[j - 1].get("success") is not False
            fell_back = j < len(calls) and not succeeded
            pattern = ToolFailurePattern(
                tool_name=name,
                retry_count=retries,
                fell_back_to_alternative=fell_back,
                eventually_succeeded=succeeded,
            )
            if fell_back:
                pattern["alternative_tool"] = calls[j]["name"]
            patterns.append(pattern)
            total += retries
        i = j
    excess = sum(max(0, p["retry_count"] - max_retries_per_tool) for p in patterns)
    score = max(0.0, 1 - excess * 0.2) if calls else 1.0
    return ToolFailures(
        score=round_to_two_decimals(max(0.0, min(1.0, score))) if calls else 1.0,
        patterns=patterns,
        total_retries=total,
        excessive_retry_tools=[
            p["tool_name"] for p in patterns if p["retry_count"] > max_retries_per_tool
        ],
    )
