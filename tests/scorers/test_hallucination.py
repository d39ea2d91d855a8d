from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.judge import ScriptedJudge
from scorekit.messages import get_assistant_message
from scorekit.scorers import create_hallucination_scorer
from scorekit.scorers.hallucination import hallucination_score
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake
from tests.scorers.labels import normalise_labels
from tests.scorers.recipe_rules import Outcome, outcome

SPACEX = [
    "SpaceX was founded by Elon Musk in 2002.",
    "Its Falcon 9 rocket first flew in 2010.",
]


def verdicts(*labels: str) -> dict[str, Any]:
    return {
        "verdicts": [
            {"statement": f"claim {i}", "verdict": label, "reason": "r"}
            for i, label in enumerate(labels)
        ]
    }


@pytest.mark.parametrize(
    ("labels", "scale", "score"),
    [(["yes", "no", "no"], 1.0, 0.33), ([], 1.0, 0.0), (["yes", "yes", "no", "yes"], 1.0, 0.75)],
)
def test_spec_vectors(labels: list[str], scale: float, score: float) -> None:
    assert hallucination_score(labels, scale=scale) == score


def test_scores_the_share_of_hallucinated_claims() -> None:
    judge = ScriptedJudge(
        [
            {"claims": ["a", "b", "c", "d"]},
            verdicts("Yes", "yes", "no", " YES "),
            "The score is 0.75 because ...",
        ]
    )
    scorer = create_hallucination_scorer(model=judge, context=SPACEX, scale=2)
    result = scorer.run_sync(input="Tell me about SpaceX", output="a. b. c. d.")
    assert result.score == 1.5
    assert [v.verdict for v in result.analyze_step_result.verdicts] == ["yes", "yes", "no", "yes"]
    assert result.reason == "The score is 0.75 because ..."
    assert "SpaceX was founded by Elon Musk in 2002." in judge.calls[1].prompt
    assert "1. a\n2. b\n3. c\n4. d" in judge.calls[1].prompt


async def test_extractor_is_called_once_per_run() -> None:
    calls: list[Any] = []

    async def extractor(input: Any, output: Any) -> list[str]:
        calls.append(input)
        return SPACEX

    judge = ScriptedJudge([{"claims": ["a"]}, verdicts("no"), "why"])
    scorer = create_hallucination_scorer(model=judge, context_extractor=extractor)
    result = await scorer.run(input="q", output="a")
    assert result.score == 0.0
    assert calls == ["q"]


def test_empty_context_is_skipped_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    scorer = create_hallucination_scorer(model=judge, context_extractor=lambda i, o: [])
    result = scorer.run_sync(input="q", output="a")
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])


def test_empty_answer_scores_zero_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    result = create_hallucination_scorer(model=judge, context=SPACEX).run_sync(input="q", output="")
    assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
    assert result.reason == "The score is 0 because the answer makes no claims."


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({}, "context"), ({"context": []}, "context"), ({"context": ["a"], "scale": -2}, "scale")],
)
def test_construction_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_hallucination_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


CATALOG_CASES = cases_for("hallucination", corpus=CATALOG)


def test_catalog_corpus_is_present() -> None:
    assert len(CATALOG_CASES) == 20


@pytest.mark.parametrize(
    ("case", "expected"), CATALOG_CASES, ids=[c["id"] for c, _ in CATALOG_CASES]
)
def test_catalog_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    args = catalog_run_args(case)
    blank = (
        Outcome("zero", 20) if not (get_assistant_message(args["output"]) or "").strip() else None
    )
    rule = outcome(case, expected, blank=blank)
    judge = ScriptedJudge(case["judgeResponses"])
    if rule.kind == "config":
        with pytest.raises(ConfigError):
            create_hallucination_scorer(model=judge, **options(case))
        return
    scorer = create_hallucination_scorer(model=judge, **options(case))
    if rule.kind == "error":
        with pytest.raises(ScorerRunError):
            scorer.run_sync(**args)
        return
    result = scorer.run_sync(**args)
    if rule.kind == "zero":
        assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
        assert result.score == expected["score"]
        return
    if rule.kind == "skipped":
        assert (result.status, result.score) == ("skipped", None)
        assert (
            result.reason
            == "The judge found no claims in the answer, so there is nothing to check."
        )
        return
    assert result.status == "ok"
    assert (result.score, result.reason) == (expected["score"], expected["reason"])
    assert result.preprocess_step_result.model_dump() == to_snake(expected["preprocessStepResult"])
    assert result.analyze_step_result.model_dump() == normalise_labels(
        to_snake(expected["analyzeStepResult"])
    )
    assert len(judge.calls) == len(expected["judgeCalls"])
