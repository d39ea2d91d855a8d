from __future__ import annotations

import math
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.judge import ScriptedJudge
from scorekit.judge.structured import extract_json
from scorekit.scorers.answer_similarity import (
    SimilarityWeights,
    answer_similarity_score,
    create_answer_similarity_scorer,
)
from tests.conformance import CATALOG, cases_for, catalog_run_args, options, to_snake
from tests.scorers.recipe_rules import blank_answer

CASES = cases_for("answer-similarity", corpus=CATALOG)

RATES = (
    "semantic_threshold",
    "exact_match_bonus",
    "missing_penalty",
    "contradiction_penalty",
    "extra_info_penalty",
)


# ---- the corpus ------------------------------------------------------------------------------
#
# Reply shapes. Mastra's judge echoes unit texts; ours names units by number (docs/scorers.md:
# never ask for a copy where an index suffices). The test therefore serves each of the corpus's
# analyze replies in our shape:
#   matches[i] {groundTruthUnit, outputUnit, matchType, explanation}
#       → {output_index, match_type, explanation}, the match of ground-truth unit i, with
#         output_index the position of the echoed outputUnit among the preprocess reply's
#         outputUnits, or null when it is not one of them (the corpus's echoes are mostly
#         placeholders such as "output unit 0"; the score does not depend on them);
#   extraInOutput → extra_in_output, as is;
#   contradictions[j] {outputUnit, groundTruthUnit, explanation}
#       → {ground_truth_index (the match whose echo it names), output_index, explanation}.
# Preprocess replies and reason texts are served as they are. Our step result then holds our
# own copy of each unit's text where Mastra's holds the judge's echo.


def _as_json(reply: Any) -> Any:
    """A reply given as text (fenced or not) read as JSON; anything else as it is."""
    if isinstance(reply, str):
        try:
            return extract_json(reply)
        except ValueError:
            return reply
    return reply


def translated(reply: Any, pre: Any) -> Any:
    reply, pre = _as_json(reply), _as_json(pre)
    if not isinstance(reply, dict) or "matches" not in reply or not isinstance(pre, dict):
        return reply
    outputs = pre.get("outputUnits") or []
    echoes = [m.get("groundTruthUnit") for m in reply["matches"]]

    def output_index(text: str | None) -> int | None:
        return outputs.index(text) if text in outputs else None

    return {
        "matches": [
            {
                "output_index": output_index(m.get("outputUnit")),
                "match_type": m.get("matchType"),
                "explanation": m.get("explanation", ""),
            }
            for m in reply["matches"]
        ],
        # optional lists stay absent where the reply left them out (row 106 fills them)
        **({"extra_in_output": reply["extraInOutput"]} if "extraInOutput" in reply else {}),
        **(
            {
                "contradictions": [
                    {
                        "ground_truth_index": echoes.index(c.get("groundTruthUnit"))
                        if c.get("groundTruthUnit") in echoes
                        else 0,
                        "output_index": output_index(c.get("outputUnit")),
                        "explanation": c.get("explanation", ""),
                    }
                    for c in reply["contradictions"]
                ]
            }
            if "contradictions" in reply
            else {}
        ),
    }


def served(case: dict[str, Any]) -> list[Any]:
    replies = case["judgeResponses"]
    return [translated(r, replies[0]) for r in replies]


def outcome(case: dict[str, Any], expected: dict[str, Any]) -> str:
    """What scorekit's rules make of a case, read from its content (never its id)."""
    opts = options(case)
    if any(not 0 <= opts[k] <= 1 for k in RATES if k in opts):
        return "config"  # row 35: weights and penalties are validated
    if "error" in expected:
        return "error"  # no ground truth, one required: the run fails, as in Mastra
    truth = case.get("groundTruth")
    if truth is None or (isinstance(truth, str) and not truth.strip()):
        return "skipped"  # row 37: no ground truth, none required
    if blank_answer(case) is not None:
        return "zero"  # row 38: an empty answer holds none of the ground truth
    pre, analysis = expected["preprocessStepResult"], expected["analyzeStepResult"]
    if len(analysis["matches"]) != len(pre["groundTruthUnits"]):
        return "count"  # row 36: one match per ground-truth unit (rows 18/26)
    return "mastra"


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


def test_the_corpus_exercises_every_outcome() -> None:
    kinds = {outcome(case, expected) for case, expected in CASES}
    assert {"config", "error", "skipped", "count", "mastra"} <= kinds


def consistent_rerun(case: dict[str, Any], expected: dict[str, Any]) -> None:
    """Serve Mastra's analyze reply after a preprocess reply with one ground-truth unit per
    match (the texts Mastra's judge echoed): the run is then ok and scores what Mastra scored."""
    pre = case["judgeResponses"][0]
    analysis = case["judgeResponses"][1]
    consistent = {
        "output_units": pre["outputUnits"],
        "ground_truth_units": [m["groundTruthUnit"] for m in analysis["matches"]],
    }
    judge = ScriptedJudge([consistent, translated(analysis, pre), "why"])
    scorer = create_answer_similarity_scorer(model=judge, **options(case))
    result = scorer.run_sync(**catalog_run_args(case))
    if not analysis["matches"]:
        # no matches means no ground-truth units: nothing to compare with (row 37);
        # Mastra's 0 is the formula's value for an empty list
        assert (result.status, len(judge.calls)) == ("skipped", 1)
        assert answer_similarity_score([], 0, 0) == expected["score"]
        return
    assert result.status == "ok"
    assert result.score == expected["score"]
    mastra = to_snake(expected["analyzeStepResult"])
    ours = result.analyze_step_result.model_dump()
    assert [m["match_type"] for m in ours["matches"]] == [
        m["match_type"] for m in mastra["matches"]
    ]
    assert [m["ground_truth_unit"] for m in ours["matches"]] == [
        m["ground_truth_unit"] for m in mastra["matches"]
    ]
    assert ours["extra_in_output"] == mastra["extra_in_output"]
    assert len(ours["contradictions"]) == len(mastra["contradictions"])


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    kind = outcome(case, expected)
    judge = ScriptedJudge(served(case))
    if kind == "config":
        with pytest.raises(ConfigError) as info:
            create_answer_similarity_scorer(model=judge, **options(case))
        assert info.value.field in RATES
        # the formula itself, without the range check, gives Mastra's score on these labels
        opts = {k: v for k, v in options(case).items() if k in RATES}
        analysis = expected["analyzeStepResult"]
        score = answer_similarity_score(
            [m["matchType"] for m in analysis["matches"]],
            len(analysis["contradictions"]),
            len(analysis["extraInOutput"]),
            weights=SimilarityWeights(**opts),
        )
        assert score == expected["score"]
        return
    scorer = create_answer_similarity_scorer(model=judge, **options(case))
    if kind == "error":
        with pytest.raises(ScorerRunError) as error:
            scorer.run_sync(**catalog_run_args(case))
        assert error.value.failed_step == "preprocess"
        assert error.value.result is not None and error.value.result.status == "error"
        assert judge.calls == []
        return
    if kind == "skipped":
        result = scorer.run_sync(**catalog_run_args(case))
        assert (result.status, result.score, judge.calls) == ("skipped", None, [])
        assert "ground truth" in result.reason
        return
    if kind == "zero":
        result = scorer.run_sync(**catalog_run_args(case))
        assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
        return
    if kind == "count":
        with pytest.raises(ScorerRunError) as error:
            scorer.run_sync(**catalog_run_args(case))
        assert error.value.failed_step == "analyze"
        # the repair request names the expected count; the next scripted reply is not JSON
        assert "expected exactly 1 matches" in judge.calls[2].messages[-1].content
        consistent_rerun(case, expected)
        return
    result = scorer.run_sync(**catalog_run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    pre = to_snake(expected["preprocessStepResult"])
    assert result.preprocess_step_result.model_dump() == pre
    mastra = to_snake(expected["analyzeStepResult"])
    ours = result.analyze_step_result.model_dump()
    assert [(m["match_type"], m["explanation"]) for m in ours["matches"]] == [
        (m["match_type"], m["explanation"]) for m in mastra["matches"]
    ]
    # our copy of the ground-truth unit where Mastra keeps the judge's echo
    assert [m["ground_truth_unit"] for m in ours["matches"]] == pre["ground_truth_units"]
    assert ours["extra_in_output"] == mastra["extra_in_output"]
    assert len(ours["contradictions"]) == len(mastra["contradictions"])
    assert len(judge.calls) == len(expected["judgeCalls"])


# ---- the formula -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matches", "extras", "contradictions", "weights", "scale", "score"),
    [
        (["exact"], 0, 0, None, 1.0, 1.0),
        (["semantic"], 0, 0, None, 1.0, 0.67),
        (["partial"], 0, 0, None, 1.0, 0.33),
        (["missing"], 0, 0, None, 1.0, 0.0),
        (["exact", "semantic", "partial", "missing"], 0, 0, None, 1.0, 0.47),
        (["exact", "exact"], 1, 0, None, 1.0, 0.95),
        (["exact", "exact"], 5, 0, None, 1.0, 0.8),
        (["exact", "missing"], 0, 1, None, 1.0, 0.0),
        (["semantic", "semantic", "missing"], 0, 0, None, 1.0, 0.4),
        (
            ["exact", "exact", "exact", "missing"],
            0,
            1,
            SimilarityWeights(contradiction_penalty=0.3),
            1.0,
            0.42,
        ),
        (["exact"], 0, 0, SimilarityWeights(0.7, 0.3, 0.2, 0.5), 10.0, 10.0),
        ([], 0, 0, None, 1.0, 0.0),
    ],
)
def test_spec_vectors(
    matches: list[Any],
    extras: int,
    contradictions: int,
    weights: SimilarityWeights | None,
    scale: float,
    score: float,
) -> None:
    assert answer_similarity_score(
        matches, contradictions, extras, weights=weights, scale=scale
    ) == (score)


# ---- runs ------------------------------------------------------------------------------------

UNITS = {
    "output_units": ["Paris is the capital of France", "Paris has 2 million people"],
    "ground_truth_units": ["The capital of France is Paris", "France is in Europe"],
}


def analysis(*matches: tuple[int | None, str], extras: list[str] | None = None) -> dict[str, Any]:
    return {
        "matches": [
            {"output_index": index, "match_type": kind, "explanation": f"e{i}"}
            for i, (index, kind) in enumerate(matches)
        ],
        "extra_in_output": extras or [],
        "contradictions": [],
    }


def run(judge: ScriptedJudge, **kwargs: Any) -> Any:
    scorer = create_answer_similarity_scorer(model=judge, **kwargs)
    return scorer.run_sync(
        input="What is the capital of France?",
        output="Paris is the capital of France. It has 2 million people.",
        ground_truth="The capital of France is Paris, in Europe.",
    )


def test_units_are_named_by_index_and_copied_from_our_units() -> None:
    reply = analysis((0, " Exact "), (None, "MISSING"), extras=["population"])
    judge = ScriptedJudge([UNITS, reply, "The score is 0.39 because ..."])
    result = run(judge)
    assert result.score == 0.39  # (1.2 − 0.15) / 2.4 − 0.05
    matches = result.analyze_step_result.matches
    assert [(m.match_type, m.ground_truth_unit, m.output_unit) for m in matches] == [
        ("exact", "The capital of France is Paris", "Paris is the capital of France"),
        ("missing", "France is in Europe", None),
    ]
    analyze_prompt = judge.calls[1].prompt
    assert "[0] The capital of France is Paris\n[1] France is in Europe" in analyze_prompt
    assert "[1] Paris has 2 million people" in analyze_prompt
    assert "Give exactly 2 matches" in analyze_prompt
    assert result.reason == "The score is 0.39 because ..."
    assert "The score is 0.39 because" in judge.calls[2].prompt


def test_the_schema_asks_for_one_match_per_ground_truth_unit() -> None:
    judge = ScriptedJudge([UNITS, analysis((0, "exact"), (1, "partial")), "why"])
    run(judge)
    schema = judge.calls[1].output_schema
    matches = schema["properties"]["matches"]
    assert (matches["minItems"], matches["maxItems"]) == (2, 2)
    index = matches["items"]["properties"]["output_index"]
    assert index["anyOf"][0]["maximum"] == 1
    assert "ground_truth_unit" not in matches["items"]["properties"]


def test_camel_case_replies_are_accepted() -> None:
    reply = {
        "matches": [
            {"outputIndex": 0, "matchType": "exact", "explanation": "same"},
            {"outputIndex": None, "matchType": "missing", "explanation": "absent"},
        ],
        "extraInOutput": [],
        "contradictions": [{"groundTruthIndex": 1, "outputIndex": 1, "explanation": "no"}],
    }
    judge = ScriptedJudge(
        [
            {"outputUnits": UNITS["output_units"], "groundTruthUnits": UNITS["ground_truth_units"]},
            reply,
            "why",
        ]
    )
    result = run(judge)
    assert result.score == 0.0  # a contradiction costs 1.0 by default
    contradiction = result.analyze_step_result.contradictions[0]
    assert (contradiction.ground_truth_unit, contradiction.output_unit) == (
        "France is in Europe",
        "Paris has 2 million people",
    )


def test_a_short_reply_is_repaired_with_the_expected_count() -> None:
    judge = ScriptedJudge(
        [UNITS, analysis((0, "exact")), analysis((0, "exact"), (1, "semantic")), "why"]
    )
    result = run(judge)
    assert result.status == "ok"
    assert result.score == 0.83  # (1.2 + 0.8) / 2.4
    assert "expected exactly 2 matches" in judge.calls[2].messages[-1].content
    assert result.judge_usage.calls == 4


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (analysis((2, "exact"), (None, "missing")), "output_index 2 is out of range"),
        (analysis((0, "close"), (None, "missing")), "match_type"),
        (
            {
                **analysis((0, "exact"), (None, "missing")),
                "contradictions": [
                    {"ground_truth_index": 1, "output_index": None, "explanation": "a"},
                    {"ground_truth_index": 1, "output_index": 0, "explanation": "b"},
                ],
            },
            "contradicted once",
        ),
    ],
)
def test_invalid_replies_fail_after_one_repair(bad: dict[str, Any], message: str) -> None:
    judge = ScriptedJudge([UNITS, bad, bad])
    with pytest.raises(ScorerRunError) as info:
        run(judge)
    assert info.value.failed_step == "analyze"
    assert message in info.value.result.error.message
    assert len(judge.calls) == 3


@pytest.mark.parametrize("ground_truth", [None, "", "   "])
def test_a_required_ground_truth_that_is_missing_fails_the_run(ground_truth: Any) -> None:
    judge = ScriptedJudge([])
    scorer = create_answer_similarity_scorer(model=judge)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="Paris.", ground_truth=ground_truth)
    assert info.value.failed_step == "preprocess"
    assert info.value.result.status == "error"
    assert "require_ground_truth=False" in info.value.result.error.message
    assert judge.calls == []


@pytest.mark.parametrize("ground_truth", [None, "", "   "])
def test_a_missing_ground_truth_not_required_is_skipped(ground_truth: Any) -> None:
    # row 37: Mastra asks the judge three times and scores 0
    judge = ScriptedJudge([])
    scorer = create_answer_similarity_scorer(model=judge, require_ground_truth=False)
    result = scorer.run_sync(input="q", output="Paris.", ground_truth=ground_truth)
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])
    assert result.reason == (
        "Answer similarity needs a ground truth to compare with; this run has none."
    )


def test_a_ground_truth_without_units_is_skipped() -> None:
    judge = ScriptedJudge([{"output_units": ["Paris"], "ground_truth_units": []}])
    result = create_answer_similarity_scorer(model=judge).run_sync(
        input="q", output="Paris.", ground_truth="..."
    )
    assert (result.status, result.score, len(judge.calls)) == ("skipped", None, 1)
    assert "no semantic units in the ground truth" in result.reason


def test_empty_answer_scores_zero_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    result = create_answer_similarity_scorer(model=judge).run_sync(
        input="q", output="  ", ground_truth="Paris is the capital."
    )
    assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
    assert result.reason == (
        "The score is 0 because the answer is empty, so it holds none of the ground truth."
    )


def test_a_ground_truth_of_zero_is_compared() -> None:
    # Mastra's `!run.groundTruth` takes 0 for a missing ground truth; scorekit reads it as "0"
    judge = ScriptedJudge(
        [
            {"output_units": ["0"], "ground_truth_units": ["0"]},
            analysis((0, "exact")),
            "why",
        ]
    )
    result = create_answer_similarity_scorer(model=judge).run_sync(
        input="What is 1 - 1?", output="0", ground_truth=0
    )
    assert result.score == 1.0


def test_non_string_ground_truth_is_read_as_json() -> None:
    judge = ScriptedJudge(
        [{"output_units": ["Paris"], "ground_truth_units": ["Paris"]}, analysis((0, "exact")), "w"]
    )
    create_answer_similarity_scorer(model=judge).run_sync(
        input="q", output="Paris", ground_truth={"capital": "Paris", "country": "France"}
    )
    assert '{"capital":"Paris","country":"France"}' in judge.calls[0].prompt


def test_unit_lists_are_bounded_by_their_text() -> None:
    judge = ScriptedJudge([{"output_units": ["a", "b"], "ground_truth_units": ["c"]}] * 2)
    with pytest.raises(ScorerRunError) as info:
        create_answer_similarity_scorer(model=judge).run_sync(
            input="q", output="4", ground_truth="4"
        )
    assert "at most 1 output_units" in info.value.result.error.message
    assert judge.calls[0].output_schema["properties"]["output_units"]["maxItems"] == 1


def test_prompts_ask_for_reasons_in_the_query_language() -> None:
    judge = ScriptedJudge(
        [
            {"output_units": ["富士山は3776メートル"], "ground_truth_units": ["標高3776メートル"]},
            analysis((0, "semantic")),
            "理由",
        ]
    )
    create_answer_similarity_scorer(model=judge).run_sync(
        input="富士山の高さは？",
        output="富士山は3776メートルです。",
        ground_truth="標高3776メートル。",
    )
    assert "富士山の高さは？" in judge.calls[1].prompt
    assert "language the user's query is written in" in judge.calls[1].prompt


def test_options_keep_their_own_defaults() -> None:
    judge = ScriptedJudge([UNITS, analysis((0, "semantic"), (1, "semantic")), "why"])
    assert run(judge, scale=2).score == 1.33  # 0.8 / 1.2 × 2; the other weights stay


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"semantic_threshold": 1.5}, "semantic_threshold"),
        ({"semantic_threshold": -0.1}, "semantic_threshold"),
        ({"semantic_threshold": math.nan}, "semantic_threshold"),
        ({"exact_match_bonus": math.inf}, "exact_match_bonus"),
        ({"exact_match_bonus": "0.2"}, "exact_match_bonus"),
        ({"missing_penalty": 2}, "missing_penalty"),
        ({"contradiction_penalty": True}, "contradiction_penalty"),
        ({"extra_info_penalty": -1}, "extra_info_penalty"),
        ({"require_ground_truth": "no"}, "require_ground_truth"),
        ({"scale": 0}, "scale"),
    ],
)
def test_bad_options_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    # row 35: Mastra takes any value (semantic_threshold 1.5 is merely clamped away)
    with pytest.raises(ConfigError) as info:
        create_answer_similarity_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


def test_range_ends_are_accepted() -> None:
    create_answer_similarity_scorer(
        model=ScriptedJudge([]),
        semantic_threshold=1,
        exact_match_bonus=0,
        missing_penalty=0.0,
        contradiction_penalty=1.0,
        extra_info_penalty=0,
    )


def test_a_missing_unit_pointing_at_an_answer_unit_is_repaired() -> None:
    # a "missing" ground-truth unit cannot match answer unit 0: the reply contradicts itself
    from scorekit.scorers.answer_similarity import UnitMatch

    with pytest.raises(ValueError, match="output_index must be null"):
        UnitMatch.model_validate({"output_index": 0, "match_type": "missing", "explanation": "e"})
    assert (
        UnitMatch.model_validate(
            {"output_index": None, "match_type": "missing", "explanation": "e"}
        ).output_index
        is None
    )
