from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.judge import ScriptedJudge
from scorekit.scorers import create_answer_relevancy_scorer
from scorekit.scorers.answer_relevancy import answer_relevancy_score
from tests.conformance import cases_for, options, run_args, to_snake
from tests.scorers.labels import normalise_labels
from tests.scorers.recipe_rules import answer_of, blank_answer, outcome, run_by_rule

CASES = cases_for("answer-relevancy")


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    judge = ScriptedJudge(case["judgeResponses"])
    rule = outcome(
        case,
        expected,
        blank=blank_answer(case),
        units_key="statements",
        labels=frozenset({"yes", "no", "unsure"}),
        verdicts_key="results",
        label_key="result",
        source=answer_of(case),
    )
    result = run_by_rule(
        rule, lambda: create_answer_relevancy_scorer(model=judge, **options(case)), run_args(case)
    )
    if result is None:
        return
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result.model_dump() == to_snake(expected["preprocessStepResult"])
    assert result.analyze_step_result.model_dump() == normalise_labels(
        to_snake(expected["analyzeStepResult"])
    )


@pytest.mark.parametrize(
    ("labels", "weight", "scale", "score"),
    [
        (["yes", "unsure", "no"], 0.3, 1.0, 0.43),
        (["yes", "unsure"], 0.3, 1.0, 0.65),
        ([], 0.3, 1.0, 0.0),
        (["yes", "unsure", "unsure"], 0.3, 1.0, 0.53),
        (["yes", "no", "no"], 0.3, 10.0, 3.33),
    ],
)
def test_spec_vectors(labels: list[str], weight: float, scale: float, score: float) -> None:
    assert answer_relevancy_score(labels, uncertainty_weight=weight, scale=scale) == score


def test_partial_options_keep_the_other_default() -> None:
    # Mastra: {scale: 10} alone leaves uncertaintyWeight undefined and the score NaN
    judge = ScriptedJudge(
        [
            {"statements": ["a", "b"]},
            {"results": [{"result": "yes", "reason": "r"}, {"result": "unsure", "reason": "r"}]},
            "why",
        ]
    )
    result = create_answer_relevancy_scorer(model=judge, scale=10).run_sync(
        input="q", output="a. b."
    )
    assert result.score == 6.5


@pytest.mark.parametrize("answer", ["", "  "])
def test_empty_answer_scores_zero_without_a_judge_call(answer: str) -> None:
    judge = ScriptedJudge([])
    result = create_answer_relevancy_scorer(model=judge).run_sync(
        input="What is the capital of France?", output=answer
    )
    assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
    assert result.reason == "The score is 0 because the answer is empty."


def test_results_prompt_numbers_statements_and_sets_language() -> None:
    judge = ScriptedJudge(
        [
            {"statements": ["パリです。", "チーズが好き。"]},
            {"results": [{"result": "yes", "reason": "r"}, {"result": "no", "reason": "r"}]},
            "説明",
        ]
    )
    result = create_answer_relevancy_scorer(model=judge).run_sync(
        input="フランスの首都は？", output="パリです。チーズが好き。"
    )
    assert result.score == 0.5
    prompt = judge.calls[1].prompt
    assert "フランスの首都は？" in prompt
    assert "1. パリです。\n2. チーズが好き。" in prompt
    assert "Give exactly 2 results" in prompt
    assert "in the language the user's query is written in" in prompt
    # row 109: a statement that answers nothing is off the question
    answers_nothing = "when it answers\n  nothing: it only says that the answer is unknown"
    assert answers_nothing in prompt
    assert '"The context does not say what colour the sky is." is no.' in prompt


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"uncertainty_weight": 1.5}, "uncertainty_weight"),
        ({"uncertainty_weight": float("nan")}, "uncertainty_weight"),
        ({"scale": 0}, "scale"),
    ],
)
def test_construction_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_answer_relevancy_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


def test_the_judge_rates_each_statement_with_the_whole_answer_in_view() -> None:
    # divergences.md row 110: a statement cut out of its answer can lose what it refers to
    answer = "The Eiffel Tower is in Paris. It is 330 metres tall."
    judge = ScriptedJudge(
        [
            {"statements": ["The Eiffel Tower is in Paris.", "It is 330 metres tall."]},
            {"results": [{"result": "yes", "reason": "a"}, {"result": "yes", "reason": "b"}]},
            "why",
        ]
    )
    result = create_answer_relevancy_scorer(model=judge).run_sync(
        input="How tall is the Eiffel Tower?", output=answer
    )
    assert result.score == 1.0
    prompt = judge.calls[1].prompt
    assert f"The whole answer, for what its statements refer to:\n{answer}\n" in prompt
    assert prompt.index(answer) < prompt.index("1. The Eiffel Tower is in Paris.")
