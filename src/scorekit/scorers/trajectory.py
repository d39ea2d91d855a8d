"""Trajectory (code, unified): accuracy, efficiency, blacklist and tool failures in one score.

Score range ``[0, 1]``; higher is better. The run's output is a trajectory, or messages whose
tool calls form one (:func:`scorekit.inputs.trajectories.trajectory_of`). What it is checked
against is an *expectation* (Mastra ``TrajectoryExpectation``): the factory's ``defaults``,
overridden key by key by the run's ``expected_trajectory`` (the run's ``steps`` replace the default
steps whole). Each configured part gives a sub-result (helpers of
:mod:`scorekit.inputs.trajectories` and :mod:`scorekit.scorers.trajectory_criteria`, Mastra evals
1.10.2 ``createTrajectoryScorerCode``, mastra-scorers.md §3.7, §3.9):

* ``accuracy``: when ``steps`` is set, :func:`~scorekit.inputs.trajectories.compare_trajectories`
  with ``ordering`` (``relaxed``) and ``allow_repeated_steps`` (true);
* ``efficiency``: when any of ``max_steps``, ``max_total_tokens``, ``max_total_duration_ms``,
  ``no_redundant_calls`` is set (``no_redundant_calls`` then defaults to true);
* ``blacklist``: when ``blacklisted_tools`` or ``blacklisted_sequences`` is non-empty;
* ``tool_failures``: always, with ``max_retries_per_tool`` (2); it counts only when it found
  retries;
* ``nested``: for each expected step with ``children`` (an expectation), the same evaluation of
  the first unmatched actual step of that name (and type) and its children.

Score::

    0                                   a blacklist violation, here or at any nested level
    level = Σ (w_d / Σ w) × score_d     over the active parts d (weights renormalised)
    level = 0.7 × level + 0.3 × mean(nested scores)     when there are nested results
    score = Math.round(level × 100) / 100               (no epsilon, as Mastra)

with weights ``accuracy 0.4, efficiency 0.3, tool_failures 0.2, blacklist 0.1`` (each
``max(0, w)``). Nested levels use the same weights and rounding. The reason is built locally
(Mastra's text): ``Score: …`` then one line per part.

Divergences (docs/divergences.md): 1 (keyword options), 10 (snake_case results),
row 64 (all weights 0 is a ``ConfigError``; active parts whose weights are all 0 make
the run ``skipped``, not 1), row 65 (nothing configured and no tool call in the
trajectory: ``skipped``, not 1), row 66 (invalid budgets in ``defaults`` are a
``ConfigError`` at construction). The rounding without epsilon is Mastra's, kept.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypedDict

from typing_extensions import NotRequired

from scorekit.errors import ConfigError
from scorekit.inputs.trajectories import (
    TOOL_STEP_TYPES,
    Comparison,
    compare_trajectories,
    read_expectation,
    trajectory_of,
)
from scorekit.pipeline import NotScorable, Scorer, StepContext, create_scorer, not_scorable
from scorekit.rounding import js_number_text, round_to_two_decimals_without_epsilon
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.trajectory_criteria import (
    Blacklist,
    Efficiency,
    ToolFailures,
    analyze_tool_failures,
    check_blacklist,
    check_efficiency,
)

__all__ = [
    "DEFAULT_WEIGHTS",
    "ENTRY",
    "SCORER_ID",
    "NestedResult",
    "create_trajectory_scorer_code",
    "trajectory_reason",
]

SCORER_ID = "code-trajectory-scorer"
"""The scorer's stable id (Mastra's)."""

DEFAULT_WEIGHTS: Mapping[str, float] = {
    "accuracy": 0.4,
    "efficiency": 0.3,
    "tool_failures": 0.2,
    "blacklist": 0.1,
}
"""Each part's weight in the score, before renormalising over the active parts."""

NOTHING_TO_MEASURE = (
    "Nothing to measure: no expected steps, budgets or blacklist are configured (defaults or the "
    "run's expected_trajectory), and the trajectory has no tool call whose retries could be "
    "checked."
)
"""The reason of a run skipped by row 65."""


class NestedResult(TypedDict):
    """The evaluation of one expected step's ``children`` (Mastra ``NestedEvaluationResult``)."""

    step_name: str
    score: float
    accuracy: NotRequired[Comparison]
    efficiency: NotRequired[Efficiency]
    blacklist: NotRequired[Blacklist]
    tool_failures: NotRequired[ToolFailures]
    nested: NotRequired[list[NestedResult]]


def _weights(value: Any) -> dict[str, float]:
    if value is None:
        return dict(DEFAULT_WEIGHTS)
    if not isinstance(value, Mapping):
        raise ConfigError(f"weights must be a mapping, not {type(value).__name__}", field="weights")
    weights = dict(DEFAULT_WEIGHTS)
    for key, weight in value.items():
        if key not in DEFAULT_WEIGHTS:
            raise ConfigError(
                f"unknown weight {key!r}; known weights: {', '.join(DEFAULT_WEIGHTS)}",
                field=f"weights.{key}",
            )
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise ConfigError(f"weights.{key} must be a number, got {weight!r}", field="weights")
        if not math.isfinite(weight):
            raise ConfigError(f"weights.{key} must be finite, got {weight!r}", field="weights")
        weights[key] = max(0.0, float(weight))
    if not any(weights.values()):
        raise ConfigError(
            "every weight is 0, so no part of the trajectory could count (Mastra 1.10.2 then "
            "scores every run 1)",
            field="weights",
        )
    return weights


def _has_efficiency(config: Mapping[str, Any]) -> bool:
    return any(
        key in config
        for key in ("max_steps", "max_total_tokens", "max_total_duration_ms", "no_redundant_calls")
    )


def _parts(
    trajectory: Mapping[str, Any], config: Mapping[str, Any]
) -> tuple[Comparison | None, Efficiency | None, Blacklist | None, ToolFailures]:
    accuracy = None
    if "steps" in config:
        accuracy = compare_trajectories(
            trajectory["steps"],
            config["steps"],
            ordering=config.get("ordering", "relaxed"),
            allow_repeated_steps=config.get("allow_repeated_steps", True),
        )
    efficiency = None
    if _has_efficiency(config):
        efficiency = check_efficiency(
            trajectory,
            max_steps=config.get("max_steps"),
            max_total_tokens=config.get("max_total_tokens"),
            max_total_duration_ms=config.get("max_total_duration_ms"),
            no_redundant_calls=config.get("no_redundant_calls", True),
        )
    blacklist = None
    if config.get("blacklisted_tools") or config.get("blacklisted_sequences"):
        blacklist = check_blacklist(
            trajectory,
            blacklisted_tools=config.get("blacklisted_tools", []),
            blacklisted_sequences=config.get("blacklisted_sequences", []),
        )
    failures = analyze_tool_failures(
        trajectory, max_retries_per_tool=config.get("max_retries_per_tool", 2)
    )
    return accuracy, efficiency, blacklist, failures


def _weighted(
    parts: tuple[Comparison | None, Efficiency | None, Blacklist | None, ToolFailures],
    weights: Mapping[str, float],
) -> list[tuple[float, float]]:
    accuracy, efficiency, blacklist, failures = parts
    scores = []
    if accuracy is not None:
        scores.append((weights["accuracy"], accuracy["score"]))
    if efficiency is not None:
        scores.append((weights["efficiency"], efficiency["score"]))
    if failures["patterns"]:
        scores.append((weights["tool_failures"], failures["score"]))
    if blacklist is not None:
        scores.append((weights["blacklist"], blacklist["score"]))
    return scores


def _mean(scores: list[tuple[float, float]]) -> float | None:
    """The renormalised weighted mean, in Mastra's order of operations.

    ``None`` when the weights sum to 0.
    """
    total = 0.0
    for weight, _ in scores:
        total = total + weight
    if total <= 0:
        return None
    level = 0.0
    for weight, value in scores:
        level = level + (weight / total) * value
    return level


def _violated(results: list[NestedResult]) -> bool:
    stack = list(results)
    while stack:
        result = stack.pop()
        if "blacklist" in result and result["blacklist"]["score"] == 0:
            return True
        stack.extend(result.get("nested", []))
    return False


def _nested(
    expected: list[Mapping[str, Any]], actual: list[Mapping[str, Any]], weights: Mapping[str, float]
) -> list[NestedResult]:
    """Evaluate each expected step's ``children`` (Mastra ``evaluateNestedExpectations``)."""
    results: list[NestedResult] = []
    by_key: dict[tuple[str, Any], list[int]] = {}
    for position, step in enumerate(actual):
        by_key.setdefault((step["name"], None), []).append(position)
        if step.get("stepType") is not None:
            by_key.setdefault((step["name"], step["stepType"]), []).append(position)
    pointers: dict[tuple[str, Any], int] = {}
    matched: set[int] = set()
    for step in expected:
        if step.get("children") is None:
            continue
        child_config = read_expectation(step["children"], field="children", strict=True)
        key = (step["name"], step.get("stepType") or None)
        candidates, at = by_key.get(key, []), pointers.get(key, 0)
        while at < len(candidates) and candidates[at] in matched:
            at += 1
        pointers[key] = at
        if at >= len(candidates):
            missing = NestedResult(step_name=step["name"], score=0.0)
            expected_children = child_config.get("steps") or []
            if expected_children:
                missing["accuracy"] = Comparison(
                    score=0.0,
                    matched_steps=0,
                    total_expected_steps=len(expected_children),
                    total_actual_steps=0,
                    missing_steps=[child["name"] for child in expected_children],
                    extra_steps=[],
                    out_of_order_steps=[],
                    repeated_steps=[],
                )
            results.append(missing)
            continue
        matched.add(candidates[at])
        parent = actual[candidates[at]]
        child: dict[str, Any] = {"steps": parent.get("children") or []}
        if parent.get("durationMs") is not None:
            child["totalDurationMs"] = parent["durationMs"]
        parts = _parts(child, child_config)
        deeper = (
            _nested(child_config["steps"], child["steps"], weights)
            if "steps" in child_config
            else []
        )
        result = NestedResult(step_name=step["name"], score=0.0)
        for name, part in zip(("accuracy", "efficiency", "blacklist"), parts[:3], strict=True):
            if part is not None:
                result[name] = part  # type: ignore[literal-required]
        result["tool_failures"] = parts[3]
        blacklist = parts[2]
        if (blacklist is not None and blacklist["score"] == 0) or (deeper and _violated(deeper)):
            result["nested"] = deeper
            results.append(result)
            continue
        level = _mean(_weighted(parts, weights))
        level = 1.0 if level is None else level  # Mastra: 1 when the weights sum to 0
        if deeper:
            total = 0.0
            for nested in deeper:
                total = total + nested["score"]
            level = 0.7 * level + 0.3 * (total / len(deeper))
            result["nested"] = deeper
        result["score"] = round_to_two_decimals_without_epsilon(level)
        results.append(result)
    return results


def trajectory_reason(result: Mapping[str, Any], score: float) -> str:
    """Mastra's reason text for a preprocess step result and its score.

    Lines joined by ``\\n``: the score, then the blacklist violation, or a line per part.
    """
    lines = [f"Score: {js_number_text(score)}"]
    blacklist = result.get("blacklist")
    if blacklist is not None and blacklist["score"] == 0:
        found = []
        if blacklist["violated_tools"]:
            found.append(f"forbidden tools used: {', '.join(blacklist['violated_tools'])}")
        if blacklist["violated_sequences"]:
            runs = "; ".join(" → ".join(s) for s in blacklist["violated_sequences"])
            found.append(f"forbidden sequences: {runs}")
        lines.append(f"Blacklist violation: {'. '.join(found)}.")
        return "\n".join(lines)
    nested: list[NestedResult] = result.get("nested") or []
    if nested and _violated(nested):
        names = [r["step_name"] for r in nested if _violated([r])]
        lines.append(f"Nested blacklist violation in: {', '.join(names)}.")
        return "\n".join(lines)
    accuracy = result.get("accuracy")
    if accuracy is not None:
        details = [
            f"{accuracy['matched_steps']}/{accuracy['total_expected_steps']} expected steps matched"
        ]
        for key, label in (
            ("missing_steps", "missing"),
            ("extra_steps", "extra"),
            ("out_of_order_steps", "out of order"),
        ):
            if accuracy[key]:
                details.append(f"{label}: {', '.join(accuracy[key])}")
        lines.append(f"Accuracy ({js_number_text(accuracy['score'])}): {'. '.join(details)}.")
    efficiency = result.get("efficiency")
    if efficiency is not None:
        details = []
        if efficiency["over_step_budget"]:
            details.append(f"over step budget ({efficiency['total_steps']} steps)")
        if efficiency["over_token_budget"]:
            details.append(
                f"over token budget ({js_number_text(efficiency['total_tokens'])} tokens)"
            )
        if efficiency["over_duration_budget"]:
            details.append(
                f"over duration budget ({js_number_text(efficiency['total_duration_ms'])}ms)"
            )
        if efficiency["redundant_calls"]:
            calls = ", ".join(call["name"] for call in efficiency["redundant_calls"])
            details.append(f"redundant calls: {calls}")
        text = ". ".join(details) if details else "all budgets met, no redundant calls"
        lines.append(f"Efficiency ({js_number_text(efficiency['score'])}): {text}.")
    failures = result["tool_failures"]
    if failures["patterns"]:
        details = []
        if failures["total_retries"]:
            details.append(f"{failures['total_retries']} total retries")
        if failures["excessive_retry_tools"]:
            details.append(f"excessive retries: {', '.join(failures['excessive_retry_tools'])}")
        lines.append(f"Tool failures ({js_number_text(failures['score'])}): {'. '.join(details)}.")
    if nested:
        scores = ", ".join(f"{r['step_name']}: {js_number_text(r['score'])}" for r in nested)
        lines.append(f"Nested scores: {scores}.")
    return "\n".join(lines)


def _run_expectation(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        value = {"steps": value}
    return read_expectation(value, field="expected_trajectory", strict=True)


def create_trajectory_scorer_code(
    *,
    defaults: Mapping[str, Any] | None = None,
    weights: Mapping[str, float] | None = None,
) -> Scorer:
    """Create the unified code Trajectory scorer (formula in the module docstring).

    Args:
        defaults: the expectation every run is checked against, overridden key by key by the
            run's ``expected_trajectory``: ``steps`` (expected steps in Mastra's shape, camelCase,
            ``children`` an expectation), ``ordering`` (``"strict"`` / ``"relaxed"`` /
            ``"unordered"``), ``allow_repeated_steps``, ``max_steps``, ``max_total_tokens``,
            ``max_total_duration_ms`` (finite numbers >= 0), ``no_redundant_calls``,
            ``blacklisted_tools`` ([str]), ``blacklisted_sequences`` ([[str]]),
            ``max_retries_per_tool`` (>= 0, default 2). Keys may also be spelled in camelCase
            (Mastra's ``maxSteps``), as a dataset item's expected trajectory is.
        weights: ``{"accuracy": 0.4, "efficiency": 0.3, "tool_failures": 0.2, "blacklist":
            0.1}`` by default; keys given replace their default; negative weights count as 0.

    Returns:
        A scorer whose ``preprocess_step_result`` is ``{"accuracy"?, "efficiency"?,
        "blacklist"?, "tool_failures", "nested"?, "config"}`` (the sub-results, absent when
        their part is not configured; ``config`` the merged expectation, snake_case keys). The
        reason is Mastra's local text.

    Raises:
        ConfigError: an unknown or malformed ``defaults`` key, an unknown or non-numeric weight,
            or every weight 0. At run time (status ``error``): an output trajectory without a
            ``steps`` list, a malformed run ``expected_trajectory``, or a budget whose
            measurements are missing (a token budget without ``model_generation`` steps with
            token counts, a duration budget without durations).

    Example:
        >>> scorer = create_trajectory_scorer_code(defaults={"max_steps": 2})
        >>> steps = [{"stepType": "tool_call", "name": n} for n in "abcd"]
        >>> scorer.run_sync(output={"steps": steps}).score
        0.5
    """
    base = read_expectation(defaults, field="defaults", strict=True)
    part_weights = _weights(weights)

    def preprocess(ctx: StepContext) -> dict[str, Any]:
        trajectory = trajectory_of(ctx.run.output)
        config = {**base, **_run_expectation(ctx.run.expected_trajectory)}
        accuracy, efficiency, blacklist, failures = _parts(trajectory, config)
        steps = config.get("steps")
        nested = _nested(steps, trajectory["steps"], part_weights) if steps else []
        result: dict[str, Any] = {}
        for name, part in (
            ("accuracy", accuracy),
            ("efficiency", efficiency),
            ("blacklist", blacklist),
        ):
            if part is not None:
                result[name] = part
        result["tool_failures"] = failures
        if nested:
            result["nested"] = nested
        result["config"] = config
        return result

    def generate_score(ctx: StepContext) -> float | NotScorable:
        result = ctx.results.preprocess_step_result
        blacklist = result.get("blacklist")
        if blacklist is not None and blacklist["score"] == 0:
            return 0.0
        parts = (result.get("accuracy"), result.get("efficiency"), blacklist)
        scores = _weighted((*parts, result["tool_failures"]), part_weights)
        nested: list[NestedResult] = result.get("nested", [])
        if not scores and not nested:
            steps = trajectory_of(ctx.run.output)["steps"]
            if any(step.get("stepType") in TOOL_STEP_TYPES for step in steps):
                return 1.0  # the tool calls were checked for retries and none was found
            return not_scorable(NOTHING_TO_MEASURE)
        level = _mean(scores) if scores else 1.0
        if level is None:
            active = [
                name for name in ("accuracy", "efficiency", "blacklist") if name in result
            ] + (["tool_failures"] if result["tool_failures"]["patterns"] else [])
            return not_scorable(
                f"Nothing weighed: the parts measured ({', '.join(active)}) all have weight 0."
            )
        if nested:
            if _violated(nested):
                return 0.0
            total = 0.0
            for item in nested:
                total = total + item["score"]
            level = 0.7 * level + 0.3 * (total / len(nested))
        return round_to_two_decimals_without_epsilon(level)

    def generate_reason(ctx: StepContext) -> str:
        return trajectory_reason(ctx.results.preprocess_step_result, ctx.score or 0.0)

    return (
        create_scorer(
            SCORER_ID,
            name="Trajectory Scorer",
            description="Trajectory accuracy, efficiency, blacklist and tool failures in one score",
        )
        .preprocess(preprocess)
        .generate_score(generate_score)
        .generate_reason(generate_reason)
    )


ENTRY = ScorerEntry(
    name="trajectory",
    scorer_id=SCORER_ID,
    factory=create_trajectory_scorer_code,
    kind="code",
    summary="Trajectory accuracy, efficiency, blacklist and tool failures, weighted into one score",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
