from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.judge import ScriptedJudge
from scorekit.scorers.prompt_alignment import (
    PromptAlignmentAnalysis,
    create_prompt_alignment_scorer_llm,
    prompt_alignment_score,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake

CASES = cases_for("prompt-alignment", corpus=CATALOG)
MODES = ("user", "system", "both")
DIMENSIONS = (
    "intentAlignment",
    "requirementsFulfillment",
    "completeness",
    "responseAppropriateness",
)


def case_options(case: dict[str, Any]) -> dict[str, Any]:
    opts = options(case)
    history = opts.get("include_conversation_history")
    if isinstance(history, dict):  # a nested option: snake_case at every level
        opts["include_conversation_history"] = to_snake(history)
    return opts


def dimension_scores(reply: dict[str, Any]) -> list[float]:
    """IA, RF, C, RA of a Mastra-shaped reply."""
    return [
        reply["intentAlignment"]["score"],
        reply["requirementsFulfillment"]["overallScore"],
        reply["completeness"]["score"],
        reply["responseAppropriateness"]["score"],
    ]


def is_analysis(reply: Any) -> bool:
    """The reply is a dict with all four aspects."""
    return isinstance(reply, dict) and all(d in reply for d in DIMENSIONS)


def out_of_range(case: dict[str, Any]) -> bool:
    """The case's first judge reply holds an aspect score outside [0, 1]."""
    reply = case["judgeResponses"][0]
    return is_analysis(reply) and any(not 0 <= score <= 1 for score in dimension_scores(reply))


def unknown_mode(case: dict[str, Any]) -> bool:
    """The case's ``evaluationMode`` is none of Mastra's three."""
    mode = (case.get("options") or {}).get("evaluationMode")
    return mode is not None and mode not in MODES


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    judge = ScriptedJudge(case.get("judgeResponses", []))
    if unknown_mode(case):
        # row 44: Mastra takes any mode and scores it with the user weights
        with pytest.raises(ConfigError) as info:
            create_prompt_alignment_scorer_llm(model=judge, **case_options(case))
        assert info.value.field == "evaluation_mode"
        dims = dimension_scores(expected["analyzeStepResult"])
        assert prompt_alignment_score(*dims, mode="user") == expected["score"]
        return
    scorer = create_prompt_alignment_scorer_llm(model=judge, **case_options(case))
    if "error" in expected or out_of_range(case):
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**catalog_run_args(case))
        assert info.value.failed_step == "analyze"
        assert info.value.result is not None and info.value.result.status == "error"
        if out_of_range(case):
            # row 43: the reply is sent back once (the next scripted reply is the reason
            # text, which is no analysis); Mastra's score is the formula on the raw values
            assert len(judge.calls) == 2
            assert "less than or equal to 1" in judge.calls[1].messages[-1].content or (
                "greater than or equal to 0" in judge.calls[1].messages[-1].content
            )
            mode = case_options(case).get("evaluation_mode", "both")
            dims = dimension_scores(expected["analyzeStepResult"])
            assert prompt_alignment_score(*dims, mode=mode) == expected["score"]
        elif is_analysis(case["judgeResponses"][0]):
            # the run's input fails Mastra's checks: no judge call
            assert judge.calls == []
        else:
            # two schema-invalid replies: one request and one repair
            assert len(judge.calls) == 2
        return
    result = scorer.run_sync(**catalog_run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result is None
    assert result.analyze_step_result.model_dump() == to_snake(expected["analyzeStepResult"])
    assert len(judge.calls) == len(expected["judgeCalls"])


# ---- focused tests -----------------------------------------------------------------------


def reply(ia: float = 1, rf: float = 1, c: float = 1, ra: float = 1) -> dict[str, Any]:
    return {
        "intent_alignment": {
            "score": ia,
            "primary_intent": "write a factorial",
            "is_addressed": True,
            "reasoning": "r",
        },
        "requirements_fulfillment": {
            "requirements": [
                {"requirement": "a function", "is_fulfilled": True, "reasoning": "r"},
                {"requirement": "handle negatives", "is_fulfilled": False, "reasoning": "r"},
            ],
            "overall_score": rf,
        },
        "completeness": {"score": c, "missing_elements": ["docstring"], "reasoning": "r"},
        "response_appropriateness": {
            "score": ra,
            "format_alignment": True,
            "tone_alignment": False,
            "reasoning": "r",
        },
        "overall_assessment": "overall",
    }


AGENT_INPUT = {
    "inputMessages": [{"id": "u", "role": "user", "content": "Write a factorial in Python."}],
    "rememberedMessages": [
        {"id": "r0", "role": "user", "content": "Earlier question"},
        {"id": "r1", "role": "assistant", "content": "Earlier answer"},
    ],
    "systemMessages": [{"role": "system", "content": "Answer with code only."}],
    "taggedSystemMessages": {},
}
OUTPUT = "def f(n): return 1 if n == 0 else n * f(n - 1)"


@pytest.mark.parametrize(
    ("dims", "mode", "score"),
    [
        ((1, 1, 0.9, 1), "user", 0.98),
        ((1, 1, 0.9, 1), "system", 0.99),  # 0.985 rounds up with Mastra's EPSILON
        ((1, 1, 0.9, 1), "both", 0.98),
        ((0.8, 0.5, 0.6, 1), "user", 0.69),
        ((0.8, 0.5, 0.6, 1), "system", 0.7),
        ((0.8, 0.5, 0.6, 1), "both", 0.69),
    ],
)
def test_spec_vectors(dims: tuple[float, ...], mode: Any, score: float) -> None:
    assert prompt_alignment_score(*dims, mode=mode) == score


def test_both_mode_uses_the_user_weights() -> None:
    # kept for parity: Mastra's "system part" of both mode is a copy of the user score
    for dims in [(0.3, 0.9, 0.1, 0.7), (1 / 3, 2 / 3, 0.5, 0.25), (0, 1, 0, 1)]:
        assert prompt_alignment_score(*dims, mode="both") == prompt_alignment_score(
            *dims, mode="user"
        )


def test_scale_multiplies_before_rounding() -> None:
    judge = ScriptedJudge([reply(1, 1, 0.9, 1), "why"])
    scorer = create_prompt_alignment_scorer_llm(model=judge, evaluation_mode="system", scale=10)
    assert scorer.run_sync(input=AGENT_INPUT, output=OUTPUT).score == 9.85


@pytest.mark.parametrize(("dims", "bad"), [((1.2, 1.5, 1, 1), 1.2), ((-0.5, 0, 0, 0), -0.5)])
def test_out_of_range_scores_are_repaired(dims: tuple[float, ...], bad: float) -> None:
    # row 43: Mastra would score 1.23 or -0.2; scorekit sends the reply back once
    judge = ScriptedJudge([reply(*dims), reply(1, 1, 1, 1), "why"])
    scorer = create_prompt_alignment_scorer_llm(model=judge, evaluation_mode="user")
    result = scorer.run_sync(input=AGENT_INPUT, output=OUTPUT)
    assert (result.status, result.score, len(judge.calls)) == ("ok", 1.0, 3)
    assert "intent_alignment.score" in judge.calls[1].messages[-1].content


def test_out_of_range_scores_twice_fail_the_run() -> None:
    judge = ScriptedJudge([reply(1.2), reply(1, 1, 1, 2)])
    scorer = create_prompt_alignment_scorer_llm(model=judge)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input=AGENT_INPUT, output=OUTPUT)
    assert info.value.result.status == "error"
    assert info.value.result.error.raw_output is not None


def test_the_schema_bounds_every_aspect_score() -> None:
    defs = PromptAlignmentAnalysis.model_json_schema()["$defs"]
    for name, key in [
        ("IntentAlignment", "score"),
        ("RequirementsFulfillment", "overall_score"),
        ("Completeness", "score"),
        ("ResponseAppropriateness", "score"),
    ]:
        assert (
            defs[name]["properties"][key]["minimum"],
            defs[name]["properties"][key]["maximum"],
        ) == (0, 1)


@pytest.mark.parametrize("mode", ["USER", "User", "combined", ""])
def test_unknown_mode_is_a_config_error(mode: str) -> None:
    # row 44
    with pytest.raises(ConfigError) as info:
        create_prompt_alignment_scorer_llm(model=ScriptedJudge([]), evaluation_mode=mode)  # type: ignore[arg-type]
    assert info.value.field == "evaluation_mode"


def test_unknown_mode_suggests_the_right_one() -> None:
    with pytest.raises(ConfigError, match="did you mean 'user'"):
        create_prompt_alignment_scorer_llm(model=ScriptedJudge([]), evaluation_mode="USER")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"scale": 0}, "scale"),
        ({"scale": float("nan")}, "scale"),
        ({"include_conversation_history": "yes"}, "include_conversation_history"),
        ({"include_conversation_history": {"maxMessages": 3}}, "include_conversation_history"),
        (
            {"include_conversation_history": {"max_messages": -1}},
            "include_conversation_history.max_messages",
        ),
        (
            {"include_conversation_history": {"max_messages": 2.5}},
            "include_conversation_history.max_messages",
        ),
    ],
)
def test_construction_errors(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_prompt_alignment_scorer_llm(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


def test_camel_case_history_key_gets_a_hint() -> None:
    with pytest.raises(ConfigError, match="did you mean 'max_messages'"):
        create_prompt_alignment_scorer_llm(
            model=ScriptedJudge([]), include_conversation_history={"maxMessages": 3}
        )


def prompt_of(**kwargs: Any) -> str:
    judge = ScriptedJudge([reply(), "why"])
    create_prompt_alignment_scorer_llm(model=judge, **kwargs).run_sync(
        input=AGENT_INPUT, output=OUTPUT
    )
    return judge.calls[0].prompt


def test_history_is_shown_only_when_asked() -> None:
    assert "Earlier answer" not in prompt_of()
    full = prompt_of(include_conversation_history=True)
    assert "user: Earlier question\nassistant: Earlier answer" in full
    assert "context only" in full
    last = prompt_of(include_conversation_history={"max_messages": 1})
    assert "assistant: Earlier answer" in last and "Earlier question" not in last
    assert "Earlier" not in prompt_of(include_conversation_history={"max_messages": 0})


def test_each_mode_shows_its_prompts() -> None:
    user = prompt_of(evaluation_mode="user")
    assert "Write a factorial in Python." in user and "Answer with code only." not in user
    system = prompt_of(evaluation_mode="system")
    assert "Answer with code only." in system and "User prompt:" not in system
    both = prompt_of()
    assert "Write a factorial in Python." in both and "Answer with code only." in both
    assert "language the user's query is written in" in both


def test_the_reason_prompt_names_the_mode_weights() -> None:
    judge = ScriptedJudge([reply(1, 1, 0.9, 1), "The score is 0.99 because ..."])
    scorer = create_prompt_alignment_scorer_llm(model=judge, evaluation_mode="system")
    result = scorer.run_sync(input=AGENT_INPUT, output=OUTPUT)
    assert result.reason == "The score is 0.99 because ..."
    reason_prompt = judge.calls[1].prompt
    assert "intent alignment (0.35): 1" in reason_prompt
    assert "1 of 2 met" in reason_prompt
    assert 'Begin with "The score is 0.99 because"' in reason_prompt


@pytest.mark.parametrize(
    ("mode", "run_input", "output", "field"),
    [
        ("user", {"inputMessages": [], "systemMessages": ["sys"]}, OUTPUT, "input"),
        ("system", "only a user prompt", OUTPUT, "input"),
        ("both", {"inputMessages": []}, OUTPUT, "input"),
        ("both", "q", "", "output"),
    ],
)
def test_missing_texts_fail_the_run_without_a_judge_call(
    mode: Any, run_input: Any, output: Any, field: str
) -> None:
    judge = ScriptedJudge([])
    scorer = create_prompt_alignment_scorer_llm(model=judge, evaluation_mode=mode)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input=run_input, output=output)
    assert info.value.failed_step == "analyze"
    assert isinstance(info.value.__cause__, ConfigError)
    assert info.value.__cause__.field == field
    assert judge.calls == []


def test_camel_case_replies_are_accepted() -> None:
    camel = {
        "intentAlignment": {
            "score": 0.8,
            "primaryIntent": "p",
            "isAddressed": True,
            "reasoning": "r",
        },
        "requirementsFulfillment": {
            "requirements": [{"requirement": "q", "isFulfilled": True, "reasoning": "r"}],
            "overallScore": 0.5,
        },
        "completeness": {"score": 0.6, "missingElements": [], "reasoning": "r"},
        "responseAppropriateness": {
            "score": 1,
            "formatAlignment": True,
            "toneAlignment": True,
            "reasoning": "r",
        },
        "overallAssessment": "o",
    }
    judge = ScriptedJudge([camel, "why"])
    scorer = create_prompt_alignment_scorer_llm(model=judge, evaluation_mode="user")
    result = scorer.run_sync(input=AGENT_INPUT, output=OUTPUT)
    assert result.score == 0.69
    assert result.analyze_step_result.requirements_fulfillment.overall_score == 0.5
