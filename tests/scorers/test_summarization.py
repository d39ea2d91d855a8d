from __future__ import annotations

import math
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.messages import get_user_message
from scorekit.judge import ScriptedJudge
from scorekit.scorers.summarization import (
    DEFAULT_MAX_QUESTIONS,
    SummaryAxes,
    create_summarization_scorer,
    summarization_score,
    summary_axes,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake

CASES = cases_for("summarization", corpus=CATALOG)


# ---- the corpus ------------------------------------------------------------------------------
#
# Replies are served as they are. A coverage verdict's echoed ``question`` is replaced by our own
# copy of the question at its position; in the corpus the two are the same text, so the step
# results compare equal to Mastra's.


def max_questions_of(case: dict[str, Any]) -> Any:
    return options(case).get("max_questions", DEFAULT_MAX_QUESTIONS)


def outcome(case: dict[str, Any], expected: dict[str, Any]) -> str:
    """What scorekit's rules make of a case, read from its content (never its id)."""
    limit = max_questions_of(case)
    if not float(limit).is_integer() or limit < 1:
        return "config"  # row 47: a whole number >= 1 (Mastra refuses only < 1)
    if "error" in expected:
        return "error"
    run = catalog_run_args(case)
    if "source" not in options(case) and not (get_user_message(run["input"]) or "").strip():
        return "skipped"  # row 50: the source is empty
    if not str(case.get("output", "")).strip():
        return "zero"  # row 48: an empty summary scores 0 without a judge call
    pre = expected["preprocessStepResult"]
    if not pre["alignment"] or not pre["questions"]:
        return "skipped"  # row 50: no claims in the summary, or no questions of the source
    judged = min(len(pre["questions"]), limit)
    if len(expected["analyzeStepResult"]["coverage"]) != judged:
        return "count"  # row 49: one coverage verdict per question judged (row 26)
    return "mastra"


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


def test_the_corpus_exercises_every_outcome() -> None:
    kinds = [outcome(case, expected) for case, expected in CASES]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "config": 3,
        "error": 1,
        "skipped": 4,
        "zero": 1,
        "count": 4,
        "mastra": 13,
    }


def mastra_axes(expected: dict[str, Any], limit: int) -> SummaryAxes:
    pre, coverage = expected["preprocessStepResult"], expected["analyzeStepResult"]["coverage"]
    return summary_axes(
        [v["supported"] for v in pre["alignment"]],
        [v["answered"] for v in coverage],
        min(len(pre["questions"]), limit),
    )


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    kind = outcome(case, expected)
    judge = ScriptedJudge(case["judgeResponses"])
    if kind == "config":
        with pytest.raises(ConfigError) as info:
            create_summarization_scorer(model=judge, **options(case))
        assert info.value.field == "max_questions"
        if "score" in expected:
            # Mastra judges floor(max_questions) verdicts and divides by max_questions itself
            limit = max_questions_of(case)
            coverage = expected["analyzeStepResult"]["coverage"][: math.floor(limit)]
            assert sum(v["answered"] for v in coverage) / limit == expected["score"]
        return
    scorer = create_summarization_scorer(model=judge, **options(case))
    run = catalog_run_args(case)
    if kind == "error":
        with pytest.raises(ScorerRunError) as error:
            scorer.run_sync(**run)
        assert error.value.failed_step == "preprocess"
        assert error.value.result is not None and error.value.result.status == "error"
        return
    if kind == "skipped":
        result = scorer.run_sync(**run)
        assert (result.status, result.score) == ("skipped", None)
        pre = expected["preprocessStepResult"]
        if pre["alignment"] and pre["questions"]:  # skipped for the empty source
            assert judge.calls == []
        else:
            assert len(judge.calls) == 1
            assert result.preprocess_step_result.model_dump() == to_snake(pre)
        assert expected["score"] == 0  # Mastra's vacuous 0
        return
    if kind == "zero":
        result = scorer.run_sync(**run)
        assert (result.status, result.score, judge.calls) == ("ok", expected["score"], [])
        assert result.reason == "The score is 0 because the summary is empty."
        return
    if kind == "count":
        with pytest.raises(ScorerRunError) as error:
            scorer.run_sync(**run)
        assert error.value.failed_step == "analyze"
        assert "expected exactly" in judge.calls[2].messages[-1].content
        # Mastra's rule (verdicts by position, a missing one unanswered, extras ignored) on
        # Mastra's verdicts gives Mastra's score; so does a run served the verdicts it used
        limit = max_questions_of(case)
        axes = mastra_axes(expected, limit)
        assert (
            summarization_score(axes, scale=options(case).get("scale", 1.0)) == (expected["score"])
        )
        pre = expected["preprocessStepResult"]
        judged = min(len(pre["questions"]), limit)
        used = expected["analyzeStepResult"]["coverage"][:judged]
        padded = used + [{"answered": False, "reason": "absent"}] * (judged - len(used))
        rerun = ScriptedJudge([case["judgeResponses"][0], {"coverage": padded}, "why"])
        result = create_summarization_scorer(model=rerun, **options(case)).run_sync(**run)
        assert (result.status, result.score) == ("ok", expected["score"])
        return
    result = scorer.run_sync(**run)
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result.model_dump() == to_snake(expected["preprocessStepResult"])
    assert result.analyze_step_result.model_dump() == to_snake(expected["analyzeStepResult"])
    assert len(judge.calls) == len(expected["judgeCalls"])


# ---- the formula -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("supported", "answered", "judged", "scale", "score"),
    [
        ([True, True], [True, True], 2, 1.0, 1.0),
        ([True, True, False], [True, True], 2, 1.0, 0.67),
        ([True, False], [True, True], 2, 1.0, 0.5),
        ([True, False], [True, True], 2, 10.0, 5.0),
        ([True], [True, False, False, False], 4, 1.0, 0.25),
        ([False], [True], 1, 1.0, 0.0),
        ([True], [True], 4, 1.0, 0.25),  # Mastra: a missing verdict is unanswered
        ([True], [True, True, True], 1, 1.0, 1.0),  # Mastra: extra verdicts are ignored
        ([True] * 5 + [False] * 3, [True], 1, 1.0, 0.63),  # 0.625, half-up
    ],
)
def test_spec_vectors(
    supported: list[bool], answered: list[bool], judged: int, scale: float, score: float
) -> None:
    assert summarization_score(summary_axes(supported, answered, judged), scale=scale) == score


@pytest.mark.parametrize(("supported", "judged"), [([], 1), ([True], 0)])
def test_axes_refuse_nothing_to_measure(supported: list[bool], judged: int) -> None:
    with pytest.raises(ValueError, match="at least one claim and one question"):
        summary_axes(supported, [], judged)


# ---- runs ------------------------------------------------------------------------------------

SOURCE = (
    "Company Y was founded in Boston in 2015. Its first model reached 95% accuracy. "
    "In 2018 it moved to Seattle."
)
SUMMARY = "Company Y, founded in Boston in 2015, built a model with 99% accuracy."


def judgement(supported: list[bool], questions: int) -> dict[str, Any]:
    return {
        "alignment": [
            {"claim": f"claim {i}", "supported": s, "reason": "r"} for i, s in enumerate(supported)
        ],
        "questions": [f"Question {i}?" for i in range(questions)],
    }


def coverage(*answered: bool) -> dict[str, Any]:
    return {"coverage": [{"answered": a, "reason": "r"} for a in answered]}


def test_the_coverage_call_never_sees_the_source() -> None:
    judge = ScriptedJudge(
        [judgement([True, True, False], 3), coverage(True, True, False), "The score is 0.67 …"]
    )
    result = create_summarization_scorer(model=judge).run_sync(input=SOURCE, output=SUMMARY)
    assert result.score == 0.67
    assert SOURCE in judge.calls[0].prompt and SUMMARY in judge.calls[0].prompt
    assert SOURCE not in judge.calls[1].prompt
    assert "1. Question 0?\n2. Question 1?\n3. Question 2?" in judge.calls[1].prompt
    assert "Give exactly 3 verdicts" in judge.calls[1].prompt
    assert [v.question for v in result.analyze_step_result.coverage] == [
        "Question 0?",
        "Question 1?",
        "Question 2?",
    ]
    reason_prompt = judge.calls[2].prompt
    assert "Alignment: 0.67" in reason_prompt and "Coverage: 0.67" in reason_prompt
    assert "- claim 2" in reason_prompt and "- Question 2?" in reason_prompt
    assert result.reason == "The score is 0.67 …"


def test_an_echoed_question_is_replaced_by_our_copy() -> None:
    reply = {"coverage": [{"question": "something else", "answered": True, "reason": "r"}]}
    judge = ScriptedJudge([judgement([True], 1), reply, "why"])
    result = create_summarization_scorer(model=judge).run_sync(input=SOURCE, output=SUMMARY)
    assert result.analyze_step_result.coverage[0].question == "Question 0?"


def test_only_the_first_max_questions_are_judged() -> None:
    judge = ScriptedJudge([judgement([True], 5), coverage(True, False), "why"])
    scorer = create_summarization_scorer(model=judge, max_questions=2)
    result = scorer.run_sync(input=SOURCE, output=SUMMARY)
    assert result.score == 0.5
    assert "Question 2?" not in judge.calls[1].prompt
    assert "at most 2 closed questions" in judge.calls[0].prompt
    schema = judge.calls[1].output_schema["properties"]["coverage"]
    assert (schema["minItems"], schema["maxItems"]) == (2, 2)


def test_a_short_coverage_reply_is_repaired_with_the_expected_count() -> None:
    # row 49: Mastra would count the missing verdicts as unanswered
    judge = ScriptedJudge([judgement([True], 3), coverage(True), coverage(True, True, True), "w"])
    result = create_summarization_scorer(model=judge).run_sync(input=SOURCE, output=SUMMARY)
    assert (result.status, result.score) == ("ok", 1.0)
    assert "expected exactly 3 coverage, one per question" in judge.calls[2].messages[-1].content


def test_a_string_boolean_is_refused() -> None:
    bad = {"alignment": [{"claim": "c", "supported": "true", "reason": "r"}], "questions": ["Q?"]}
    judge = ScriptedJudge([bad, bad])
    with pytest.raises(ScorerRunError) as info:
        create_summarization_scorer(model=judge).run_sync(input=SOURCE, output=SUMMARY)
    assert info.value.failed_step == "preprocess"
    assert "supported" in info.value.result.error.message


def test_empty_source_is_skipped_without_a_judge_call() -> None:
    # row 50: Mastra asks the judge about an empty source and scores what it invents
    judge = ScriptedJudge([])
    result = create_summarization_scorer(model=judge).run_sync(input=[], output=SUMMARY)
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])
    assert result.reason == (
        "Summarization needs a source text to compare with; this run's source is empty."
    )


def test_empty_summary_scores_zero_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    result = create_summarization_scorer(model=judge).run_sync(input=SOURCE, output=" ")
    assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
    assert result.reason == "The score is 0 because the summary is empty."


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (judgement([], 2), "no claims in the summary"),
        (judgement([True], 0), "no questions from the source"),
    ],
)
def test_nothing_to_measure_is_skipped_after_the_first_call(
    reply: dict[str, Any], reason: str
) -> None:
    # row 50: Mastra scores 0
    judge = ScriptedJudge([reply])
    result = create_summarization_scorer(model=judge).run_sync(input=SOURCE, output=SUMMARY)
    assert (result.status, result.score, len(judge.calls)) == ("skipped", None, 1)
    assert reason in result.reason


def test_the_summary_is_the_last_assistant_message_with_text() -> None:
    output = [
        {"role": "assistant", "content": "Draft."},
        {"role": "assistant", "content": SUMMARY},
        {"role": "assistant", "content": {"format": 2, "parts": [], "toolInvocations": []}},
    ]
    judge = ScriptedJudge([judgement([True], 1), coverage(True), "why"])
    create_summarization_scorer(model=judge).run_sync(input=SOURCE, output=output)
    assert SUMMARY in judge.calls[0].prompt and "Draft." not in judge.calls[0].prompt


def test_the_source_option_replaces_the_user_message() -> None:
    judge = ScriptedJudge([judgement([True], 1), coverage(True), "why"])
    create_summarization_scorer(model=judge, source=SOURCE).run_sync(
        input="Summarise this.", output=SUMMARY
    )
    assert SOURCE in judge.calls[0].prompt and "Summarise this." not in judge.calls[0].prompt


async def test_the_source_extractor_wins_and_is_called_once_per_run() -> None:
    calls: list[Any] = []

    async def extractor(input: Any, output: Any) -> str:
        calls.append(output)
        return SOURCE

    judge = ScriptedJudge([judgement([True], 1), coverage(True), "why"])
    scorer = create_summarization_scorer(model=judge, source="unused", source_extractor=extractor)
    result = await scorer.run(input="q", output=SUMMARY)
    assert result.score == 1.0
    assert calls == [SUMMARY]
    assert SOURCE in judge.calls[0].prompt


def test_a_source_extractor_returning_no_string_fails_the_run() -> None:
    scorer = create_summarization_scorer(
        model=ScriptedJudge([]), source_extractor=lambda i, o: ["a", "b"]
    )
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output=SUMMARY)
    assert "source_extractor must return a string" in info.value.result.error.message


def test_whole_float_max_questions_is_accepted() -> None:
    judge = ScriptedJudge([judgement([True], 3), coverage(True, True, True), "why"])
    result = create_summarization_scorer(model=judge, max_questions=3.0).run_sync(
        input=SOURCE, output=SUMMARY
    )
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_questions": 0}, "max_questions"),
        ({"max_questions": 0.5}, "max_questions"),
        ({"max_questions": 2.5}, "max_questions"),  # row 47: Mastra divides by 2.5
        ({"max_questions": -1}, "max_questions"),
        ({"max_questions": math.inf}, "max_questions"),
        ({"max_questions": True}, "max_questions"),
        ({"max_questions": "3"}, "max_questions"),
        ({"scale": 0}, "scale"),
        ({"scale": math.nan}, "scale"),
        ({"source": ""}, "source"),
        ({"source": ["a"]}, "source"),
        ({"source_extractor": "text"}, "source_extractor"),
    ],
)
def test_bad_options_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_summarization_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field
