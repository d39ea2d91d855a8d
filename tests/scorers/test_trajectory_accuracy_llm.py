"""Trajectory Accuracy (LLM): the conformance corpus and our own rules."""

from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.judge import ScriptedJudge
from scorekit.scorers.trajectory_accuracy_llm import (
    TrajectoryAnalysis,
    create_trajectory_accuracy_scorer_llm,
    trajectory_accuracy_llm_score,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, snake, to_snake
from tests.scorers.recipe_rules import with_optional_lists

CASES = cases_for("trajectory-accuracy-llm", corpus=CATALOG)


def actual_steps(case: dict[str, Any]) -> int:
    return len(case["trajectory"]["steps"])


def wrong_count(case: dict[str, Any], expected: dict[str, Any]) -> bool:
    """row 67: Mastra's accepted analyze reply does not hold one step evaluation per
    top-level step of the trajectory."""
    analysis = expected.get("analyzeStepResult")
    return analysis is not None and len(analysis["stepEvaluations"]) != actual_steps(case)


def mapped(step: dict[str, Any]) -> dict[str, Any]:
    """Mastra's preprocess result with snake_case keys; the trajectory (data) as given."""
    return {snake(k): v for k, v in step.items()}


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    judge = ScriptedJudge(case["judgeResponses"])
    scorer = create_trajectory_accuracy_scorer_llm(model=judge, **options(case))
    if "error" in expected or wrong_count(case, expected):
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**catalog_run_args(case))
        assert info.value.failed_step == "analyze"
        result = info.value.result
        assert result is not None and result.status == "error"
        assert result.preprocess_step_result == mapped(expected["preprocessStepResult"])
        assert len(judge.calls) == 2  # the reply and one repair request
        if "error" not in expected:
            # the count is what was refused: in the repair request when Mastra took the first
            # reply, else in the error after the repair; the formula on Mastra's reply is Mastra's
            count = f"expected exactly {actual_steps(case)} step_evaluations"
            if len(expected["judgeCalls"]) == 2:
                assert count in judge.calls[1].messages[-1].content
            else:
                assert result.error is not None and count in result.error.message
            reply = to_snake(expected["analyzeStepResult"])
            pairs = [(e["was_necessary"], e["was_in_order"]) for e in reply["step_evaluations"]]
            score = trajectory_accuracy_llm_score(
                pairs, len(reply.get("missing_steps", [])), len(reply.get("extra_steps", []))
            )
            assert score == expected["score"]
        return
    result = scorer.run_sync(**catalog_run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result == mapped(expected["preprocessStepResult"])
    # Mastra's replies name each step ("stepName"): kept as an extra key, never read
    # optional lists the judge left out are [] (row 106)
    assert result.analyze_step_result.model_dump() == with_optional_lists(
        to_snake(expected["analyzeStepResult"]), TrajectoryAnalysis
    )
    assert len(judge.calls) == len(expected["judgeCalls"])


def evaluation(necessary: bool = True, in_order: bool = True) -> dict[str, Any]:
    return {"was_necessary": necessary, "was_in_order": in_order, "reasoning": "r"}


TRAJECTORY = {
    "steps": [
        {"stepType": "tool_call", "name": "search", "toolArgs": {"q": "ai"}},
        {
            "stepType": "agent_run",
            "name": "writer",
            "children": [{"stepType": "tool_call", "name": "draft"}],
        },
    ]
}


@pytest.mark.parametrize(
    ("pairs", "missing", "extra", "score"),
    [
        ([(True, True), (True, True)], 0, 0, 0.9),
        ([(True, True), (False, True)], 0, 0, 0.6),
        ([(True, True), (True, True)], 1, 0, 0.87),
        ([], 0, 0, 1.0),
        ([], 1, 0, 0.0),
        ([], 0, 1, 0.5),
    ],
)
def test_spec_vectors(
    pairs: list[tuple[bool, bool]], missing: int, extra: int, score: float
) -> None:
    assert trajectory_accuracy_llm_score(pairs, missing, extra) == score


def test_one_evaluation_per_top_level_step() -> None:
    # row 67: a reply for the wrong number of steps is sent back once with the count
    short = {"step_evaluations": [evaluation()], "overall_assessment": "x"}
    full = {
        "step_evaluations": [evaluation(), evaluation(in_order=False)],
        "overall_assessment": "y",
    }
    judge = ScriptedJudge([short, full, "The score is 0.75 because the writer came late."])
    scorer = create_trajectory_accuracy_scorer_llm(model=judge)
    result = scorer.run_sync(input="Write about AI", output=TRAJECTORY)
    assert result.status == "ok"
    assert result.score == 0.75
    assert "expected exactly 2 step_evaluations" in judge.calls[1].messages[-1].content
    prompt = judge.calls[0].prompt
    assert "Return exactly 2 step evaluations" in prompt
    assert '1. [tool_call] search (args: {"q":"ai"})' in prompt
    assert "  1. [tool_call] draft" in prompt  # a sub-step, judged with its parent
    # the reason prompt names the steps from our copy, by position
    assert "step 2 writer: necessary, out of order" in judge.calls[2].prompt


def test_string_booleans_are_refused() -> None:
    reply = {
        "step_evaluations": [evaluation(), {**evaluation(), "was_necessary": "yes"}],
        "overall_assessment": "x",
    }
    judge = ScriptedJudge([reply, reply])
    scorer = create_trajectory_accuracy_scorer_llm(model=judge)
    with pytest.raises(ScorerRunError):
        scorer.run_sync(input="q", output=TRAJECTORY)


def test_empty_trajectory_asks_only_for_missing_steps() -> None:
    judge = ScriptedJudge(
        [{"step_evaluations": [], "missing_steps": [], "overall_assessment": "x"}, "ok"]
    )
    scorer = create_trajectory_accuracy_scorer_llm(model=judge)
    result = scorer.run_sync(input="Say hi", output={"steps": []})
    assert result.score == 1.0  # nothing was needed and nothing was done (Mastra's score)
    assert result.preprocess_step_result["has_steps"] is False
    assert "The agent took no steps" in judge.calls[0].prompt
    missed = ScriptedJudge(
        [{"step_evaluations": [], "missing_steps": ["search"], "overall_assessment": "x"}, "ok"]
    )
    assert (
        create_trajectory_accuracy_scorer_llm(model=missed)
        .run_sync(input="Find news", output={"steps": []})
        .score
        == 0.0
    )
    # one evaluation for an empty trajectory is refused
    wrong = {"step_evaluations": [evaluation()], "overall_assessment": "x"}
    with pytest.raises(ScorerRunError):
        create_trajectory_accuracy_scorer_llm(model=ScriptedJudge([wrong, wrong])).run_sync(
            input="q", output={"steps": []}
        )


def test_expected_steps_are_shown() -> None:
    judge = ScriptedJudge(
        [{"step_evaluations": [evaluation(), evaluation()], "overall_assessment": "x"}, "ok"]
    )
    expected = [
        {"stepType": "tool_call", "name": "search", "toolArgs": {"q": "ai"}},
        {"name": "write"},
    ]
    scorer = create_trajectory_accuracy_scorer_llm(model=judge, expected_trajectory=expected)
    result = scorer.run_sync(input="q", output=TRAJECTORY)
    formatted = '1. [tool_call] search ({"toolArgs":{"q":"ai"}})\n2. write'
    assert result.preprocess_step_result["expected_trajectory_formatted"] == formatted
    assert formatted in judge.calls[0].prompt
    # without the option, the run's expected steps are shown; empty ones are ignored
    judge2 = ScriptedJudge(
        [{"step_evaluations": [evaluation(), evaluation()], "overall_assessment": "x"}, "ok"]
    )
    plain = create_trajectory_accuracy_scorer_llm(model=judge2)
    result = plain.run_sync(input="q", output=TRAJECTORY, expected_trajectory={"steps": []})
    assert "expected_trajectory_formatted" not in result.preprocess_step_result


def test_messages_are_read_as_a_trajectory() -> None:
    output = [
        {
            "role": "assistant",
            "content": "Found it.",
            "toolInvocations": [
                {"toolCallId": "1", "toolName": "search", "args": "ai", "state": "call"}
            ],
        }
    ]
    judge = ScriptedJudge([{"step_evaluations": [evaluation()], "overall_assessment": "x"}, "ok"])
    result = create_trajectory_accuracy_scorer_llm(model=judge).run_sync(input="q", output=output)
    assert result.score == 0.9
    assert result.preprocess_step_result["actual_trajectory_formatted"] == (
        '1. [tool_call] search (args: {"value":"ai"})'
    )
    assert "Found it." in judge.calls[0].prompt  # the final response, from rawOutput


def test_construction_errors() -> None:
    with pytest.raises(ConfigError):
        create_trajectory_accuracy_scorer_llm(model=ScriptedJudge([]), expected_trajectory={"x": 1})
