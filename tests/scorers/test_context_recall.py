from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError
from scorekit.judge import ScriptedJudge
from scorekit.scorers import create_context_recall_scorer
from scorekit.scorers.context_recall import context_recall_score

CONTEXT = ["Einstein was born in Ulm in 1879.", "He won the 1921 Nobel Prize in Physics."]


def verdicts(*labels: str) -> dict[str, Any]:
    return {"verdicts": [{"verdict": label, "reason": "r"} for label in labels]}


@pytest.mark.parametrize(
    ("labels", "claims", "score"),
    [
        (["yes", "yes", "no"], 3, 0.67),
        (["yes", "yes", "yes"], 2, 1.0),  # capped at 1
        ([], 0, 0.0),
        (["yes"], 3, 0.33),
    ],
)
def test_spec_vectors(labels: list[str], claims: int, score: float) -> None:
    assert context_recall_score(labels, claims) == score


def test_counts_claims_of_the_ground_truth() -> None:
    judge = ScriptedJudge(
        [
            {"claims": ["born in Ulm", "born 1879", "taught in Prague"]},
            verdicts(" Yes ", "yes", "no"),
            "why",
        ]
    )
    scorer = create_context_recall_scorer(model=judge, context=CONTEXT)
    result = scorer.run_sync(
        input="Tell me about Einstein",
        output="...",
        ground_truth="Einstein was born in Ulm in 1879 and taught in Prague.",
    )
    assert result.score == 0.67
    assert "Einstein was born in Ulm in 1879 and taught in Prague." in judge.calls[0].prompt
    assert "[1] He won the 1921 Nobel Prize in Physics." in judge.calls[1].prompt
    assert "[2] taught in Prague" in judge.calls[1].prompt


def test_non_string_ground_truth_is_read_as_json() -> None:
    judge = ScriptedJudge([{"claims": ["a"]}, verdicts("yes"), "why"])
    create_context_recall_scorer(model=judge, context=CONTEXT).run_sync(
        input="q", output="o", ground_truth={"born": "Ulm", "year": 1879}
    )
    assert '{"born":"Ulm","year":1879}' in judge.calls[0].prompt


@pytest.mark.parametrize("ground_truth", [None, "", "  "])
def test_missing_ground_truth_is_skipped(ground_truth: Any) -> None:
    # Mastra scores 0 (docs/divergences.md row 22)
    judge = ScriptedJudge([])
    result = create_context_recall_scorer(model=judge, context=CONTEXT).run_sync(
        input="q", output="o", ground_truth=ground_truth
    )
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])
    assert result.reason == "Context recall needs a ground truth; this run has none."


def test_empty_resolved_context_is_skipped() -> None:
    judge = ScriptedJudge([])
    result = create_context_recall_scorer(model=judge, context_extractor=lambda i, o: []).run_sync(
        input="q", output="o", ground_truth="g"
    )
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])


def test_no_claims_scores_zero_without_more_judge_calls() -> None:
    judge = ScriptedJudge([{"claims": []}])
    result = create_context_recall_scorer(model=judge, context=CONTEXT).run_sync(
        input="q", output="o", ground_truth="Hmm."
    )
    assert (result.status, result.score, len(judge.calls)) == ("ok", 0.0, 1)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({}, "context"), ({"context": []}, "context"), ({"context": ["a"], "scale": 0}, "scale")],
)
def test_construction_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_context_recall_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field
