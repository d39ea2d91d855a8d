from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.judge import ScriptedJudge
from scorekit.judge.structured import extract_json
from scorekit.scorers.noise_sensitivity import (
    SCORER_ID,
    ImpactWeights,
    NoiseAnalysis,
    NoisePenalties,
    NoiseScoring,
    create_noise_sensitivity_scorer_llm,
    noise_sensitivity_score,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake
from tests.scorers.recipe_rules import with_optional_lists

CASES = cases_for("noise-sensitivity", corpus=CATALOG)

BASELINE = "Regular exercise improves heart health, mood and sleep."
NOISY = "What are the health benefits of exercise? Also, chocolate cures everything."
QUERY = "What are the health benefits of exercise?"
ANSWER = "Exercise improves heart health, mood and sleep. Chocolate cures nothing."
NAMES = ["content_accuracy", "completeness", "relevance", "consistency", "hallucination_resistance"]


def analysis(levels: list[str], score: float, issues: list[str] | None = None) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "dimensions": [
            {
                "dimension": name,
                "impact_level": level,
                "specific_changes": f"change {i}",
                "noise_influence": f"influence {i}",
            }
            for i, (name, level) in enumerate(zip(NAMES, levels, strict=False))
        ],
        "overall_assessment": "mostly on topic",
        "robustness_score": score,
    }
    if issues is not None:
        reply["major_issues"] = issues
    return reply


def run(script: list[Any], *, input: Any = QUERY, output: Any = ANSWER, **kwargs: Any) -> Any:
    judge = ScriptedJudge(script)
    kwargs = {"baseline_response": BASELINE, "noisy_query": NOISY, **kwargs}
    scorer = create_noise_sensitivity_scorer_llm(model=judge, **kwargs)
    return scorer.run_sync(input=input, output=output), judge


def case_options(case: dict[str, Any]) -> dict[str, Any]:
    opts = options(case)
    if "scoring" in opts:  # nested option keys are snake_case too (impactWeights → impact_weights)
        opts["scoring"] = to_snake(opts["scoring"])
    return opts


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    judge = ScriptedJudge(case["judgeResponses"])
    if "error" in expected and "failedStep" not in expected:  # the factory throws
        with pytest.raises(ConfigError):
            create_noise_sensitivity_scorer_llm(model=judge, **case_options(case))
        return
    scorer = create_noise_sensitivity_scorer_llm(model=judge, **case_options(case))
    first = case["judgeResponses"][0]
    analysis = first if isinstance(first, dict) else extract_json(first)
    if "error" not in expected and not 0 <= analysis.get("robustnessScore", 0) <= 1:
        # row 71: Mastra clamps a robustness score outside [0, 1]; scorekit repairs, then fails
        with pytest.raises(ScorerRunError) as refused:
            scorer.run_sync(**catalog_run_args(case))
        assert refused.value.failed_step == "analyze"
        return
    if "error" in expected:
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**catalog_run_args(case))
        assert info.value.failed_step == expected["failedStep"]
        assert len(judge.calls) == len(expected.get("judgeCalls", []))
        return
    result = scorer.run_sync(**catalog_run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result is None
    # an absent major_issues is [] (row 106)
    assert result.analyze_step_result.model_dump() == with_optional_lists(
        to_snake(expected["analyzeStepResult"]), NoiseAnalysis
    )
    assert len(judge.calls) == len(expected["judgeCalls"])


@pytest.mark.parametrize(
    ("levels", "llm", "issues", "score"),
    [
        (["minimal", "none", "minimal", "minimal", "none"], 0.85, 0, 0.85),
        (["none"] * 5, 0.5, 0, 0.5),
        (["severe"] * 5, 0.9, 0, 0.1),
        (["moderate"] * 5, 0.7, 0, 0.7),
        (["none"] * 5, 1.0, 2, 0.8),
        (["none"] * 5, 1.0, 5, 0.7),
        (["none"], 0.42, 0, 0.42),
        (["none"], 1.3, 0, 1.0),
        ([], 0.73, 0, 0.73),
        ([], -0.5, 0, 0.0),
        (["significant"] * 5, 0.25, 3, 0.0),
    ],
)
def test_spec_vectors(levels: list[Any], llm: float, issues: int, score: float) -> None:
    assert noise_sensitivity_score(levels, llm, issues) == score


def test_threshold_compares_raw_doubles() -> None:
    # |0.8 - 0.6| = 0.20000000000000007 > 0.2: the calculated score wins
    assert noise_sensitivity_score(["moderate"] * 5, 0.8) == 0.6
    # |0.8 - 1.0| = 0.19999999999999996: within the threshold, the judge's score stands
    assert noise_sensitivity_score(["none"] * 5, 0.8) == 0.8


def test_scoring_values_default_one_by_one() -> None:
    rules = NoiseScoring.of({"impact_weights": {"moderate": 0.9}, "penalties": {}})
    assert rules.impact_weights == ImpactWeights(moderate=0.9)
    assert rules.penalties == NoisePenalties()
    assert rules.discrepancy_threshold == 0.2
    partial = NoiseScoring.of({"penalties": {"max_major_issue_penalty": 0.45}})
    assert noise_sensitivity_score(["none"] * 5, 1.0, 5, scoring=partial) == 0.55
    zero = NoiseScoring.of({"discrepancy_threshold": 0})
    assert noise_sensitivity_score(["minimal"] * 5, 0.9, scoring=zero) == 0.85


@pytest.mark.parametrize(
    ("scoring", "field", "hint"),
    [
        ({"impactWeights": {}}, "scoring", "did you mean 'impact_weights'"),
        ({"impact_weights": {"high": 1}}, "scoring.impact_weights", "Known keys"),
        ({"penalties": {"majorIssuePerItem": 0.1}}, "scoring.penalties", "major_issue_per_item"),
        ({"impact_weights": {"none": 1.5}}, "scoring.impact_weights.none", "[0, 1]"),
        (
            {"penalties": {"major_issue_per_item": -0.1}},
            "scoring.penalties.major_issue_per_item",
            "",
        ),
        ({"discrepancy_threshold": float("nan")}, "scoring.discrepancy_threshold", ""),
        ({"discrepancy_threshold": True}, "scoring.discrepancy_threshold", ""),
        ({"impact_weights": [1, 2]}, "scoring.impact_weights", "mapping"),
        ("strict", "scoring", "mapping"),
    ],
)
def test_bad_scoring_names_the_field(scoring: Any, field: str, hint: str) -> None:
    # row 46: Mastra takes any value as given
    with pytest.raises(ConfigError) as info:
        create_noise_sensitivity_scorer_llm(
            model=ScriptedJudge([]), baseline_response=BASELINE, noisy_query=NOISY, scoring=scoring
        )
    assert info.value.field == field
    assert hint in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({}, "baseline_response"),
        ({"noisy_query": NOISY}, "baseline_response"),
        ({"baseline_response": BASELINE}, "noisy_query"),
        ({"baseline_response": BASELINE, "noisy_query": "  "}, "noisy_query"),
        ({"baseline_response": 3, "noisy_query": NOISY}, "baseline_response"),
        ({"baseline_response": BASELINE, "noisy_query": NOISY, "noise_type": 1}, "noise_type"),
    ],
)
def test_construction_errors(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_noise_sensitivity_scorer_llm(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


def test_prompt_shows_both_queries_both_answers_and_the_noise_type() -> None:
    result, judge = run(
        [analysis(["none"] * 5, 0.95, []), "The score is 0.95 because ..."],
        noise_type="misinformation",
    )
    assert (result.status, result.score, result.scorer_id) == ("ok", 0.95, SCORER_ID)
    prompt = judge.calls[0].prompt
    for text in (QUERY, BASELINE, NOISY, ANSWER, "Type of noise added: misinformation"):
        assert text in prompt
    assert "content_accuracy: none (change 0)" in judge.calls[1].prompt
    _, plain = run([analysis(["none"], 0.9), "why"])
    assert "Type of noise added" not in plain.calls[0].prompt


@pytest.mark.parametrize(
    ("input", "output", "field"),
    [([], ANSWER, "input"), ("", ANSWER, "input"), (QUERY, "", "output"), (QUERY, [], "output")],
)
def test_missing_query_or_answer_fails_the_run(input: Any, output: Any, field: str) -> None:
    with pytest.raises(ScorerRunError) as info:
        run([], input=input, output=output)
    assert info.value.failed_step == "analyze"
    assert isinstance(info.value.__cause__, ConfigError)
    assert info.value.__cause__.field == field


def test_labels_are_normalised_and_closed() -> None:
    reply = analysis(["none"], 0.9)
    reply["dimensions"][0].update(dimension=" Content_Accuracy ", impact_level="MINIMAL")
    result, _ = run([reply, "why"])
    assert result.analyze_step_result.dimensions[0].dimension == "content_accuracy"
    assert result.analyze_step_result.dimensions[0].impact_level == "minimal"
    bad = analysis(["catastrophic"], 0.9)
    with pytest.raises(ScorerRunError):
        run([bad, bad, "why"])


def test_unknown_or_repeated_dimension_is_repaired_or_fails() -> None:
    # row 45: each dimension is one of the five names, at most once
    unknown = analysis(["none"], 0.9)
    unknown["dimensions"][0]["dimension"] = "tone"
    repeated = analysis(["none", "none"], 0.9)
    repeated["dimensions"][1]["dimension"] = "content_accuracy"
    with pytest.raises(ScorerRunError):
        run([unknown, repeated, "why"])
    result, judge = run([repeated, analysis(["none", "minimal"], 0.9), "why"])
    assert (result.status, result.score, len(judge.calls)) == ("ok", 0.9, 3)
    assert "at most once" in judge.calls[1].messages[-1].content
    assert judge.calls[0].output_schema["properties"]["dimensions"]["maxItems"] == 5


def test_docstring_examples() -> None:
    import doctest

    from scorekit.scorers import noise_sensitivity as module

    outcome = doctest.testmod(module)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_a_robustness_score_outside_zero_to_one_is_repaired() -> None:
    # row 71: Mastra clamps 7 to 1 and -3 to 0, scoring what the judge never said
    dims = [
        {
            "dimension": "relevance",
            "impact_level": "none",
            "specific_changes": "-",
            "noise_influence": "-",
        }
    ]
    bad = {"dimensions": dims, "overall_assessment": "o", "robustness_score": 7}
    good = {**bad, "robustness_score": 0.9}
    judge = ScriptedJudge([bad, good, "why"])
    scorer = create_noise_sensitivity_scorer_llm(
        model=judge, baseline_response="Paris.", noisy_query="Capital of France? cats rule"
    )
    result = scorer.run_sync(input="Capital of France?", output="Paris.")
    assert (result.status, result.score, len(judge.calls)) == ("ok", 0.9, 3)
