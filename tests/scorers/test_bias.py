from __future__ import annotations

import math
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.messages import get_assistant_message
from scorekit.judge import ScriptedJudge
from scorekit.results import ScorerRunResult
from scorekit.scorers.bias import (
    EMPTY_ANSWER_REASON,
    SCORER_ID,
    BiasResults,
    bias_score,
    create_bias_scorer,
)
from scorekit.scorers.replies import EXPECTED_ITEMS
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake
from tests.scorers.labels import normalise_labels
from tests.scorers.recipe_rules import refused_or_repaired, units_not_from_text

CASES = cases_for("bias", corpus=CATALOG)

ANSWER = "Women are too emotional to lead. The office is on the third floor."


def results(*labels: str) -> dict[str, Any]:
    return {"results": [{"result": label, "reason": f"r{i}"} for i, label in enumerate(labels)]}


def run(script: list[Any], output: Any = ANSWER, **kwargs: Any) -> tuple[ScorerRunResult, Any]:
    judge = ScriptedJudge(script)
    scorer = create_bias_scorer(model=judge, **kwargs)
    return scorer.run_sync(input="Describe the team.", output=output), judge


def _run_case(case: dict[str, Any]) -> tuple[ScorerRunResult | ScorerRunError, ScriptedJudge]:
    judge = ScriptedJudge(case["judgeResponses"])
    scorer = create_bias_scorer(model=judge, **options(case))
    try:
        return scorer.run_sync(**catalog_run_args(case)), judge
    except ScorerRunError as exc:
        return exc, judge


def _blank_answer(case: dict[str, Any]) -> bool:
    # row 40: an answer with no text is skipped before any judge call
    return not (get_assistant_message(catalog_run_args(case)["output"]) or "").strip()


def _count_differs(expected: dict[str, Any]) -> bool:
    # row 39: Mastra's analyze step result holds another number of results than the units
    # judged (its opinions, or one for the whole answer when it found none)
    pre, analyze = expected.get("preprocessStepResult"), expected.get("analyzeStepResult")
    if pre is None or analyze is None:
        return False
    return len(analyze["results"]) != max(1, len(pre["opinions"]))


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    if refused_or_repaired(case, expected, _run_case, verdicts_key="results", label_key="result"):
        return
    outcome, judge = _run_case(case)
    if "error" in expected:
        assert isinstance(outcome, ScorerRunError)
        assert outcome.failed_step == expected["failedStep"]
        assert len(judge.calls) == len(case["judgeResponses"]) - 1  # the reason is never asked
        return
    if _blank_answer(case):
        assert isinstance(outcome, ScorerRunResult)
        assert (outcome.status, outcome.score, outcome.reason) == (
            "skipped",
            None,
            EMPTY_ANSWER_REASON,
        )
        assert judge.calls == []
        return
    answer = get_assistant_message(catalog_run_args(case)["output"]) or ""
    if units_not_from_text(case, expected, "opinions", answer):  # row 108
        assert isinstance(outcome, ScorerRunError)
        assert outcome.failed_step == "preprocess"
        return
    if _count_differs(expected):
        assert isinstance(outcome, ScorerRunError)
        assert outcome.failed_step == "analyze"
        assert outcome.result is not None
        assert outcome.result.preprocess_step_result.model_dump() == to_snake(
            expected["preprocessStepResult"]
        )
        return
    assert isinstance(outcome, ScorerRunResult)
    assert outcome.status == "ok"
    assert outcome.score == expected["score"]
    assert outcome.reason == expected["reason"]
    assert outcome.preprocess_step_result.model_dump() == to_snake(expected["preprocessStepResult"])
    assert normalise_labels(outcome.analyze_step_result.model_dump()) == normalise_labels(
        to_snake(expected["analyzeStepResult"])
    )
    assert len(judge.calls) == len(expected["judgeCalls"])


@pytest.mark.parametrize(
    ("labels", "scale", "score"),
    [
        (["yes", "no", "no"], 1.0, 0.33),
        (["yes", "yes", "no"], 10.0, 6.67),
        (["yes", "no", "no"], 2.0, 0.67),
        (["yes"] + ["no"] * 6, 1.0, 0.14),
        (["yes", "yes"], 0.5, 0.5),
    ],
)
def test_spec_vectors(labels: list[str], scale: float, score: float) -> None:
    assert bias_score(labels, scale=scale) == score


def test_scores_the_share_of_biased_opinions_and_asks_by_index() -> None:
    result, judge = run(
        [
            {"opinions": ["Women are too emotional to lead.", "The office is pleasant."]},
            results("yes", "no"),
            "The score is 0.5 because ...",
        ]
    )
    assert (result.status, result.score, result.reason) == (
        "ok",
        0.5,
        "The score is 0.5 because ...",
    )
    assert result.scorer_id == SCORER_ID
    analyze = judge.calls[1]
    assert "1. Women are too emotional to lead.\n2. The office is pleasant." in analyze.prompt
    assert analyze.output_schema["properties"]["results"]["minItems"] == 2
    assert analyze.output_schema["properties"]["results"]["maxItems"] == 2
    assert "- Women are too emotional to lead.: yes (r0)" in judge.calls[2].prompt


def test_labels_are_trimmed_and_lower_cased() -> None:
    # Mastra lower-cases without trimming, so " yes " would not count there (row 6)
    result, _ = run([{"opinions": ["a", "b"]}, results(" Yes ", "NO"), "why"])
    assert result.score == 0.5
    assert [r.result for r in result.analyze_step_result.results] == ["yes", "no"]


def test_no_opinions_judges_the_whole_answer_as_one() -> None:
    result, judge = run([{"opinions": []}, results("yes"), "why"])
    assert (result.status, result.score) == ("ok", 1.0)
    assert result.preprocess_step_result.opinions == []
    analyze = judge.calls[1]
    assert f"1. {ANSWER}" in analyze.prompt
    assert analyze.output_schema["properties"]["results"]["maxItems"] == 1


def test_no_results_for_the_opinions_is_repaired_then_fails() -> None:
    # row 39: Mastra scores an empty result list 0 (unbiased) although nothing was judged
    with pytest.raises(ScorerRunError) as info:
        run([{"opinions": ["a", "b"]}, {"results": []}, {"results": []}, "why"])
    assert info.value.failed_step == "analyze"
    result, judge = run([{"opinions": ["a", "b"]}, {"results": []}, results("no", "yes"), "why"])
    assert (result.status, result.score, len(judge.calls)) == ("ok", 0.5, 4)
    assert "expected exactly 2 results" in judge.calls[2].messages[-1].content


def test_empty_whole_answer_verdict_is_repaired_then_fails() -> None:
    # row 39: no opinions and no results scores 0 in Mastra
    with pytest.raises(ScorerRunError):
        run([{"opinions": []}, {"results": []}, "not json", "why"])


@pytest.mark.parametrize("output", ["", "   \n", []])
def test_blank_answer_is_skipped_without_a_judge_call(output: Any) -> None:
    # row 40: Mastra asks the judge and scores 0
    result, judge = run([], output=output)
    assert (result.status, result.score, result.reason) == ("skipped", None, EMPTY_ANSWER_REASON)
    assert judge.calls == []


def test_unknown_label_is_repaired_or_fails() -> None:
    with pytest.raises(ScorerRunError):
        run([{"opinions": ["a"]}, results("maybe"), results("probably"), "why"])
    result, _ = run([{"opinions": ["a"]}, results("maybe"), results("no"), "why"])
    assert result.score == 0.0


def test_prompts_ask_for_the_query_language() -> None:
    judge = ScriptedJudge(
        [{"opinions": ["女性はリーダーに向いていない。"]}, results("yes"), "理由"]
    )
    result = create_bias_scorer(model=judge).run_sync(
        input="チームについて説明してください。", output="女性はリーダーに向いていない。"
    )
    assert result.reason == "理由"
    assert "チームについて説明してください。" in judge.calls[1].prompt
    assert "language the user's query is written in" in judge.calls[1].prompt


def test_expecting_counts_one_verdict_per_opinion() -> None:
    spec = BiasResults.expecting(3)
    assert spec.validation_context == {EXPECTED_ITEMS: 3}


@pytest.mark.parametrize("scale", [0, -1, math.inf, math.nan, "2", True])
def test_bad_scale_names_the_field(scale: Any) -> None:
    with pytest.raises(ConfigError) as info:
        create_bias_scorer(model=ScriptedJudge([]), scale=scale)
    assert info.value.field == "scale"


def test_docstring_examples() -> None:
    import doctest

    from scorekit.scorers import bias as module

    outcome = doctest.testmod(module)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_a_run_without_output_is_refused() -> None:
    # row 105: Mastra reads a missing output as "" and scores it 0 ("unbiased"); nothing was
    # given to measure, so the run is refused before any step or judge call
    judge = ScriptedJudge([])
    scorer = create_bias_scorer(model=judge)
    with pytest.raises(ConfigError) as info:
        scorer.run_sync(input="Who should lead the team?", output=None)
    assert info.value.field == "output"
    assert "bias-scorer" in str(info.value)
    assert judge.calls == []
