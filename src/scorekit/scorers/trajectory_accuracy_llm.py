"""Trajectory Accuracy (LLM): a judge's view of whether the agent's steps were the right ones.

Score range ``[0, 1]``; higher is better. The run's output is a trajectory, or messages whose
tool calls form one (:func:`scorekit.inputs.trajectories.trajectory_of`). The judge sees the user's
request, the agent's final answer (from the trajectory's ``rawOutput``), the steps numbered from
1 (sub-steps indented under their parent) and the expected steps, if any; it evaluates each
top-level step (necessary? in order?) and lists the missing and extra steps. Then (Mastra evals
1.10.2 ``createTrajectoryAccuracyScorerLLM``, mastra-scorers.md §4.16), with ``n`` evaluations
and ``k`` missing steps::

    n > 0:  score = round2(clamp(0.6 × necessary/n + 0.3 × in_order/n − 0.1 × k/(n + k)))
    n = 0:  0 when steps are missing, else 0.5 when extra steps are named, else 1

A trajectory with steps therefore scores at most 0.9, while one without steps that misses
nothing scores 1; both are Mastra's and kept (a judge's verdict on an empty trajectory is a
measurement: it says whether steps were needed). Expected steps: the factory's
``expected_trajectory``, else the run's ``expected_trajectory`` steps when there are any.

Judge calls: analyze (one evaluation per top-level step, by position: the JSON schema sent asks
for exactly that many, none for an empty trajectory) and the reason (one sentence, in the
language of the user's request).

Divergences (docs/divergences.md): 6 (the step result keeps labels as validated), 10
(snake_case results), 26 and row 67 (exactly one evaluation per top-level step: a reply
with another count is sent back once, then the run fails; Mastra scores whatever evaluations
the judge returned).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field, StrictBool

from scorekit.inputs.messages import get_assistant_message, get_user_message
from scorekit.inputs.trajectories import expected_steps_of, js_stringify, trajectory_of
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.pipeline import PromptStep, Scorer, StepContext
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers import trajectory_accuracy_llm_prompts as prompts
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.replies import EXPECTED_ITEMS, CountedReply, JudgeReply

__all__ = [
    "ENTRY",
    "SCORER_ID",
    "StepEvaluation",
    "TrajectoryAnalysis",
    "create_trajectory_accuracy_scorer_llm",
    "format_expected_steps",
    "format_trajectory",
    "trajectory_accuracy_llm_score",
]

SCORER_ID = "llm-trajectory-accuracy-scorer"
"""The scorer's stable id (Mastra's)."""


class StepEvaluation(JudgeReply):
    """The judge's view of one top-level step (the i-th evaluation is for step i + 1)."""

    was_necessary: StrictBool
    """Whether the task needed the step."""
    was_in_order: StrictBool
    """Whether the step came at a sensible point of the sequence."""
    reasoning: str
    """Why, in the language of the user's request."""


class TrajectoryAnalysis(CountedReply):
    """The analyze step's result: ``expecting(n)`` asks for one evaluation per top-level step.

    A reply recorded from Mastra also names each step (``stepName``): the name is kept, as an
    extra key, and never read; the scorer knows the steps by position.
    """

    ITEMS: ClassVar[str] = "step_evaluations"
    ITEM_OF: ClassVar[str] = "top-level step"

    step_evaluations: list[StepEvaluation]
    """One evaluation per top-level step, in step order."""
    missing_steps: list[str] = Field(default_factory=list)
    """Steps the task needed that the agent did not take."""
    extra_steps: list[str] = Field(default_factory=list)
    """Steps the agent took that the task did not need."""
    overall_assessment: str
    """A summary of the trajectory's quality."""


def _no_steps_schema() -> SchemaSpec:
    schema = TrajectoryAnalysis.model_json_schema()
    schema["properties"]["step_evaluations"] = {
        **schema["properties"]["step_evaluations"],
        "maxItems": 0,
    }
    return SchemaSpec("TrajectoryAnalysis", schema, TrajectoryAnalysis, {EXPECTED_ITEMS: 0})


_NO_STEPS = _no_steps_schema().check()


def trajectory_accuracy_llm_score(
    evaluations: Sequence[tuple[bool, bool]], missing: int, extra: int
) -> float:
    """Return the score of a judge's evaluations (formula in the module docstring).

    Args:
        evaluations: ``(was_necessary, was_in_order)`` of each evaluated step.
        missing: how many missing steps the judge named.
        extra: how many extra steps the judge named.

    Example:
        >>> trajectory_accuracy_llm_score([(True, True), (True, True)], 0, 0)
        0.9
        >>> trajectory_accuracy_llm_score([], 0, 0)
        1.0
    """
    if not evaluations:
        return 0.0 if missing else 0.5 if extra else 1.0
    n = len(evaluations)
    necessary = sum(1 for needed, _ in evaluations if needed)
    in_order = sum(1 for _, ordered in evaluations if ordered)
    penalty = missing / (n + missing) if missing else 0
    score = necessary / n * 0.6 + in_order / n * 0.3 - penalty * 0.1
    return round_to_two_decimals(max(0.0, min(1.0, score)))


def _json(value: Any) -> str:
    text = js_stringify(value)
    return "undefined" if text is None else text


def _details(step: Mapping[str, Any]) -> str:
    step_type = step.get("stepType")
    if step_type in ("tool_call", "mcp_tool_call"):
        parts = [
            f"{label}: {_json(step[key])}"
            for key, label in (("toolArgs", "args"), ("toolResult", "result"))
            if key in step
        ]
        return f" ({', '.join(parts)})" if parts else ""
    if step_type == "model_generation":
        return f" (model: {step['modelId']})" if step.get("modelId") else ""
    if step_type == "workflow_step" and "output" in step:
        return f" (output: {_json(step['output'])})"
    return ""


def _lines(steps: Sequence[Mapping[str, Any]], render: Any, children: Any) -> str:
    """Number ``steps`` from 1 per level, children indented two spaces (no recursion)."""
    out: list[str] = []
    stack: list[tuple[Sequence[Mapping[str, Any]], int, int]] = [(steps, 0, 0)]
    while stack:
        level, at, depth = stack.pop()
        if at >= len(level):
            continue
        step = level[at]
        out.append(f"{'  ' * depth}{at + 1}. {render(step)}")
        stack.append((level, at + 1, depth))
        below = children(step)
        if below:
            stack.append((below, 0, depth + 1))
    return "\n".join(out)


def format_trajectory(steps: Sequence[Mapping[str, Any]]) -> str:
    """Write steps as Mastra's ``actualTrajectoryFormatted``.

    ``1. [tool_call] search (args: {...}, result: {...})``, children indented and numbered from
    1 under their parent.
    """

    def render(step: Mapping[str, Any]) -> str:
        step_type = step.get("stepType")
        return f"[{'undefined' if step_type is None else step_type}] {step['name']}{_details(step)}"

    def children(step: Mapping[str, Any]) -> Any:
        return step.get("children") or None

    return _lines(steps, render, children)


def format_expected_steps(steps: Sequence[Mapping[str, Any]]) -> str:
    """Write expected steps as Mastra's ``expectedTrajectoryFormatted``.

    ``1. [tool_call] search ({"toolArgs": ...})``, the type omitted when unset, the other fields
    as JSON.
    """

    def render(step: Mapping[str, Any]) -> str:
        kind = f"[{step['stepType']}] " if step.get("stepType") else ""
        fields = {k: v for k, v in step.items() if k not in ("name", "stepType", "children")}
        data = f" ({_json(fields)})" if fields else ""
        return f"{kind}{step['name']}{data}"

    def children(step: Mapping[str, Any]) -> Any:
        nested = step.get("children")
        return nested.get("steps") or None if isinstance(nested, Mapping) else None

    return _lines(steps, render, children)


def _run_expected(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        value = {"steps": value}
    if isinstance(value, Mapping) and value.get("steps"):
        return expected_steps_of(list(value["steps"]), field="expected_trajectory.steps")
    return None


def create_trajectory_accuracy_scorer_llm(
    *,
    model: str | JudgeModel | Judge,
    expected_trajectory: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None = None,
) -> Scorer:
    """Create the Trajectory Accuracy (LLM) scorer (formula in the module docstring).

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        expected_trajectory: the expected steps shown to the judge, in Mastra's shape: a list of
            expected steps (as given) or a trajectory ``{"steps": [...]}`` (``durationMs`` and
            ``metadata`` dropped, ``children`` nested). Without it, each run's
            ``expected_trajectory`` steps are shown when there are any.

    Returns:
        A scorer whose ``preprocess_step_result`` is ``{"actual_trajectory",
        "actual_trajectory_formatted", "expected_trajectory_formatted"?, "has_steps"}`` and whose
        ``analyze_step_result`` is a :class:`TrajectoryAnalysis`.

    Raises:
        ConfigError: ``model`` is not a judge, or a malformed ``expected_trajectory``. At run
            time (status ``error``): an output trajectory without a ``steps`` list, or a judge
            reply that fails its schema (wrong count included) twice.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> judge = ScriptedJudge([{"step_evaluations": [{"was_necessary": True,
        ...     "was_in_order": True, "reasoning": "needed"}], "overall_assessment": "fine"},
        ...     "The score is 0.9 because the one search was needed."])
        >>> scorer = create_trajectory_accuracy_scorer_llm(model=judge)
        >>> scorer.run_sync(input="Find AI news", output={"steps": [
        ...     {"stepType": "tool_call", "name": "search"}]}).score
        0.9
    """
    static = (
        expected_steps_of(expected_trajectory, field="expected_trajectory")
        if expected_trajectory is not None
        else None
    )

    def preprocess(ctx: StepContext) -> dict[str, Any]:
        actual = trajectory_of(ctx.run.output)
        expected = static if static is not None else _run_expected(ctx.run.expected_trajectory)
        result: dict[str, Any] = {
            "actual_trajectory": actual,
            "actual_trajectory_formatted": format_trajectory(actual["steps"]),
        }
        if expected is not None:
            result["expected_trajectory_formatted"] = format_expected_steps(expected)
        result["has_steps"] = bool(actual["steps"])
        return result

    def analyze_prompt(ctx: StepContext) -> str:
        step = ctx.results.preprocess_step_result
        return prompts.analyze_prompt(
            get_user_message(ctx.run.input) or "",
            get_assistant_message(step["actual_trajectory"].get("rawOutput")) or "",
            step["actual_trajectory_formatted"],
            len(step["actual_trajectory"]["steps"]),
            step.get("expected_trajectory_formatted"),
        )

    def analyze_schema(ctx: StepContext) -> SchemaSpec:
        count = len(ctx.results.preprocess_step_result["actual_trajectory"]["steps"])
        return TrajectoryAnalysis.expecting(count) if count else _NO_STEPS

    def generate_score(ctx: StepContext) -> float:
        analysis: TrajectoryAnalysis = ctx.results.analyze_step_result
        return trajectory_accuracy_llm_score(
            [(e.was_necessary, e.was_in_order) for e in analysis.step_evaluations],
            len(analysis.missing_steps),
            len(analysis.extra_steps),
        )

    def reason_prompt(ctx: StepContext) -> str:
        analysis: TrajectoryAnalysis = ctx.results.analyze_step_result
        steps = ctx.results.preprocess_step_result["actual_trajectory"]["steps"]
        judgements = [
            f"step {i + 1} {step['name']}: "
            f"{'necessary' if e.was_necessary else 'not necessary'}, "
            f"{'in order' if e.was_in_order else 'out of order'} ({e.reasoning})"
            for i, (step, e) in enumerate(zip(steps, analysis.step_evaluations, strict=False))
        ]
        return prompts.reason_prompt(
            get_user_message(ctx.run.input) or "",
            js_number_text(ctx.score or 0.0),
            judgements,
            analysis.missing_steps,
            analysis.extra_steps,
        )

    description = (
        "Judges the trajectory against an expected trajectory"
        if static is not None
        else "Judges whether the trajectory's steps were needed and well ordered"
    )
    return judged_scorer(
        SCORER_ID,
        name="Trajectory Accuracy (LLM)",
        description=description,
        model=model,
        instructions=prompts.INSTRUCTIONS,
        preprocess=preprocess,
        analyze=PromptStep("Evaluate each step of the trajectory", analyze_prompt, analyze_schema),
        score=generate_score,
        reason=PromptStep("Explain the score", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="trajectory-accuracy-llm",
    scorer_id=SCORER_ID,
    factory=create_trajectory_accuracy_scorer_llm,
    kind="llm",
    summary="A judge's view of whether each step of the agent's trajectory was needed and in order",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
