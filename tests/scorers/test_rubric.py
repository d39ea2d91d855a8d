from __future__ import annotations

import re
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.judge import ScriptedJudge
from scorekit.scorers.rubric import (
    EMPTY_RESPONSE_REASON,
    NO_RUBRIC_REASON,
    Rubric,
    RubricCriterion,
    RubricVerdicts,
    _response_text,
    create_rubric_scorer,
    parse_rubric,
    rubric_score,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options

CASES = cases_for("rubric", corpus=CATALOG)

# ---- Mastra's rubric, as its own analyze prompt shows it, and its score and reason ----------

_MASTRA_LINE = re.compile(r"^\d+\. \[(required|optional)\] (.*)$")


def mastra_rubric(expected: dict[str, Any]) -> list[tuple[str, bool]] | None:
    """The criteria Mastra resolved for a case (text, required), read from its analyze prompt;
    ``None`` when its prompt says no rubric was provided."""
    prompt = expected["analyzePrompt"]
    if prompt.startswith("No rubric was provided"):
        return None
    section = prompt.split("Rubric criteria:\n", 1)[1].split("\n\n", 1)[0]
    found = [_MASTRA_LINE.match(line) for line in section.splitlines()]
    return [(m.group(2), m.group(1) == "required") for m in found if m]


def mastra_score(reply: dict[str, Any], scale: float) -> float:
    """Mastra 1.10.2's score of a reply (spec §4.12): the gate is the echoed required flags."""
    criteria = reply["criteria"]
    if not criteria:
        return 1
    gate = [c for c in criteria if c["required"]] or criteria
    return (1 if all(c["satisfied"] for c in gate) else 0) * scale


def mastra_reason(reply: dict[str, Any], score: float) -> str:
    """Mastra 1.10.2's reason of a reply (spec §4.12), built from the echoed texts and flags."""
    passed = score >= 1
    text = (
        "✅ Rubric satisfied: every required criterion is met."
        if passed
        else "❌ Rubric not yet satisfied."
    )
    text += "\n\n" + "\n".join(
        f"{'✅' if c['satisfied'] else '❌'} [{'required' if c['required'] else 'optional'}] "
        f"{c['criterion']}\n   → {c['reasoning']}"
        for c in reply["criteria"]
    )
    if reply["overallAssessment"]:
        text += "\n\n" + reply["overallAssessment"]
    if not passed:
        unmet = sum(1 for c in reply["criteria"] if c["required"] and not c["satisfied"])
        text += f"\n\nTo finish, address the {unmet} unmet required "
        text += ("criterion" if unmet == 1 else "criteria") + " above."
    return text


def faithful(reply: dict[str, Any], rubric: list[tuple[str, bool]]) -> dict[str, Any]:
    """The reply as it would be had the judge echoed our criteria exactly (row 58)."""
    return {
        **reply,
        "criteria": [
            {**c, "criterion": text, "required": required}
            for c, (text, required) in zip(reply["criteria"], rubric, strict=True)
        ],
    }


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


def test_the_oracle_reproduces_mastra() -> None:
    # the test's re-statement of Mastra's score and reason, checked on every scored case
    for case, expected in CASES:
        if "error" in expected:
            continue
        scale = options(case).get("scale", 1)
        reply = expected["analyzeStepResult"]
        assert mastra_score(reply, scale) == expected["score"]
        if reply["criteria"]:
            assert mastra_reason(reply, expected["score"]) == expected["reason"]


def blank_response_free(case: dict[str, Any]) -> bool:
    """Whether the run's response (the agent's message, else the input's ``currentText``) has
    text: the response the rubric scorer grades."""
    from scorekit.pipeline import ScorerRun

    args = catalog_run_args(case)
    run = ScorerRun(input=args.get("input"), output=args.get("output"))
    return bool(_response_text(run).strip())


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    judge = ScriptedJudge(case["judgeResponses"])
    scorer = create_rubric_scorer(model=judge, **options(case))
    if "error" in expected:
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**catalog_run_args(case))
        assert info.value.failed_step == "analyze"
        assert len(judge.calls) == len(case["judgeResponses"])
        return
    rubric = mastra_rubric(expected)
    if rubric is None:
        # row 60: Mastra's own prompt says no rubric was provided; scorekit skips the run
        # without asking the judge (Mastra scores 1 unscaled, or grades invented criteria)
        result = scorer.run_sync(**catalog_run_args(case))
        assert (result.status, result.score, result.reason) == ("skipped", None, NO_RUBRIC_REASON)
        assert judge.calls == []
        return
    if not blank_response_free(case):
        # row 73: an empty response is not graded (Mastra shows the judge "(empty output)")
        result = scorer.run_sync(**catalog_run_args(case))
        assert (result.status, result.score) == ("skipped", None)
        assert result.reason == EMPTY_RESPONSE_REASON
        assert judge.calls == []
        return
    reply = expected["analyzeStepResult"]
    if len(reply["criteria"]) != len(rubric):
        # row 59: the reply Mastra graded leaves criteria out; scorekit asks once more with
        # the expected count, and fails when no valid reply comes
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**catalog_run_args(case))
        assert f"expected exactly {len(rubric)} criteria" in judge.calls[1].messages[-1].content
        assert info.value.result is not None and info.value.result.status == "error"
        return
    result = scorer.run_sync(**catalog_run_args(case))
    assert result.status == "ok"
    assert len(judge.calls) == len(expected["judgeCalls"])
    # preprocess: the rubric used (Mastra has no preprocess step: null)
    assert isinstance(result.preprocess_step_result, Rubric)
    ours = [(c.description, c.required) for c in result.preprocess_step_result.criteria]
    assert ours == rubric
    # analyze: the verdicts without the judge's echoes (row 58); no criterion_index in
    # Mastra-shaped replies, so the verdicts are read in order
    assert result.analyze_step_result.model_dump() == {
        "criteria": [
            {"criterion_index": None, "satisfied": c["satisfied"], "reasoning": c["reasoning"]}
            for c in reply["criteria"]
        ],
        "overall_assessment": reply["overallAssessment"],
    }
    scale = options(case).get("scale", 1)
    echo = [(c["criterion"], c["required"]) for c in reply["criteria"]]
    if echo == rubric:
        assert result.score == expected["score"]
        assert result.reason == expected["reason"]
    else:
        # row 58: the judge echoed other texts or required flags than the rubric's; the
        # score and reason are Mastra's on a reply that echoed the rubric faithfully
        fixed = faithful(reply, rubric)
        assert result.score == mastra_score(fixed, scale)
        assert result.reason == mastra_reason(fixed, result.score)


# ---- focused tests -----------------------------------------------------------------------

RUBRIC = [
    {"description": "Has an analysis section"},
    {"description": "Gives recommendations"},
    {"description": "Cites a source", "required": False},
]


def verdicts(*met: bool, indexed: bool = True, overall: str = "overall") -> dict[str, Any]:
    return {
        "criteria": [
            {"satisfied": m, "reasoning": f"why {i}", **({"criterion_index": i} if indexed else {})}
            for i, m in enumerate(met)
        ],
        "overall_assessment": overall,
    }


@pytest.mark.parametrize(
    ("satisfied", "required", "scale", "score"),
    [
        ([True, True, False], [True, True, False], 1.0, 1.0),
        ([True, False, True], [True, True, False], 1.0, 0.0),
        ([True, True, True], [False, False, False], 10.0, 10.0),
        ([True, False], [False, False], 1.0, 0.0),
        ([True], [True], 0.5, 0.5),
    ],
)
def test_formula(satisfied: list[bool], required: list[bool], scale: float, score: float) -> None:
    assert rubric_score(satisfied, required, scale=scale) == score


def test_no_verdicts_is_never_a_pass() -> None:
    with pytest.raises(ValueError, match="one verdict per criterion"):
        rubric_score([], [])


def test_required_flags_are_ours_not_the_judge_echo() -> None:
    # row 58: the judge calls every criterion optional and the second one unmet
    reply = {
        "criteria": [
            {"criterion": "echo a", "satisfied": True, "required": False, "reasoning": "r0"},
            {"criterion": "echo b", "satisfied": False, "required": False, "reasoning": "r1"},
            {"criterion": "echo c", "satisfied": True, "required": False, "reasoning": "r2"},
        ],
        "overallAssessment": "",
    }
    scorer = create_rubric_scorer(model=ScriptedJudge([reply]), criteria=RUBRIC)
    result = scorer.run_sync(input="Research AI", output="Analysis: ...")
    assert result.score == 0.0
    assert result.reason == (
        "❌ Rubric not yet satisfied.\n\n"
        "✅ [required] Has an analysis section\n   → r0\n"
        "❌ [required] Gives recommendations\n   → r1\n"
        "✅ [optional] Cites a source\n   → r2\n\n"
        "To finish, address the 1 unmet required criterion above."
    )


def test_a_reply_missing_criteria_is_repaired() -> None:
    # row 59
    judge = ScriptedJudge([verdicts(True), verdicts(True, True, False)])
    scorer = create_rubric_scorer(model=judge, criteria=RUBRIC)
    result = scorer.run_sync(input="Research AI", output="Analysis: ...")
    assert (result.status, result.score, len(judge.calls)) == ("ok", 1.0, 2)
    repair = judge.calls[1].messages[-1].content
    assert "expected exactly 3 criteria, one per criterion in the order given; got 1" in repair


def test_an_empty_reply_fails_after_repair() -> None:
    # row 59: no verdicts is never the vacuous 1 Mastra gives
    judge = ScriptedJudge([verdicts(), verdicts()])
    scorer = create_rubric_scorer(model=judge, criteria=RUBRIC)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="a")
    assert info.value.result.status == "error"
    assert len(judge.calls) == 2


def test_no_rubric_is_skipped_without_a_judge_call() -> None:
    # row 60
    judge = ScriptedJudge([])
    result = create_rubric_scorer(model=judge).run_sync(
        input="q", output="a", request_context={"tone": "formal"}
    )
    assert (result.status, result.score, result.reason) == ("skipped", None, NO_RUBRIC_REASON)
    assert judge.calls == []


def test_a_blank_run_rubric_is_an_error_naming_its_field() -> None:
    # a rubric was given, but it holds no criterion: a mistake to report, not "no rubric"
    judge = ScriptedJudge([])
    with pytest.raises(ScorerRunError, match=r"request_context\.rubric holds no criterion"):
        create_rubric_scorer(model=judge).run_sync(
            input="q", output="a", request_context={"rubric": "  \n"}
        )
    assert judge.calls == []


@pytest.mark.parametrize("output", ["", "   ", []])
def test_an_empty_response_is_skipped_without_a_judge_call(output: object) -> None:
    # row 73: Mastra sends "(empty output)" to the judge and grades it
    judge = ScriptedJudge([])
    result = create_rubric_scorer(model=judge, criteria=RUBRIC).run_sync(input="q", output=output)
    assert (result.status, result.score) == ("skipped", None)
    assert result.reason == EMPTY_RESPONSE_REASON
    assert judge.calls == []


def test_indexed_verdicts_are_read_by_index() -> None:
    reply = verdicts(True, False, True)
    reply["criteria"].reverse()  # indices 2, 1, 0
    scorer = create_rubric_scorer(model=ScriptedJudge([reply]), criteria=RUBRIC)
    result = scorer.run_sync(input="q", output="a")
    assert result.score == 0.0
    assert "❌ [required] Gives recommendations\n   → why 1" in result.reason


@pytest.mark.parametrize(
    "indices", [[0, 0, 1], [0, 1, 3], [0, None, 2]], ids=["repeated", "out-of-range", "mixed"]
)
def test_bad_indices_are_refused(indices: list[int | None]) -> None:
    reply = verdicts(True, True, True)
    for verdict, index in zip(reply["criteria"], indices, strict=True):
        verdict["criterion_index"] = index
    judge = ScriptedJudge([reply, reply])
    with pytest.raises(ScorerRunError):
        create_rubric_scorer(model=judge, criteria=RUBRIC).run_sync(input="q", output="a")


def test_the_schema_asks_for_one_verdict_per_criterion() -> None:
    schema = RubricVerdicts.expecting(3).json_schema
    assert (
        schema["properties"]["criteria"]["minItems"],
        schema["properties"]["criteria"]["maxItems"],
    ) == (3, 3)
    item = schema["$defs"]["CriterionVerdict"]["properties"]
    assert set(item) == {"criterion_index", "satisfied", "reasoning"}  # no echoes asked for


def test_prompt_numbers_the_criteria_and_asks_in_the_query_language() -> None:
    judge = ScriptedJudge([verdicts(True, True, True)])
    create_rubric_scorer(model=judge, criteria=RUBRIC).run_sync(
        input="Research AI in education.", output="Analysis: ..."
    )
    prompt = judge.calls[0].prompt
    assert "[0] (required) Has an analysis section" in prompt
    assert "[2] (optional) Cites a source" in prompt
    assert "Research AI in education." in prompt
    assert "language the user's query is written in" in prompt


def test_rubric_sources_in_order() -> None:
    reply = verdicts(True)
    run = {"input": {"rubric": "from input"}, "output": "a"}
    scorer = create_rubric_scorer(model=ScriptedJudge([reply] * 3))
    assert scorer.run_sync(**run).preprocess_step_result.source == "input"
    result = scorer.run_sync(**run, additional_context={"rubric": "from additional"})
    assert result.preprocess_step_result.source == "additional_context"
    result = scorer.run_sync(
        **run, additional_context={"rubric": "x"}, request_context={"rubric": ["from request"]}
    )
    assert result.preprocess_step_result == Rubric(
        criteria=(RubricCriterion(description="from request"),), source="request_context"
    )


def test_checklist_string_is_parsed_like_mastra() -> None:
    text = (
        "\n   - Has an analysis section   \n\n\t* Gives recommendations\n• Cites\n1. Uses\n2) Is\n"
    )
    assert [c.description for c in parse_rubric(text)] == [
        "Has an analysis section",
        "Gives recommendations",
        "Cites",
        "Uses",
        "Is",
    ]
    assert all(c.required for c in parse_rubric(text))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"criteria": 3}, "criteria"),
        ({"criteria": [{"text": "x"}]}, "criteria[0]"),
        ({"criteria": [{"description": " "}]}, "criteria[0]"),
        ({"criteria": [{"description": "x", "required": "no"}]}, "criteria[0]"),
        ({"criteria": "x", "scale": 0}, "scale"),
    ],
)
def test_construction_errors(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_rubric_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


def test_a_malformed_rubric_in_the_run_fails_the_run() -> None:
    scorer = create_rubric_scorer(model=ScriptedJudge([]))
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="a", request_context={"rubric": 7})
    assert info.value.failed_step == "preprocess"
