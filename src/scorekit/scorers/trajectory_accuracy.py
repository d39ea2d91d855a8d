"""Trajectory Accuracy (code): how well the agent's steps follow an expected trajectory.

Score range ``[0, 1]``; higher is better. The run's output is a trajectory, or messages whose
tool calls form one (:func:`scorekit.inputs.trajectories.trajectory_of`). Its top-level steps are
compared with the expected steps by :func:`scorekit.inputs.trajectories.compare_trajectories`
(Mastra evals 1.10.2 ``createTrajectoryAccuracyScorerCode``, mastra-scorers.md §3.7–3.8)::

    strict     matched / n − 0.5 × max(0, m − n) / n
    relaxed    matched / n      (each expected step after the previous match)
    unordered  matched / n      (each expected step anywhere, each actual step once)
    then −0.1 per repeated step name unless allow_repeated_steps; clamp to [0, 1]; round2

with ``n`` expected and ``m`` actual steps; no expected steps scores 1 when no step was taken,
else 0. A step matches on its name and, when the expected step has a ``stepType``, on that type
and the JSON of each comparable field it sets (``toolArgs``, ``toolResult``, ``success`` ...).

Expected steps: the factory's ``expected_trajectory`` when given, else the run's
``expected_trajectory`` (its ``steps``). The run's ``ordering`` and ``allowRepeatedSteps``
override the factory's ``comparison_options`` when set, even when the factory's steps are used
(Mastra's precedence, kept).

Divergences (docs/divergences.md): 1 (keyword options), 10 (snake_case results),
row 61 (an unknown ``ordering`` is a ``ConfigError``, not ``relaxed``),
row 62 (unknown ``comparison_options`` keys, such as the legacy ``strict_order``, are a
``ConfigError``, not ignored), row 63 (no expected trajectory anywhere: ``skipped``, not
0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.trajectories import (
    check_ordering,
    compare_trajectories,
    expected_steps_of,
    read_expectation,
    trajectory_of,
)
from scorekit.pipeline import NotScorable, Scorer, StepContext, create_scorer, not_scorable
from scorekit.scorers.entry import ScorerEntry

__all__ = [
    "ENTRY",
    "NO_EXPECTED_TRAJECTORY",
    "SCORER_ID",
    "create_trajectory_accuracy_scorer_code",
]

SCORER_ID = "code-trajectory-accuracy-scorer"
"""The scorer's stable id (Mastra's)."""

NO_EXPECTED_TRAJECTORY = (
    "No expected trajectory provided (pass via options or dataset item expectedTrajectory)"
)
"""The ``error`` of the preprocess step result when no expected steps resolve (Mastra's text)."""

SKIP_REASON = (
    "Nothing to compare: no expected trajectory was given, neither as the expected_trajectory "
    "option nor as the run's expected_trajectory steps."
)
"""The reason of a ``skipped`` run (row 63)."""

_COMPARISON_KEYS = {"ordering": "ordering", "allow_repeated_steps": "allow_repeated_steps"}


def _comparison_options(value: Any) -> tuple[str, bool]:
    if value is None:
        return "relaxed", True
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"comparison_options must be a mapping, not {type(value).__name__}",
            field="comparison_options",
        )
    for key in value:
        if key not in _COMPARISON_KEYS:
            hint = " (Mastra 1.10.2 ignores it; use ordering='strict')" if "strict" in key else ""
            raise ConfigError(
                f"unknown comparison option {key!r}{hint}; known options: ordering, "
                "allow_repeated_steps",
                field=f"comparison_options.{key}",
            )
    ordering = value.get("ordering", "relaxed")
    check_ordering(ordering, field="comparison_options.ordering")
    allow = value.get("allow_repeated_steps", True)
    if not isinstance(allow, bool):
        raise ConfigError(
            f"comparison_options.allow_repeated_steps must be true or false, got {allow!r}",
            field="comparison_options.allow_repeated_steps",
        )
    return ordering, allow


def _run_expectation(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        value = {"steps": value}
    return read_expectation(value, field="expected_trajectory", strict=True)


def create_trajectory_accuracy_scorer_code(
    *,
    expected_trajectory: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None = None,
    comparison_options: Mapping[str, Any] | None = None,
) -> Scorer:
    """Create the code Trajectory Accuracy scorer (formula in the module docstring).

    Args:
        expected_trajectory: the expected steps, in Mastra's shape: a list of expected steps
            (``[{"stepType": "tool_call", "name": "search", "toolArgs": {...}}, ...]``, taken as
            given) or a trajectory ``{"steps": [...]}`` (``durationMs`` and ``metadata`` are
            dropped, ``children`` become nested expectations). ``[]`` expects no steps. Without
            it, each run's ``expected_trajectory`` supplies the steps.
        comparison_options: ``{"ordering": "strict" | "relaxed" | "unordered",
            "allow_repeated_steps": bool}``; defaults ``"relaxed"`` and ``True``.

    Returns:
        A scorer whose ``preprocess_step_result`` is ``{"actual_trajectory", "expected_trajectory"
        ({"steps": [...]}), "comparison" ({"score", "matched_steps", "total_expected_steps",
        "total_actual_steps", "missing_steps", "extra_steps", "out_of_order_steps",
        "repeated_steps"}), "actual_step_names", "expected_step_names"}`` (trajectories as
        given, camelCase). Without expected steps the result holds ``actual_trajectory``,
        ``actual_step_names``, ``expected_step_names`` (``[]``) and ``error`` and the run is
        ``skipped``. No reason.

    Raises:
        ConfigError: a malformed ``expected_trajectory``; an unknown ``comparison_options`` key
            or ordering, or a non-boolean ``allow_repeated_steps``. At run time (status
            ``error``): an output trajectory without a ``steps`` list or with a malformed step,
            or a malformed run ``expected_trajectory``.

    Example:
        >>> scorer = create_trajectory_accuracy_scorer_code(
        ...     expected_trajectory=[{"name": "search"}, {"name": "summarize"}])
        >>> scorer.run_sync(output={"steps": [{"stepType": "tool_call", "name": "search"}]}).score
        0.5
    """
    ordering, allow_repeated = _comparison_options(comparison_options)
    static = (
        expected_steps_of(expected_trajectory, field="expected_trajectory")
        if expected_trajectory is not None
        else None
    )

    def preprocess(ctx: StepContext) -> dict[str, Any]:
        actual = trajectory_of(ctx.run.output)
        item = _run_expectation(ctx.run.expected_trajectory)
        expected = static if static is not None else item.get("steps")
        names = [step["name"] for step in actual["steps"]]
        if expected is None:
            return {
                "actual_trajectory": actual,
                "actual_step_names": names,
                "expected_step_names": [],
                "error": NO_EXPECTED_TRAJECTORY,
            }
        comparison = compare_trajectories(
            actual["steps"],
            expected,
            ordering=item.get("ordering", ordering),
            allow_repeated_steps=item.get("allow_repeated_steps", allow_repeated),
        )
        return {
            "actual_trajectory": actual,
            "expected_trajectory": {"steps": expected},
            "comparison": comparison,
            "actual_step_names": names,
            "expected_step_names": [step["name"] for step in expected],
        }

    def generate_score(ctx: StepContext) -> float | NotScorable:
        comparison = ctx.results.preprocess_step_result.get("comparison")
        if comparison is None:
            return not_scorable(SKIP_REASON)
        return float(comparison["score"])

    if static is not None:
        path = " → ".join(step["name"] for step in static)
        description = f"Whether the trajectory matches the expected path [{path}] ({ordering})"
    else:
        description = f"Trajectory accuracy against each run's expected trajectory ({ordering})"
    return (
        create_scorer(SCORER_ID, name="Trajectory Accuracy Scorer", description=description)
        .preprocess(preprocess)
        .generate_score(generate_score)
    )


ENTRY = ScorerEntry(
    name="trajectory-accuracy-code",
    aliases=("trajectory-accuracy",),
    scorer_id=SCORER_ID,
    factory=create_trajectory_accuracy_scorer_code,
    kind="code",
    summary="How well the agent's steps follow an expected trajectory (strict, relaxed, unordered)",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
