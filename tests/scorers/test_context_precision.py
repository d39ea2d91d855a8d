from __future__ import annotations

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.retrieval_context import ALL_BLANK_REASON
from scorekit.judge import ScriptedJudge
from scorekit.scorers import create_context_precision_scorer
from scorekit.scorers.context_precision import context_precision_score
from tests.conformance import cases_for, options, run_args, to_snake
from tests.scorers.labels import normalise_labels
from tests.scorers.recipe_rules import covers_each_index

CASES = cases_for("context-precision")


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    judge = ScriptedJudge(case["judgeResponses"])
    pieces = [p for p in options(case).get("context") or [] if p.strip()]
    if not pieces:  # row 25: a context with no piece to judge is refused at construction
        with pytest.raises(ConfigError):
            create_context_precision_scorer(model=judge, **options(case))
        return
    scorer = create_context_precision_scorer(model=judge, **options(case))
    if not covers_each_index(expected["analyzeStepResult"]["verdicts"], len(pieces)):
        # Mastra scores verdicts that miss or repeat a context index (an empty list: 0);
        # scorekit repairs, then fails (divergences.md row 80)
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**run_args(case))
        assert info.value.failed_step == "analyze"
        assert info.value.result.status == "error"
        assert "one for each context_index from 0 to" in judge.calls[1].messages[-1].content
        return
    result = scorer.run_sync(**run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result is None
    # labels are stored trimmed and lower-cased (docs/divergences.md row 6)
    assert result.analyze_step_result.model_dump() == normalise_labels(
        to_snake(expected["analyzeStepResult"])
    )


@pytest.mark.parametrize(
    ("verdicts", "scale", "score"),
    [
        ([(0, "yes"), (1, "no"), (2, "yes"), (3, "no")], 1.0, 0.83),
        ([(0, "no"), (1, "yes")], 1.0, 0.5),
        ([(0, "no"), (1, "no"), (2, "yes")], 1.0, 0.33),
        ([(0, "yes"), (1, "yes")], 1.0, 1.0),
        ([(2, "yes"), (0, "no"), (1, "yes")], 1.0, 0.58),  # sorted by context_index first
        ([(0, "no"), (1, "yes"), (2, "no"), (3, "yes")], 1.0, 0.5),
        ([(0, "no"), (1, "no")], 1.0, 0.0),
        ([], 1.0, 0.0),
        ([(0, "yes"), (1, "no"), (2, "yes"), (3, "no")], 10.0, 8.33),
    ],
)
def test_spec_vectors(verdicts: list, scale: float, score: float) -> None:
    assert context_precision_score(verdicts, scale=scale) == score


def test_stored_verdicts_are_sorted_by_context_index_as_mastra_stores_them() -> None:
    # issue 33: Mastra sorts its stored verdicts by context_index; the reply order is kept
    # for reading log-probabilities (items_in_reply_order), the score is the same
    reply = {
        "verdicts": [
            {"context_index": 2, "verdict": "yes", "reason": "r"},
            {"context_index": 0, "verdict": "no", "reason": "r"},
            {"context_index": 1, "verdict": "yes", "reason": "r"},
        ]
    }
    scorer = create_context_precision_scorer(
        model=ScriptedJudge([reply, "why"]), context=list("abc")
    )
    result = scorer.run_sync(input="q", output="a")
    assert result.score == 0.58
    analysis = result.analyze_step_result
    assert [(v.context_index, v.verdict) for v in analysis.verdicts] == [
        (0, "no"),
        (1, "yes"),
        (2, "yes"),
    ]
    assert [v.context_index for v in analysis.items_in_reply_order()] == [2, 0, 1]


def test_unknown_label_is_repaired_or_fails() -> None:
    bad = {"verdicts": [{"context_index": 0, "verdict": "maybe", "reason": "r"}]}
    good = {"verdicts": [{"context_index": 0, "verdict": "Yes", "reason": "r"}]}
    judge = ScriptedJudge([bad, good, "why"])
    result = create_context_precision_scorer(model=judge, context=["a"]).run_sync(
        input="q", output="a"
    )
    assert result.score == 1.0
    assert "verdict" in judge.calls[1].messages[-1].content


def test_empty_resolved_context_is_skipped_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    scorer = create_context_precision_scorer(model=judge, context_extractor=lambda i, o: [])
    result = scorer.run_sync(input="q", output="a")
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])


def test_prompts_carry_the_query_language_rule() -> None:
    reply = {"verdicts": [{"context_index": 0, "verdict": "yes", "reason": "理由"}]}
    judge = ScriptedJudge([reply, "スコアは1です。"])
    create_context_precision_scorer(model=judge, context=["東京は日本の首都である。"]).run_sync(
        input="日本の首都は？", output="東京です。"
    )
    analyze, reason = (call.prompt for call in judge.calls)
    assert "[0] 東京は日本の首都である。" in analyze
    assert "in the language the user's query is written in" in analyze
    assert "Write in the language the user query is written in." in reason


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({}, "context"), ({"context": []}, "context"), ({"context": ["a"], "scale": 0}, "scale")],
)
def test_construction_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_context_precision_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


def verdicts(*pairs: tuple[int, str]) -> dict[str, list[dict[str, object]]]:
    return {"verdicts": [{"context_index": i, "verdict": v, "reason": "r"} for i, v in pairs]}


@pytest.mark.parametrize(
    ("reply", "got"),
    [
        ({"verdicts": []}, "[]"),
        (verdicts((0, "yes"), (0, "yes"), (0, "yes")), "[0, 0, 0]"),
        (verdicts((0, "yes"), (1, "yes"), (5, "yes")), "[0, 1, 5]"),
    ],
)
def test_a_reply_that_does_not_cover_each_piece_once_is_an_error(
    reply: dict[str, object], got: str
) -> None:
    # row 80: Mastra scores these 0, 1.0 and 1.0
    judge = ScriptedJudge([reply, reply])
    scorer = create_context_precision_scorer(model=judge, context=list("abc"))
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="a")
    error = info.value.result.error
    assert (error.step, info.value.result.status) == ("analyze", "error")
    assert (
        "expected exactly 3 verdicts, one for each context_index from 0 to 2, each exactly "
        f"once; got context_index values {got}" in error.message
    )
    assert error.raw_output is not None
    assert len(judge.calls) == 2  # the reply and one repair request


def test_blank_pieces_are_dropped_and_indices_map_back() -> None:
    # row 78: the judge sees the two pieces with text, numbered 0 and 1; the result
    # names their positions in the context as given, 1 and 3
    judge = ScriptedJudge([verdicts((0, "no"), (1, "yes")), "why"])
    scorer = create_context_precision_scorer(model=judge, context=["", "a", " \n", "b"])
    result = scorer.run_sync(input="q", output="a")
    assert "Context pieces, in retrieval order (numbered from 0):\n[0] a\n[1] b\n" in (
        judge.calls[0].prompt
    )
    assert judge.calls[0].output_schema["properties"]["verdicts"]["maxItems"] == 2
    assert result.score == 0.5
    assert [(v.context_index, v.verdict) for v in result.analyze_step_result.verdicts] == [
        (1, "no"),
        (3, "yes"),
    ]
    assert "- piece 1: no (r)\n- piece 3: yes (r)" in judge.calls[1].prompt


def test_all_blank_pieces_are_skipped_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    scorer = create_context_precision_scorer(model=judge, context_extractor=lambda i, o: ["", " "])
    result = scorer.run_sync(input="q", output="a")
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])
    assert result.reason == ALL_BLANK_REASON
    assert ALL_BLANK_REASON == (
        "No context to evaluate: the context pieces were all blank (empty or whitespace only)."
    )


def test_an_all_blank_fixed_context_is_refused() -> None:
    with pytest.raises(ConfigError, match="only blank pieces") as info:
        create_context_precision_scorer(model=ScriptedJudge([]), context=["", "  "])
    assert info.value.field == "context"
