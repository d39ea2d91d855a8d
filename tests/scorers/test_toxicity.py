from __future__ import annotations

import math
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.messages import get_assistant_message
from scorekit.judge import ScriptedJudge
from scorekit.results import ScorerRunResult
from scorekit.scorers.replies import item_limit
from scorekit.scorers.toxicity import (
    EMPTY_ANSWER_REASON,
    SCORER_ID,
    create_toxicity_scorer,
    toxicity_score,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake
from tests.scorers.labels import normalise_labels
from tests.scorers.recipe_rules import refused_or_repaired

CASES = cases_for("toxicity", corpus=CATALOG)

ANSWER = "You're clueless and have no idea what you're talking about. The report is due Friday."


def verdicts(*labels: str) -> dict[str, Any]:
    return {"verdicts": [{"verdict": label, "reason": f"r{i}"} for i, label in enumerate(labels)]}


def run(script: list[Any], output: Any = ANSWER, **kwargs: Any) -> tuple[ScorerRunResult, Any]:
    judge = ScriptedJudge(script)
    scorer = create_toxicity_scorer(model=judge, **kwargs)
    return scorer.run_sync(input="What do you think of my plan?", output=output), judge


def _run_case(case: dict[str, Any]) -> tuple[ScorerRunResult | ScorerRunError, ScriptedJudge]:
    judge = ScriptedJudge(case["judgeResponses"])
    scorer = create_toxicity_scorer(model=judge, **options(case))
    try:
        return scorer.run_sync(**catalog_run_args(case)), judge
    except ScorerRunError as exc:
        return exc, judge


def _blank_answer(case: dict[str, Any]) -> bool:
    # row 42: an answer with no text is skipped before any judge call
    return not (get_assistant_message(catalog_run_args(case)["output"]) or "").strip()


def _no_verdicts(expected: dict[str, Any]) -> bool:
    # row 41: Mastra's analyze step result holds no verdicts (Mastra then scores 1, unscaled)
    analyze = expected.get("analyzeStepResult")
    return analyze is not None and not analyze["verdicts"]


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    if refused_or_repaired(case, expected, _run_case, verdicts_key="verdicts", label_key="verdict"):
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
    if _no_verdicts(expected):
        # the empty reply is refused, and the repair request gets the next scripted reply
        assert isinstance(outcome, ScorerRunError)
        assert outcome.failed_step == "analyze"
        return
    assert isinstance(outcome, ScorerRunResult)
    assert outcome.status == "ok"
    assert outcome.score == expected["score"]
    assert outcome.reason == expected["reason"]
    assert outcome.preprocess_step_result is None
    # the verdict's optional "opinion" is absent (None) unless the reply gave it
    assert normalise_labels(
        outcome.analyze_step_result.model_dump(exclude_none=True)
    ) == normalise_labels(to_snake(expected["analyzeStepResult"]))
    assert len(judge.calls) == len(expected["judgeCalls"])


@pytest.mark.parametrize(
    ("labels", "scale", "score"),
    [
        (["yes", "no", "no"], 1.0, 0.33),
        (["yes", "no"], 1.0, 0.5),
        (["yes"] * 5 + ["no"] * 3, 1.0, 0.63),
        (["yes", "no", "no"], 2.0, 0.67),
        (["no"], 10.0, 0.0),
    ],
)
def test_spec_vectors(labels: list[str], scale: float, score: float) -> None:
    assert toxicity_score(labels, scale=scale) == score


def test_scores_the_share_of_toxic_opinions() -> None:
    result, judge = run(
        [
            {
                "verdicts": [
                    {"opinion": "You're clueless.", "verdict": " Yes ", "reason": "insult"},
                    {"opinion": "The report is due Friday.", "verdict": "no", "reason": "fact"},
                ]
            },
            "The score is 1 because ...",
        ],
        scale=2,
    )
    assert (result.status, result.score, result.reason) == ("ok", 1.0, "The score is 1 because ...")
    assert result.scorer_id == SCORER_ID
    assert [v.verdict for v in result.analyze_step_result.verdicts] == ["yes", "no"]
    assert ANSWER in judge.calls[0].prompt
    assert "What do you think of my plan?" in judge.calls[0].prompt
    assert "- You're clueless.: yes (insult)" in judge.calls[1].prompt
    assert "0 is best and 2 is worst" in judge.calls[1].prompt


def test_schema_asks_for_at_least_one_verdict_bounded_by_the_answer() -> None:
    _, judge = run([verdicts("no"), "why"])
    schema = judge.calls[0].output_schema["properties"]["verdicts"]
    assert (schema["minItems"], schema["maxItems"]) == (1, item_limit(ANSWER))


def test_no_verdicts_is_repaired_then_fails() -> None:
    # row 41: Mastra scores an empty verdict list 1 (unscaled), the worst score, unmeasured
    with pytest.raises(ScorerRunError) as info:
        run([{"verdicts": []}, {"verdicts": []}, "why"], scale=10)
    assert info.value.failed_step == "analyze"
    result, judge = run([{"verdicts": []}, verdicts("no", "yes"), "why"], scale=10)
    assert (result.status, result.score, len(judge.calls)) == ("ok", 5.0, 3)


@pytest.mark.parametrize("output", ["", "  \t", []])
def test_blank_answer_is_skipped_without_a_judge_call(output: Any) -> None:
    # row 42: Mastra asks the judge, gets no verdicts and scores 1
    result, judge = run([], output=output)
    assert (result.status, result.score, result.reason) == ("skipped", None, EMPTY_ANSWER_REASON)
    assert judge.calls == []


def test_unknown_label_is_repaired_or_fails() -> None:
    with pytest.raises(ScorerRunError):
        run([verdicts("somewhat"), verdicts("maybe"), "why"])
    result, _ = run([verdicts("somewhat"), verdicts("YES"), "why"])
    assert result.score == 1.0


def test_reasons_are_asked_in_the_query_language() -> None:
    judge = ScriptedJudge([verdicts("yes"), "理由"])
    result = create_toxicity_scorer(model=judge).run_sync(
        input="私の計画をどう思いますか？", output="あなたは何も分かっていない。"
    )
    assert result.reason == "理由"
    assert "私の計画をどう思いますか？" in judge.calls[0].prompt
    assert "language the user's query is written in" in judge.calls[0].prompt


@pytest.mark.parametrize("scale", [0, -1, math.inf, math.nan, "2", None])
def test_bad_scale_names_the_field(scale: Any) -> None:
    with pytest.raises(ConfigError) as info:
        create_toxicity_scorer(model=ScriptedJudge([]), scale=scale)
    assert info.value.field == "scale"


def test_docstring_examples() -> None:
    import doctest

    from scorekit.scorers import toxicity as module

    outcome = doctest.testmod(module)
    assert outcome.attempted > 0
    assert outcome.failed == 0
