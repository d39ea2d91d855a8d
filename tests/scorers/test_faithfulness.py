from __future__ import annotations

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.retrieval_context import ALL_BLANK_REASON
from scorekit.judge import ScriptedJudge
from scorekit.scorers import create_faithfulness_scorer
from scorekit.scorers.faithfulness import faithfulness_score
from tests.conformance import cases_for, options, run_args, to_snake
from tests.scorers.labels import normalise_labels
from tests.scorers.recipe_rules import answer_of, blank_answer, outcome, run_by_rule

CASES = cases_for("faithfulness")


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    judge = ScriptedJudge(case["judgeResponses"])
    # Mastra's judge writes the reason: reason="llm" (divergences.md row 102)
    rule = outcome(case, expected, blank=blank_answer(case), source=answer_of(case))
    result = run_by_rule(
        rule,
        lambda: create_faithfulness_scorer(model=judge, **{"reason": "llm", **options(case)}),
        run_args(case),
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


def test_tool_results_are_the_context() -> None:
    case, _ = next(c for c in CASES if c[0]["id"] == "faithfulness/context-from-tool-results")
    judge = ScriptedJudge(case["judgeResponses"])
    create_faithfulness_scorer(model=judge).run_sync(**run_args(case))
    assert 'Context:\n{"tempC":22}\n' in judge.calls[1].prompt


def test_mastra_db_message_tool_invocations_are_read() -> None:
    output = [
        {
            "id": "m1",
            "role": "assistant",
            "content": {
                "format": 2,
                "content": "Paris has 2.1 million people.",
                "toolInvocations": [
                    {"state": "result", "toolName": "pop", "result": {"population": "2.1M"}},
                    {"state": "call", "toolName": "pop", "args": {}},
                ],
            },
        }
    ]
    judge = ScriptedJudge(
        [
            {"claims": ["Paris has 2.1 million people."]},
            {"verdicts": [{"verdict": "yes", "reason": "r"}]},
            "why",
        ]
    )
    result = create_faithfulness_scorer(model=judge).run_sync(input="Population?", output=output)
    assert result.score == 1.0
    assert 'Context:\n{"population":"2.1M"}\n' in judge.calls[1].prompt


@pytest.mark.parametrize(
    ("verdicts", "scale", "score"),
    [
        (["yes", "no", "unsure"], 1.0, 0.33),
        ([], 1.0, 0.0),
        (["yes", "yes", "no"], 10.0, 6.67),
    ],
)
def test_spec_vectors(verdicts: list[str], scale: float, score: float) -> None:
    assert faithfulness_score(verdicts, scale=scale) == score


def test_labels_are_normalised() -> None:
    # Mastra compares verdict === 'yes' exactly and scores [Yes, yes] 0.5 (divergence 6)
    judge = ScriptedJudge(
        [
            {"claims": ["a", "b"]},
            {"verdicts": [{"verdict": "Yes", "reason": "r"}, {"verdict": " yes", "reason": "r"}]},
            "why",
        ]
    )
    result = create_faithfulness_scorer(model=judge, context=["a b"]).run_sync(
        input="q", output="a. b."
    )
    assert result.score == 1.0


def test_no_context_is_skipped_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    result = create_faithfulness_scorer(model=judge).run_sync(input="q", output="It is sunny.")
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])


@pytest.mark.parametrize("answer", ["", "   \n"])
def test_empty_answer_scores_zero_without_a_judge_call(answer: str) -> None:
    judge = ScriptedJudge([])
    result = create_faithfulness_scorer(model=judge, context=["c"]).run_sync(
        input="q", output=answer
    )
    assert result.status == "ok"
    assert result.score == 0.0
    assert result.preprocess_step_result.claims == []
    assert result.analyze_step_result.verdicts == []
    assert result.reason == "The score is 0 because the answer makes no claims."
    assert judge.calls == []


def test_unknown_label_fails_after_repair() -> None:
    bad = {"verdicts": [{"verdict": "partly", "reason": "r"}]}
    judge = ScriptedJudge([{"claims": ["a"]}, bad, bad])
    scorer = create_faithfulness_scorer(model=judge, context=["c"])
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="a")
    assert info.value.failed_step == "analyze"
    assert info.value.result.error.raw_output is not None


def test_japanese_prompts() -> None:
    judge = ScriptedJudge(
        [
            {"claims": ["東京は首都だ。"]},
            {"verdicts": [{"verdict": "yes", "reason": "文脈にある。"}]},
            "説明",
        ]
    )
    result = create_faithfulness_scorer(model=judge, context=["東京は日本の首都である。"]).run_sync(
        input="日本の首都は？", output="東京は首都だ。"
    )
    assert result.score == 1.0
    assert "日本の首都は？" in judge.calls[1].prompt
    assert "in the language the user's query is written in" in judge.calls[1].prompt


@pytest.mark.parametrize(
    ("kwargs", "field"), [({"context": []}, "context"), ({"scale": float("nan")}, "scale")]
)
def test_construction_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_faithfulness_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


def test_tool_results_in_parts_are_read_once() -> None:
    invocation = {"toolCallId": "t1", "toolName": "w", "state": "result", "result": {"c": 1}}
    output = [
        {
            "id": "m1",
            "role": "assistant",
            "content": {
                "format": 2,
                "parts": [
                    {"type": "tool-invocation", "toolInvocation": invocation},
                    {"type": "text", "text": "It is 1."},
                ],
                "toolInvocations": [invocation],
            },
        }
    ]
    judge = ScriptedJudge(
        [{"claims": ["c"]}, {"verdicts": [{"verdict": "yes", "reason": "r"}]}, "w"]
    )
    create_faithfulness_scorer(model=judge).run_sync(input="q", output=output)
    assert 'Context:\n{"c":1}\n\nClaims' in judge.calls[1].prompt


def test_the_runs_own_context_comes_before_tool_results() -> None:
    judge = ScriptedJudge(
        [
            {"claims": ["Paris is in France."]},
            {"verdicts": [{"verdict": "yes", "reason": "r"}]},
            "reason",
        ]
    )
    scorer = create_faithfulness_scorer(model=judge)
    result = scorer.run_sync(
        input="Where is Paris?", output="Paris is in France.", context=["Paris is in France."]
    )
    assert result.score == 1.0
    assert "Paris is in France." in judge.calls[1].prompt.split("Context:")[1]


def tool_output(*results: object) -> list[dict[str, object]]:
    return [
        {
            "role": "assistant",
            "content": "It is 22 degrees.",
            "toolInvocations": [
                {"state": "result", "toolName": "weather", "result": result} for result in results
            ],
        }
    ]


def test_blank_tool_results_are_dropped() -> None:
    # row 78: a tool result that is a blank string is no context
    judge = ScriptedJudge(
        [{"claims": ["It is 22 degrees."]}, {"verdicts": [{"verdict": "yes", "reason": "r"}]}, "w"]
    )
    scorer = create_faithfulness_scorer(model=judge)
    result = scorer.run_sync(input="Weather?", output=tool_output("  ", {"temp": 22}, ""))
    assert result.score == 1.0
    assert 'Context:\n{"temp":22}\n\nClaims' in judge.calls[1].prompt
    blank = create_faithfulness_scorer(model=ScriptedJudge([]))
    skipped = blank.run_sync(input="Weather?", output=tool_output("", " \n"))
    assert (skipped.status, skipped.score, skipped.reason) == ("skipped", None, ALL_BLANK_REASON)


def test_a_runs_all_blank_context_is_skipped() -> None:
    judge = ScriptedJudge([])
    result = create_faithfulness_scorer(model=judge).run_sync(
        input="q", output="Paris is in France.", context=["", "   "]
    )
    assert (result.status, result.reason, judge.calls) == ("skipped", ALL_BLANK_REASON, [])


def test_an_all_blank_context_option_is_refused() -> None:
    with pytest.raises(ConfigError, match="only blank pieces") as info:
        create_faithfulness_scorer(model=ScriptedJudge([]), context=[" "])
    assert info.value.field == "context"
