"""Tool-Call Accuracy (LLM): parity with Mastra evals 1.10.2 and scorekit's own rules.

How the corpus's judge replies are compared (row 52): Mastra's judge names each
evaluated call by echoing its tool name (``toolCalled``); scorekit's judge names it by its
index among the run's calls (``tool_index``) and the result carries our copy of the name. So
each scripted reply is translated before it is served: an evaluation naming tool X gets the
index of the first call of X not yet taken (in call order) and loses ``toolCalled``; one naming
a tool with no such call left gets an index past the last call (a call that does not exist);
one with no ``toolCalled`` gets no index (it was invalid for Mastra, and stays invalid). Our
result's evaluations are in call order; Mastra's are compared after the same mapping and in
the same order.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.tool_calls import extract_tool_calls
from scorekit.judge import ScriptedJudge
from scorekit.judge.structured import extract_json, parse_output
from scorekit.scorers.replies import LANGUAGE_RULE
from scorekit.scorers.tool_call_accuracy_llm import (
    SCORER_ID,
    NoToolCallAnalysis,
    ToolCallAnalysis,
    analysis_spec,
    create_tool_call_accuracy_scorer_llm,
    tool_call_accuracy_llm_score,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake
from tests.scorers.recipe_rules import with_optional_lists

CASES = cases_for("tool-call-accuracy-llm", corpus=CATALOG)

TOOLS = [
    {"id": "weatherTool", "description": "Get the current weather for a city"},
    {"id": "calendarTool", "description": "Read and write calendar events"},
    {"id": "searchTool", "description": "Search the web"},
]


# --- translating Mastra's replies to scorekit's (see the module docstring) ----------------


def call_indices(evaluations: list[dict[str, Any]], calls: list[str]) -> list[int | None]:
    """The ``tool_index`` each of Mastra's evaluations stands for (``None``: no name)."""
    free = list(range(len(calls)))
    beyond = len(calls)
    indices: list[int | None] = []
    for evaluation in evaluations:
        name = evaluation.get("toolCalled") if isinstance(evaluation, dict) else None
        if name is None:
            indices.append(None)
            continue
        index = next((i for i in free if calls[i] == name), None)
        if index is None:
            index, beyond = beyond, beyond + 1
        else:
            free.remove(index)
        indices.append(index)
    return indices


def translated_reply(data: dict[str, Any], calls: list[str]) -> dict[str, Any]:
    evaluations = data["evaluations"]
    if not isinstance(evaluations, list):
        return data
    ours = []
    for evaluation, index in zip(evaluations, call_indices(evaluations, calls), strict=True):
        rest = {k: v for k, v in evaluation.items() if k != "toolCalled"}
        ours.append(rest if index is None else {"tool_index": index, **rest})
    return {**data, "evaluations": ours}


def translated(reply: Any, calls: list[str]) -> Any:
    if isinstance(reply, dict) and "evaluations" in reply:
        return translated_reply(reply, calls)
    if isinstance(reply, str):
        try:
            data = extract_json(reply)
        except ValueError:
            return reply  # a reason text
        if isinstance(data, dict) and "evaluations" in data:
            return "```json\n" + json.dumps(translated_reply(data, calls), indent=2) + "\n```"
    return reply


def expected_analysis(expected: dict[str, Any]) -> dict[str, Any]:
    """Mastra's analyze step result in our shape: indices added, in call order."""
    analysis = expected["analyzeStepResult"]
    calls = expected["preprocessStepResult"]["actualTools"]
    indices = call_indices(analysis["evaluations"], calls)
    # extra keys of a reply are kept, snake_cased (divergences.md row 29)
    evaluations = [
        {"tool_index": index, **to_snake(e)}
        for e, index in sorted(
            zip(analysis["evaluations"], indices, strict=True), key=lambda pair: pair[1]
        )
    ]
    # an optional list the judge left out is [] (row 106)
    return with_optional_lists({**to_snake(analysis), "evaluations": evaluations}, ToolCallAnalysis)


# --- content predicates for the divergent cases --------------------------------------------


def names_each_call_once(expected: dict[str, Any]) -> bool:
    """Whether Mastra's accepted reply evaluates each call exactly once (row 52)."""
    named = [e["toolCalled"] for e in expected["analyzeStepResult"]["evaluations"]]
    return sorted(named) == sorted(expected["preprocessStepResult"]["actualTools"])


def mastra_formula_score(expected: dict[str, Any]) -> float:
    analysis = expected["analyzeStepResult"]
    return tool_call_accuracy_llm_score(
        [e["wasAppropriate"] for e in analysis["evaluations"]],
        len(analysis.get("missingTools", [])),
    )


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    args = catalog_run_args(case)
    if "error" in expected and "failedStep" not in expected:
        # the factory threw (no availableTools)
        with pytest.raises(ConfigError) as config_error:
            create_tool_call_accuracy_scorer_llm(model=ScriptedJudge([]), **options(case))
        assert config_error.value.field == "available_tools"
        return
    judge_calls = [call.tool_name for call in _calls(args["output"])]
    judge = ScriptedJudge([translated(r, judge_calls) for r in case["judgeResponses"]])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, **options(case))
    if "error" in expected:
        with pytest.raises(ScorerRunError) as run_error:
            scorer.run_sync(**args)
        assert run_error.value.failed_step == expected["failedStep"]
        assert run_error.value.result is not None
        assert run_error.value.result.status == "error"
        assert judge.calls == []
        return
    if not judge_calls and "missingTools" not in (expected.get("analyzeStepResult") or {}):
        # row 53: with no tool called the score rests on missing_tools alone, so it is
        # required: the reply without it is sent back once, then the run fails
        with pytest.raises(ScorerRunError) as run_error:
            scorer.run_sync(**args)
        assert run_error.value.failed_step == "analyze"
        return
    if not names_each_call_once(expected):
        # row 52: the reply is sent back once with the expected count, and the run fails
        with pytest.raises(ScorerRunError) as run_error:
            scorer.run_sync(**args)
        assert run_error.value.failed_step == "analyze"
        result = run_error.value.result
        assert result is not None and result.status == "error"
        assert result.preprocess_step_result == to_snake(expected["preprocessStepResult"])
        # Mastra's accepted reply, as our judge would send it, is refused for its count
        accepted = translated_reply(expected["analyzeStepResult"], judge_calls)
        parsed = parse_output(json.dumps(accepted), analysis_spec(tuple(judge_calls)))
        assert parsed.error is not None
        assert f"expected exactly {len(judge_calls)} evaluations" in parsed.error
        # the formula on Mastra's own labels still gives Mastra's score
        assert mastra_formula_score(expected) == expected["score"]
        return
    result = scorer.run_sync(**args)
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result == to_snake(expected["preprocessStepResult"])
    assert result.analyze_step_result.model_dump(exclude_none=True) == expected_analysis(expected)
    assert len(judge.calls) == len(expected["judgeCalls"])


def _calls(output: Any) -> list[Any]:
    return extract_tool_calls(output) if output else []


# --- focused tests -------------------------------------------------------------------------


def stored(content: str, *invocations: tuple[str, str]) -> dict[str, Any]:
    """An assistant message calling ``(call_id, tool)`` in order, each with a result."""
    return {
        "role": "assistant",
        "content": content,
        "toolInvocations": [
            {"toolCallId": call_id, "toolName": tool, "args": {}, "state": "result", "result": {}}
            for call_id, tool in invocations
        ],
    }


def evaluation(index: int, appropriate: bool, reasoning: str = "r") -> dict[str, Any]:
    return {"tool_index": index, "was_appropriate": appropriate, "reasoning": reasoning}


@pytest.mark.parametrize(
    ("appropriate", "missing", "score"),
    [
        ([True, False, True], 0, 0.67),
        ([], 0, 1.0),
        ([], 1, 0.0),
        ([True] + [False] * 6, 0, 0.14),
        ([True] * 5 + [False] * 3, 0, 0.63),  # 0.625 rounds half up
        ([False], 0, 0.0),
        ([True, True], 2, 1.0),  # missing tools do not count once a call was evaluated
    ],
)
def test_spec_vectors(appropriate: list[bool], missing: int, score: float) -> None:
    assert tool_call_accuracy_llm_score(appropriate, missing) == score


def test_one_evaluation_per_call_by_index_named_with_our_copy() -> None:
    reply = {
        "evaluations": [
            {**evaluation(1, False, "not asked for"), "toolCalled": "bogusTool"},
            evaluation(0, True, "asked for"),
        ],
        "missing_tools": [],
    }
    judge = ScriptedJudge([reply, "The score is 0.5 because one of two calls was needed."])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    output = [stored("Sunny.", ("c1", "weatherTool"), ("c2", "searchTool"))]
    result = scorer.run_sync(input="Weather in Paris?", output=output)
    assert result.status == "ok"
    assert result.score == 0.5
    assert [(e.tool_index, e.tool_called) for e in result.analyze_step_result.evaluations] == [
        (0, "weatherTool"),
        (1, "searchTool"),
    ]
    prompt = judge.calls[0].prompt
    assert "[0] weatherTool\n[1] searchTool" in prompt
    assert "- calendarTool: Read and write calendar events" in prompt
    assert "Weather in Paris?" in prompt and "Sunny." in prompt
    assert LANGUAGE_RULE in prompt
    schema = judge.calls[0].output_schema
    assert schema is not None
    assert (
        schema["properties"]["evaluations"]["minItems"],
        schema["properties"]["evaluations"]["maxItems"],
    ) == (2, 2)
    # the judge is not asked for the name
    assert "tool_called" not in schema["$defs"]["ToolEvaluation"]["properties"]
    reason_prompt = judge.calls[1].prompt
    assert 'Begin with "The score is 0.5 because"' in reason_prompt
    assert "call 2, searchTool: not appropriate (not asked for)" in reason_prompt


def test_a_wrong_count_is_repaired_once_then_fails() -> None:
    two = {"evaluations": [evaluation(0, True), evaluation(1, False)], "missing_tools": []}
    one = {"evaluations": [evaluation(0, True)], "missing_tools": []}
    output = [stored("Sunny.", ("c1", "weatherTool"))]
    judge = ScriptedJudge([two, one, "because"])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    result = scorer.run_sync(input="Weather in Paris?", output=output)
    assert (result.status, result.score, len(judge.calls)) == ("ok", 1.0, 3)
    repair = judge.calls[1].messages[-1].content
    assert "expected exactly 1 evaluations, one for each tool_index from 0 to 0" in repair

    judge = ScriptedJudge([two, two])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="Weather in Paris?", output=output)
    assert info.value.failed_step == "analyze"
    assert info.value.result is not None and info.value.result.error is not None
    assert "tool_index values [0, 1]" in info.value.result.error.message


def test_a_repeated_index_is_refused() -> None:
    twice = {"evaluations": [evaluation(0, True), evaluation(0, True)], "missing_tools": []}
    judge = ScriptedJudge([twice, twice])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    output = [stored("x", ("c1", "weatherTool"), ("c2", "weatherTool"))]
    with pytest.raises(ScorerRunError):
        scorer.run_sync(input="Weather in Paris and Rome?", output=output)


def test_missing_tools_do_not_lower_the_score_once_a_call_was_evaluated() -> None:
    # Mastra parity: the score is the share of appropriate calls; missing tools are reported
    reply = {"evaluations": [evaluation(0, True)], "missing_tools": ["calendarTool"]}
    judge = ScriptedJudge([reply, "The score is 1 because ..."])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    result = scorer.run_sync(
        input="Weather in Paris, and add it to my calendar",
        output=[stored("Sunny.", ("c1", "weatherTool"))],
    )
    assert result.score == 1.0
    assert result.analyze_step_result.missing_tools == ["calendarTool"]
    assert "should have called but did not: calendarTool" in judge.calls[1].prompt


@pytest.mark.parametrize(("missing", "score"), [([], 1.0), (["weatherTool"], 0.0)])
def test_no_call_scores_the_judges_verdict_on_that_choice(missing: list[str], score: float) -> None:
    judge = ScriptedJudge([{"evaluations": [], "missing_tools": missing}, "The score is ..."])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    result = scorer.run_sync(input="Weather?", output="Which city do you mean?")
    assert (result.status, result.score) == ("ok", score)
    assert isinstance(result.analyze_step_result, NoToolCallAnalysis)
    assert result.preprocess_step_result == {
        "actual_tools": [],
        "has_tool_calls": False,
        "tool_call_infos": [],
    }
    prompt = judge.calls[0].prompt
    assert "(none: the agent called no tool)" in prompt
    schema = judge.calls[0].output_schema
    assert schema is not None
    assert schema["properties"]["evaluations"]["maxItems"] == 0
    assert "missing_tools" in schema["required"]


def test_no_call_reply_must_name_missing_tools_and_evaluate_nothing() -> None:
    # row 53: the score rests on missing_tools alone, so it may not be left out
    judge = ScriptedJudge([{"evaluations": []}, {"evaluations": [], "missing_tools": []}, "why"])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    result = scorer.run_sync(input="Weather?", output="Which city?")
    assert (result.status, result.score, len(judge.calls)) == ("ok", 1.0, 3)
    assert "missing_tools" in judge.calls[1].messages[-1].content

    judge = ScriptedJudge([{"evaluations": []}, {"evaluations": []}])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="Weather?", output="Which city?")
    assert info.value.failed_step == "analyze"

    invented = {"evaluations": [evaluation(0, True)], "missing_tools": []}
    judge = ScriptedJudge([invented, invented])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="Weather?", output="Which city?")
    assert info.value.result is not None and info.value.result.error is not None
    assert "evaluations must be an empty list" in info.value.result.error.message


def test_calls_have_optional_missing_tools() -> None:
    judge = ScriptedJudge([{"evaluations": [evaluation(0, False)]}, "why"])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    result = scorer.run_sync(input="Weather?", output=[stored("x", ("c1", "searchTool"))])
    assert result.score == 0.0
    assert isinstance(result.analyze_step_result, ToolCallAnalysis)
    assert result.analyze_step_result.missing_tools == []  # row 106


def test_a_string_boolean_is_refused() -> None:
    # as Mastra's schema refuses it (a lax "true" → True would hide a malformed reply)
    reply = {"evaluations": [{**evaluation(0, True), "was_appropriate": "true"}]}
    judge = ScriptedJudge([reply, reply])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="Weather?", output=[stored("x", ("c1", "weatherTool"))])
    assert info.value.failed_step == "analyze"
    assert len(judge.calls) == 2


def test_extra_keys_are_kept() -> None:
    # divergences.md row 29 (parity)
    reply = {"evaluations": [{**evaluation(0, True), "confidence": "high"}], "note": "n"}
    judge = ScriptedJudge([reply, "why"])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    result = scorer.run_sync(input="Weather?", output=[stored("x", ("c1", "weatherTool"))])
    assert result.analyze_step_result.model_dump(exclude_none=True) == {
        "evaluations": [
            {**evaluation(0, True), "tool_called": "weatherTool", "confidence": "high"}
        ],
        "note": "n",
        "missing_tools": [],
    }


def test_camel_case_replies_are_read() -> None:
    reply = {"evaluations": [{"toolIndex": 0, "wasAppropriate": True, "reasoning": "r"}]}
    judge = ScriptedJudge([reply, "why"])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    result = scorer.run_sync(input="Weather?", output=[stored("x", ("c1", "weatherTool"))])
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (None, "available_tools is required"),
        ("weatherTool", "must be a list"),
        ({"id": "weatherTool", "description": "d"}, "must be a list"),
        ([{"description": "d"}], "needs a non-empty string id"),
        ([{"id": "  ", "description": "d"}], "needs a non-empty string id"),
        ([{"id": "weatherTool"}], "needs a string description"),
        ([3], "needs a non-empty string id"),
    ],
)
def test_available_tools_are_validated(tools: Any, message: str) -> None:
    # row 54: Mastra throws a TypeError for a missing list and renders "undefined"
    # for a missing description
    with pytest.raises(ConfigError) as info:
        create_tool_call_accuracy_scorer_llm(model=ScriptedJudge([]), available_tools=tools)
    assert info.value.field == "available_tools"
    assert message in str(info.value)


def test_tool_objects_and_an_empty_tool_list_are_accepted() -> None:
    tool = SimpleNamespace(id="weatherTool", description="Current weather")
    judge = ScriptedJudge([{"evaluations": [evaluation(0, True)]}, "why"])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=[tool])
    scorer.run_sync(input="Weather?", output=[stored("x", ("c1", "weatherTool"))])
    assert "- weatherTool: Current weather" in judge.calls[0].prompt

    judge = ScriptedJudge([{"evaluations": [], "missing_tools": []}, "why"])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=[])
    assert scorer.run_sync(input="Weather?", output="I have no tools.").score == 1.0
    assert "(the agent had no tools)" in judge.calls[0].prompt


@pytest.mark.parametrize(
    ("run", "field"),
    [
        ({"input": [], "output": "x"}, "input"),
        ({"input": None, "output": "x"}, "input"),
        ({"input": "Weather?", "output": []}, "output"),
    ],
)
def test_an_empty_input_or_output_fails_in_preprocess(run: dict[str, Any], field: str) -> None:
    judge = ScriptedJudge([])
    scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=TOOLS)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(**run)
    assert info.value.failed_step == "preprocess"
    assert isinstance(info.value.__cause__, ConfigError)
    assert info.value.__cause__.field == field
    assert judge.calls == []


def test_scorer_id() -> None:
    scorer = create_tool_call_accuracy_scorer_llm(model=ScriptedJudge([]), available_tools=TOOLS)
    assert scorer.id == SCORER_ID == "llm-tool-call-accuracy-scorer"
    assert [step.name for step in scorer.get_steps()] == [
        "preprocess",
        "analyze",
        "generate_score",
        "generate_reason",
    ]


def test_docstring_examples() -> None:
    import doctest

    from scorekit.scorers import tool_call_accuracy_llm

    result = doctest.testmod(tool_call_accuracy_llm)
    assert result.attempted > 0 and result.failed == 0


def test_missing_tools_name_only_available_tools_once() -> None:
    # row 72: a missing tool the agent could not have called scores nothing
    tools = [
        {"id": "weather", "description": "the weather"},
        {"id": "calendar", "description": "c"},
    ]
    bad = {"evaluations": [], "missing_tools": ["nonexistentTool"]}
    twice = {"evaluations": [], "missing_tools": ["weather", "weather"]}
    good = {"evaluations": [], "missing_tools": ["weather"]}
    output = [{"role": "assistant", "content": "Which city?"}]
    for first in (bad, twice):
        judge = ScriptedJudge([first, good, "why"])
        scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=tools)
        result = scorer.run_sync(input="What's the weather?", output=output)
        assert (result.status, result.score, len(judge.calls)) == ("ok", 0.0, 3)
    schema = analysis_spec((), ("weather", "calendar")).json_schema
    assert schema["properties"]["missing_tools"] == {
        "items": {"type": "string", "enum": ["weather", "calendar"]},
        "type": "array",
        "uniqueItems": True,
        "maxItems": 2,  # each available tool at most once: the reply stays bounded
    }
