from __future__ import annotations

import contextlib
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.messages import ground_truth_text
from scorekit.judge import ScriptedJudge
from scorekit.scorers import create_context_recall_scorer
from scorekit.scorers.context_recall import NO_GROUND_TRUTH_REASON, context_recall_score
from tests.conformance import CATALOG, cases_for, catalog_run_args, options
from tests.scorers.recipe_rules import Outcome, assert_as_mastra, outcome

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


def test_a_ground_truth_without_claims_is_skipped_without_more_judge_calls() -> None:
    # Mastra scores 0 (divergences.md row 28): nothing was looked for, so nothing was measured
    judge = ScriptedJudge([{"claims": []}])
    result = create_context_recall_scorer(model=judge, context=CONTEXT).run_sync(
        input="q", output="o", ground_truth="Hmm."
    )
    assert (result.status, result.score, len(judge.calls)) == ("skipped", None, 1)
    assert result.reason == (
        "The judge found no claims in the ground truth, so there is nothing to look for in the "
        "context."
    )
    assert result.preprocess_step_result.claims == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({}, "context"), ({"context": []}, "context"), ({"context": ["a"], "scale": 0}, "scale")],
)
def test_construction_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_context_recall_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


CATALOG_CASES = cases_for("context-recall", corpus=CATALOG)


def test_catalog_corpus_is_present() -> None:
    assert CATALOG_CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(
    ("case", "expected"), CATALOG_CASES, ids=[c["id"] for c, _ in CATALOG_CASES]
)
def test_catalog_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    args = catalog_run_args(case)
    ground_truth = args.get("ground_truth")
    # row 22: no ground truth (absent, None or blank text) is skipped
    missing = ground_truth is None or (isinstance(ground_truth, str) and not ground_truth.strip())
    blank = Outcome("skipped", 22) if missing else None
    source = None if ground_truth is None else ground_truth_text(ground_truth)
    rule = outcome(case, expected, blank=blank, source=source)
    judge = ScriptedJudge(case["judgeResponses"])
    if ground_truth == 0 and not isinstance(ground_truth, bool) and "error" not in expected:
        # row 68: the number 0 is a ground truth (Mastra tests it for truth and finds none):
        # scorekit asks the judge for its claims
        scorer = create_context_recall_scorer(model=judge, **options(case))
        with contextlib.suppress(ScorerRunError):
            scorer.run_sync(**args)
        assert judge.calls and "\n0\n" in judge.calls[0].prompt
        return
    if rule.kind == "config" or ("error" in expected and "failedStep" not in expected):
        with pytest.raises(ConfigError):  # the factory itself refused (Mastra threw there too)
            create_context_recall_scorer(model=judge, **options(case))
        return
    scorer = create_context_recall_scorer(model=judge, **options(case))
    if rule.kind == "error":
        with pytest.raises(ScorerRunError):
            scorer.run_sync(**args)
        return
    result = scorer.run_sync(**args)
    if rule.kind == "skipped":
        assert (result.status, result.score) == ("skipped", None)
        assert result.reason in (
            NO_GROUND_TRUTH_REASON,
            "The judge found no claims in the ground truth, so there is nothing to look for in "
            "the context.",
        )
        return
    assert_as_mastra(result, expected, calls=len(judge.calls))


def test_a_ground_truth_of_zero_is_a_ground_truth() -> None:
    # Mastra tests the ground truth for truth, so 0 counts as missing and scores 0 (row 68)
    judge = ScriptedJudge([{"claims": ["0"]}, verdicts("yes"), "why"])
    result = create_context_recall_scorer(model=judge, context=["The count is 0."]).run_sync(
        input="How many?", output="None.", ground_truth=0
    )
    assert (result.status, result.score) == ("ok", 1.0)
    assert "\n0\n" in judge.calls[0].prompt
