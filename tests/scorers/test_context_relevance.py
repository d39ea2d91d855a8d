from __future__ import annotations

import json
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.retrieval_context import ALL_BLANK_REASON, item_context
from scorekit.judge import ScriptedJudge
from scorekit.judge.budget import ReplyBound, schema_bound, tokens_for
from scorekit.scorers import create_context_relevance_scorer_llm
from scorekit.scorers.context_relevance import (
    ContextRelevancePenalties,
    context_relevance_breakdown,
    context_relevance_score,
)
from scorekit.scorers.context_relevance_prompts import INSTRUCTIONS
from tests.conformance import cases_for, options, run_args, snake, to_snake
from tests.scorers.recipe_rules import covers_each_index

CASES = cases_for("context-relevance")


def evaluation(index: int, piece: str, level: str, used: bool) -> dict[str, Any]:
    # the judge is not asked for the piece's text (row 79); ``piece`` is what the
    # scorer fills in, and what the step result must hold
    del piece
    return {
        "context_index": index,
        "relevance_level": level,
        "was_used": used,
        "reasoning": f"reasoning {index}",
    }


def analysis(
    pieces: list[str], labels: list[tuple[str, bool]], missing: list[str] | None = None
) -> dict[str, Any]:
    return {
        "evaluations": [
            evaluation(i, piece, level, used)
            for i, (piece, (level, used)) in enumerate(zip(pieces, labels, strict=True))
        ],
        "missing_context": missing or [],
        "overall_assessment": "assessment",
    }


def case_options(case: dict[str, Any]) -> dict[str, Any]:
    opts = {"reason": "llm", **options(case)}  # Mastra's judge writes it (divergences row 102)
    if "penalties" in opts:
        opts["penalties"] = {snake(k): v for k, v in opts["penalties"].items()}
    return opts


def test_corpus_is_present() -> None:
    assert CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict, expected: dict) -> None:
    judge = ScriptedJudge(case["judgeResponses"])
    pieces = [p for p in case_options(case).get("context") or [] if p.strip()]
    if not pieces:  # row 25: a context with no piece to judge is refused at construction
        with pytest.raises(ConfigError):
            create_context_relevance_scorer_llm(model=judge, **case_options(case))
        return
    scorer = create_context_relevance_scorer_llm(model=judge, **case_options(case))
    evaluations = (expected.get("analyzeStepResult") or {}).get("evaluations")
    uncovered = evaluations is not None and not covers_each_index(evaluations, len(pieces))
    if "error" in expected or uncovered:
        # Mastra scores evaluations that miss or repeat a context index (none at all: 1 or 0);
        # scorekit repairs, then fails (divergences.md rows 18 and 19)
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**run_args(case))
        assert info.value.failed_step == "analyze"
        assert info.value.result is not None
        assert info.value.result.status == "error"
        if uncovered:
            # the repair request names the expected count (and the indices, where the reply
            # gave indices); the reply to it was not JSON
            assert (
                f"expected exactly {len(pieces)} evaluations, one"
                in judge.calls[1].messages[-1].content
            )
            if evaluations:  # the formula itself matches Mastra on the same labels
                reply = to_snake(case["judgeResponses"][0])
                pairs = [(e["relevance_level"], e["was_used"]) for e in reply["evaluations"]]
                missing = len(reply.get("missing_context", []))
                assert context_relevance_score(pairs, missing) == expected["score"]
        return
    result = scorer.run_sync(**run_args(case))
    assert result.status == "ok"
    assert result.score == expected["score"]
    assert result.reason == expected["reason"]
    assert result.preprocess_step_result is None
    assert result.analyze_step_result.model_dump() == to_snake(expected["analyzeStepResult"])
    assert len(judge.calls) == 2


def test_partial_reply_is_repaired_by_the_judge() -> None:
    pieces = ["Einstein won the 1921 Nobel Prize.", "He was born in Ulm.", "Bananas are yellow."]
    partial = analysis(pieces[:1], [("high", True)])
    full = analysis(pieces, [("high", True), ("low", False), ("none", False)])
    judge = ScriptedJudge([partial, full, "because"])
    scorer = create_context_relevance_scorer_llm(model=judge, context=pieces, reason="llm")
    result = scorer.run_sync(input="Which prize did Einstein win?", output="The 1921 Nobel.")
    assert result.status == "ok"
    assert result.score == 0.43  # (1 + 0.3) / 3
    repair = judge.calls[1].messages[-1].content
    assert (
        "expected exactly 3 evaluations, one for each context_index from 0 to 2, each exactly "
        "once; got context_index values [0]" in repair
    )
    assert result.judge_usage.calls == 3


def test_repeated_index_is_refused() -> None:
    pieces = ["a", "b"]
    twice = {
        "evaluations": [evaluation(0, "a", "high", True), evaluation(0, "a", "high", True)],
        "overall_assessment": "x",
    }
    judge = ScriptedJudge([twice, twice])
    scorer = create_context_relevance_scorer_llm(model=judge, context=pieces)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="a")
    assert "context_index values [0, 0]" in info.value.result.error.message


def test_labels_are_trimmed_and_lower_cased() -> None:
    reply = {
        "evaluations": [
            {**evaluation(0, "a", " High ", True)},
            {**evaluation(1, "b", "NONE", False)},
        ],
        "overallAssessment": "camelCase keys are accepted too",
    }
    scorer = create_context_relevance_scorer_llm(
        model=ScriptedJudge([reply]), context=["a", "b"], reason="none"
    )
    result = scorer.run_sync(input="q", output="a")
    assert [e.relevance_level for e in result.analyze_step_result.evaluations] == ["high", "none"]
    assert result.score == 0.5


# --- the seed document's worked examples --------------------------------------------------

EINSTEIN = [
    "Einstein won the Nobel Prize for his discovery of the photoelectric effect in 1921.",
    "He published his theory of special relativity in 1905.",
    "His general relativity theory, published in 1915, revolutionized our understanding of "
    "gravity.",
]
ECLIPSE = [
    "Solar eclipses occur when the Moon blocks the Sun.",
    "The Moon moves between the Earth and Sun during eclipses.",
    "The Moon is visible at night.",
    "Stars twinkle due to atmospheric interference.",
    "Total eclipses can last up to 7.5 minutes.",
]
ECLIPSE_LABELS = [
    ("high", True),
    ("high", True),
    ("medium", False),
    ("none", False),
    ("high", False),
]
ECLIPSE_QUERY = "What causes solar eclipses?"
ECLIPSE_ANSWER = (
    "Solar eclipses happen when the Moon moves between Earth and the Sun, blocking sunlight."
)
AUSTRALIA = [
    "The Great Barrier Reef is located in Australia.",
    "Coral reefs need warm water to survive.",
    "Many fish species live in coral reefs.",
    "Australia has six states and two territories.",
    "The capital of Australia is Canberra.",
]
LENIENT = {
    "unused_high_relevance_context": 0.05,
    "missing_context_per_item": 0.1,
    "max_missing_context_penalty": 0.3,
}
STRICT = {
    "unused_high_relevance_context": 0.2,
    "missing_context_per_item": 0.25,
    "max_missing_context_penalty": 0.6,
}


def agent_run(query: str, answer: str) -> dict[str, Any]:
    return {
        "input": {"inputMessages": [{"id": "1", "role": "user", "content": query}]},
        "output": [{"id": "2", "role": "assistant", "content": answer}],
    }


def score_seed(
    pieces: list[str], labels: list[tuple[str, bool]], query: str, answer: str, **kwargs: Any
) -> float | None:
    judge = ScriptedJudge([analysis(pieces, labels), "The score is ..."])
    scorer = create_context_relevance_scorer_llm(model=judge, context=pieces, **kwargs)
    return scorer.run_sync(**agent_run(query, answer)).score


def test_seed_high_relevance_einstein() -> None:
    score = score_seed(
        EINSTEIN,
        [("high", True)] * 3,
        "What were Einstein's major scientific achievements?",
        "Einstein's major achievements include the Nobel Prize for the photoelectric effect, "
        "special relativity in 1905, and general relativity in 1915.",
    )
    assert score == 1.0


def test_seed_mixed_relevance_solar_eclipse() -> None:
    assert score_seed(ECLIPSE, ECLIPSE_LABELS, ECLIPSE_QUERY, ECLIPSE_ANSWER) == 0.64
    lenient = score_seed(ECLIPSE, ECLIPSE_LABELS, ECLIPSE_QUERY, ECLIPSE_ANSWER, penalties=LENIENT)
    assert lenient == 0.69


def test_seed_low_relevance_australia() -> None:
    labels = [("low", False), ("none", False), ("none", False), ("none", False), ("high", True)]
    score = score_seed(
        AUSTRALIA,
        labels,
        "What is the capital of Australia?",
        "The capital of Australia is Canberra.",
    )
    assert score == 0.26


STRICT_CONTEXT = [
    "Einstein won the Nobel Prize for photoelectric effect",
    "He developed the theory of relativity",
    "Einstein was born in Germany",
]
STRICT_LABELS = [("high", True), ("high", False), ("none", False)]


@pytest.mark.parametrize(("penalties", "score"), [(STRICT, 0.47), (None, 0.57), (LENIENT, 0.62)])
def test_seed_strict_and_lenient_configurations(
    penalties: dict[str, float] | None, score: float
) -> None:
    result = score_seed(
        STRICT_CONTEXT,
        STRICT_LABELS,
        "What did Einstein achieve in physics?",
        "Einstein won the Nobel Prize for his work on the photoelectric effect.",
        penalties=penalties,
    )
    assert result == score


def test_seed_custom_scale() -> None:
    pieces = ["Relevant information...", "Supporting details..."]
    score = score_seed(pieces, [("high", True), ("medium", True)], "q", "a", scale=100)
    assert score == 85.0


def test_seed_dynamic_extraction_wins_over_context() -> None:
    seen: list[tuple[Any, Any]] = []

    def extractor(input: Any, output: Any) -> list[str]:
        seen.append((input, output))
        query = input["inputMessages"][0]["content"]
        if "einstein" in query.lower():
            return ["Einstein developed E=mc²", "He won the Nobel Prize in 1921"]
        return ["General knowledge base entry"]

    pieces = ["Einstein developed E=mc²", "He won the Nobel Prize in 1921"]
    judge = ScriptedJudge([analysis(pieces, [("high", False), ("high", True)]), "why"])
    scorer = create_context_relevance_scorer_llm(
        model=judge,
        context=["ignored"],
        context_extractor=extractor,
        penalties={"unused_high_relevance_context": 0.15},
    )
    run = agent_run("What did Einstein do?", "He won the Nobel Prize in 1921.")
    result = scorer.run_sync(**run)
    assert result.score == 0.85
    assert seen == [(run["input"], run["output"])]  # called once, with (input, output)
    assert "[1] He won the Nobel Prize in 1921" in judge.calls[0].prompt
    assert "ignored" not in judge.calls[0].prompt


async def test_async_extractor() -> None:
    async def extractor(input: Any, output: Any) -> list[str]:
        return ["a"]

    judge = ScriptedJudge([analysis(["a"], [("medium", True)])])
    scorer = create_context_relevance_scorer_llm(
        model=judge, context_extractor=extractor, reason="none"
    )
    assert (await scorer.run(input="q", output="x")).score == 0.7


# --- mastra-scorers.md §4.6 table --------------------------------------------------------


@pytest.mark.parametrize(
    ("labels", "missing", "score"),
    [
        ([("high", True), ("none", False), ("high", True)], 0, 0.67),
        ([("high", False), ("medium", True), ("low", True)], 0, 0.57),
        ([("high", True), ("high", True)], 1, 0.85),
        ([("high", True)], 4, 0.5),
        ([("medium", False)] * 3, 0, 0.7),
        ([("high", False)] * 3, 0, 0.7),
    ],
)
def test_spec_table_formula(labels: list, missing: int, score: float) -> None:
    assert context_relevance_score(labels, missing) == score


def test_spec_table_custom_penalties() -> None:
    rates = ContextRelevancePenalties(0.2, 0.1, 0.4)
    score = context_relevance_score([("high", False), ("high", True)], 2, penalties=rates)
    assert score == 0.6


@pytest.mark.parametrize("missing", [[], ["something"]])
def test_no_evaluations_is_repaired_then_an_error(missing: list[str]) -> None:
    # Mastra scores a reply without evaluations 1 (0 with missing context), whatever the
    # pieces; scorekit asks again, then fails (divergences.md row 19)
    empty = {"evaluations": [], "missing_context": missing, "overall_assessment": "nothing"}
    judge = ScriptedJudge([empty, empty])
    scorer = create_context_relevance_scorer_llm(
        model=judge, context=["a", "b"], scale=2, reason="none"
    )
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="a")
    result = info.value.result
    assert (result.status, result.score, result.error.step) == ("error", None, "analyze")
    assert "expected exactly 2 evaluations, one per context piece in the order given; got 0" in (
        result.error.message
    )
    assert result.error.raw_output is not None
    assert len(judge.calls) == 2
    with pytest.raises(ValueError, match="at least one evaluation"):
        context_relevance_breakdown([], len(missing))


def test_the_judge_is_not_asked_to_copy_pieces_back() -> None:
    # row 79: a judge that echoes other text (the prompt's example) does not change the
    # step result; the prompt and the schema ask for the index only
    pieces = ["Canberra is the capital of Australia.", "Sydney is the largest city."]
    reply = analysis(pieces, [("high", True), ("low", False)])
    reply["evaluations"][0]["context_piece"] = "The Eiffel Tower is 330 metres tall."
    judge = ScriptedJudge([reply])
    scorer = create_context_relevance_scorer_llm(model=judge, context=pieces, reason="none")
    result = scorer.run_sync(input="Capital of Australia?", output="Canberra.")
    assert [e.context_piece for e in result.analyze_step_result.evaluations] == pieces
    asked = judge.calls[0]
    assert "context_piece" not in json.dumps(asked.output_schema)
    assert "context_piece" not in asked.prompt
    assert "[0] Canberra is the capital of Australia.\n[1] Sydney is the largest city." in (
        asked.prompt
    )


def test_blank_pieces_are_dropped_and_indices_map_back() -> None:
    # row 78: the judge sees the pieces with text numbered 0 and 1; the step result
    # names their positions in the context as given and holds their text
    pieces = ["Canberra is the capital.", "   ", "", "Sydney is the largest city."]
    reply = analysis(["x", "y"], [("high", True), ("none", False)])
    judge = ScriptedJudge([reply])
    scorer = create_context_relevance_scorer_llm(
        model=judge, context_extractor=lambda i, o: pieces, reason="template"
    )
    result = scorer.run_sync(input="Capital of Australia?", output="Canberra.")
    prompt = judge.calls[0].prompt
    assert "[0] Canberra is the capital.\n[1] Sydney is the largest city.\n" in prompt
    assert "How relevant is each context piece (0 to 1, in order) to the user's query" in prompt
    assert [(e.context_index, e.context_piece) for e in result.analyze_step_result.evaluations] == [
        (0, "Canberra is the capital."),
        (3, "Sydney is the largest city."),
    ]
    assert result.score == 0.5
    assert result.reason == (
        "The score is 0.5 because context 1: relevance high, used; context 4: relevance none, "
        "not used. No context was missing."
    )


def test_all_blank_pieces_are_skipped_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    scorer = create_context_relevance_scorer_llm(model=judge, context_extractor=item_context)
    result = scorer.run_sync(input="q", output="a", context=["", " \t\n"])
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])
    assert result.reason == ALL_BLANK_REASON


def test_empty_resolved_context_is_skipped_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    scorer = create_context_relevance_scorer_llm(
        model=judge, context_extractor=lambda i, o: [], scale=2
    )
    result = scorer.run_sync(input="q", output="a")
    assert result.status == "skipped"
    assert result.score is None
    assert result.reason == "No context to evaluate: the resolved context is empty."
    assert judge.calls == []


def test_extractor_returning_a_non_list_is_an_error() -> None:
    scorer = create_context_relevance_scorer_llm(
        model=ScriptedJudge([]), context_extractor=lambda i, o: "just a string"
    )
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(input="q", output="a")
    assert info.value.failed_step == "analyze"
    assert "list of strings" in info.value.result.error.message


# --- reasons ------------------------------------------------------------------------------


def test_template_reason_names_levels_use_penalties_and_missing() -> None:
    judge = ScriptedJudge([analysis(ECLIPSE, ECLIPSE_LABELS, ["How long partial eclipses last"])])
    scorer = create_context_relevance_scorer_llm(model=judge, context=ECLIPSE, reason="template")
    result = scorer.run_sync(input=ECLIPSE_QUERY, output=ECLIPSE_ANSWER)
    assert result.score == 0.49
    assert result.reason == (
        "The score is 0.49 because context 1: relevance high, used; context 2: relevance high, "
        "used; context 3: relevance medium, not used; context 4: relevance none, not used; "
        "context 5: relevance high, not used. 1 high-relevance piece(s) went unused "
        "(penalty 0.1). Missing context (penalty 0.15): How long partial eclipses last."
    )
    assert len(judge.calls) == 1  # half the cost of reason="llm"


def test_the_reason_is_a_template_by_default() -> None:
    """divergences.md row 102: the reason states the judgements, with no judge call."""
    judge = ScriptedJudge([analysis(ECLIPSE, ECLIPSE_LABELS, ["How long partial eclipses last"])])
    result = create_context_relevance_scorer_llm(model=judge, context=ECLIPSE).run_sync(
        input=ECLIPSE_QUERY, output=ECLIPSE_ANSWER
    )
    templated = create_context_relevance_scorer_llm(
        model=ScriptedJudge(
            [analysis(ECLIPSE, ECLIPSE_LABELS, ["How long partial eclipses last"])]
        ),
        context=ECLIPSE,
        reason="template",
    ).run_sync(input=ECLIPSE_QUERY, output=ECLIPSE_ANSWER)
    assert (result.score, len(judge.calls), result.generate_reason_prompt) == (0.49, 1, None)
    assert result.reason == templated.reason
    assert result.reason is not None and result.reason.startswith("The score is 0.49 because ")


def test_llm_reason_prompt_lists_the_content() -> None:
    judge = ScriptedJudge([analysis(ECLIPSE, ECLIPSE_LABELS), "The score is 0.64 because ..."])
    scorer = create_context_relevance_scorer_llm(model=judge, context=ECLIPSE, reason="llm")
    result = scorer.run_sync(input=ECLIPSE_QUERY, output=ECLIPSE_ANSWER)
    assert result.reason == "The score is 0.64 because ..."
    prompt = result.generate_reason_prompt
    assert prompt == judge.calls[1].prompt
    assert "- context 5: relevance high, not used" in prompt
    assert "- unused high-relevance pieces: 1 × 0.1 = 0.1" in prompt
    assert "- missing context: 0 item(s) × 0.15, capped at 0.5 = 0" in prompt
    assert 'Begin with "The score is 0.64 because"' in prompt


def test_reason_none_skips_the_step() -> None:
    judge = ScriptedJudge([analysis(["a"], [("high", True)])])
    scorer = create_context_relevance_scorer_llm(model=judge, context=["a"], reason="none")
    result = scorer.run_sync(input="q", output="a")
    assert (result.score, result.reason, len(judge.calls)) == (1.0, None, 1)
    assert [s.name for s in scorer.get_steps()] == ["analyze", "generate_score"]


def test_japanese_query_gets_answers_in_japanese() -> None:
    pieces = ["日食は月が太陽を隠すときに起こる。", "星は大気の影響で瞬く。"]
    reply = {
        "evaluations": [
            {**evaluation(0, pieces[0], "high", True), "reasoning": "質問に直接答えている。"},
            {**evaluation(1, pieces[1], "none", False), "reasoning": "日食とは無関係。"},
        ],
        "missing_context": [],
        "overall_assessment": "一つ目の断片が質問に答えている。",
    }
    reason = "スコアが0.5なのは、断片1は関連度が高く使われ、断片2は無関係だからです。"
    judge = ScriptedJudge([reply, reason])
    scorer = create_context_relevance_scorer_llm(model=judge, context=pieces, reason="llm")
    result = scorer.run_sync(input="日食はなぜ起こるのですか？", output="月が太陽を隠すからです。")
    analyze_prompt, reason_prompt = (call.prompt for call in judge.calls)
    assert "日食はなぜ起こるのですか？" in analyze_prompt
    assert "[0] 日食は月が太陽を隠すときに起こる。" in analyze_prompt
    assert "in the language of the user's query" in analyze_prompt
    assert "Write in the language the user query is written in." in reason_prompt
    assert "日食はなぜ起こるのですか？" in reason_prompt
    assert result.score == 0.5
    assert result.reason == reason
    assert result.analyze_step_result.evaluations[0].reasoning == "質問に直接答えている。"


def test_prompt_asks_relevance_of_the_query_and_use_of_the_response() -> None:
    # issue 29: the reference prompt's shape (levels defined in the system prompt, the query
    # first, the question last); per piece only the level and the use are asked, in order, the
    # level first; the budget is its bound's
    judge = ScriptedJudge([analysis(["a", "b"], [("high", True), ("low", False)])])
    create_context_relevance_scorer_llm(model=judge, context=["a", "b"], reason="none").run_sync(
        input="q?", output="r."
    )
    asked = judge.calls[0]
    assert asked.messages[0].content == INSTRUCTIONS
    assert '- "high": it directly addresses the query' in INSTRUCTIONS
    assert asked.prompt == (
        "Rate how relevant the context below is to the user's query.\n\n"
        "User query: q?\n\nContext pieces:\n[0] a\n[1] b\n\nResponse:\nr.\n\n"
        "How relevant is each context piece (0 to 1, in order) to the user's query, and did the "
        'response use it? Give "evaluations" (one per piece, in order: "relevance_level", then '
        '"was_used"), then "missing_context": what the query needs that no piece holds ([] if '
        "nothing), in the language of the user's query."
    )
    schema = asked.output_schema
    item = schema["$defs"]["ContextEvaluation"]["properties"]
    assert list(item) == ["relevance_level", "was_used"]
    assert list(schema["properties"]) == ["evaluations", "missing_context"]
    assert schema["properties"]["evaluations"]["minItems"] == 2
    assert schema["properties"]["evaluations"]["maxItems"] == 2
    assert schema["properties"]["missing_context"]["maxItems"] == 3
    assert schema["properties"]["missing_context"]["items"] == {"type": "string", "maxLength": 60}
    # the labels and the missing context bound the text (274 characters), 44 marks
    assert schema_bound(schema) == ReplyBound(text=274, marks=44)
    assert asked.max_tokens == tokens_for(ReplyBound(text=274, marks=44)) == 202


def test_one_piece_is_asked_as_the_context() -> None:
    judge = ScriptedJudge([analysis(["a"], [("none", False)])])
    create_context_relevance_scorer_llm(model=judge, context=["a"], reason="none").run_sync(
        input="q?", output="r."
    )
    prompt = judge.calls[0].prompt
    assert "\n\nContext:\na\n\nResponse:\nr.\n\nHow relevant is the context to" in prompt
    assert '"evaluations" (one: "relevance_level", then "was_used")' in prompt
    assert "what the query needs that it lacks" in prompt


def test_evaluations_in_order_get_their_pieces_positions() -> None:
    # the judge is not asked for context_index: the evaluations answer the pieces in order
    pieces = ["Canberra is the capital.", "", "Sydney is the largest city."]
    reply = {
        "evaluations": [
            {"relevance_level": "none", "was_used": False},
            {"relevance_level": "high", "was_used": True},
        ],
        "missing_context": [],
    }
    judge = ScriptedJudge([reply])
    scorer = create_context_relevance_scorer_llm(model=judge, context=pieces, reason="template")
    result = scorer.run_sync(input="Largest city?", output="Sydney.")
    got = [
        (e.context_index, e.context_piece, e.relevance_level, e.reasoning)
        for e in result.analyze_step_result.evaluations
    ]
    assert got == [
        (0, "Canberra is the capital.", "none", ""),
        (2, "Sydney is the largest city.", "high", ""),
    ]
    assert result.analyze_step_result.overall_assessment == ""
    assert result.score == 0.5
    # a reply with one evaluation too few is sent back with the count it must have
    short = {"evaluations": reply["evaluations"][:1], "missing_context": []}
    judge = ScriptedJudge([short, reply])
    scorer = create_context_relevance_scorer_llm(model=judge, context=pieces, reason="none")
    assert scorer.run_sync(input="Largest city?", output="Sydney.").score == 0.5
    assert "expected exactly 2 evaluations, one per context piece in the order given; got 1" in (
        judge.calls[1].messages[-1].content
    )


def test_replies_longer_than_the_schema_bounds_are_accepted() -> None:
    # the bounds are the schema's (constrained decoding enforces them); a scripted or Mastra
    # reply with longer text still validates (conformance parity)
    reply = analysis(["a"], [("high", True)])
    reply["evaluations"][0]["reasoning"] = "r" * 400
    reply["missing_context"] = [f"item {i} " + "m" * 200 for i in range(5)]
    reply["overall_assessment"] = "o" * 400
    judge = ScriptedJudge([reply])
    scorer = create_context_relevance_scorer_llm(model=judge, context=["a"], reason="none")
    result = scorer.run_sync(input="q", output="a")
    assert (result.status, result.score) == ("ok", 0.5)  # 1.0 − min(5 × 0.15, 0.5)


# --- construction errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({}, "context", "either context or context_extractor is required"),
        ({"context": []}, "context", "context cannot be empty"),
        ({"context": ["", " "]}, "context", "only blank pieces"),
        ({"context": "one string"}, "context", "list of strings"),
        ({"context": ["a"], "scale": 0}, "scale", "finite number > 0"),
        ({"context": ["a"], "scale": -1}, "scale", "finite number > 0"),
        ({"context": ["a"], "scale": float("inf")}, "scale", "finite number > 0"),
        (
            {"context": ["a"], "penalties": {"missing_context_per_item": 1.5}},
            "penalties.missing_context_per_item",
            "[0, 1]",
        ),
        (
            {"context": ["a"], "penalties": {"unused_high_relevance_context": -0.1}},
            "penalties.unused_high_relevance_context",
            "[0, 1]",
        ),
        (
            {"context": ["a"], "penalties": {"max_missing_context_penalty": True}},
            "penalties.max_missing_context_penalty",
            "[0, 1]",
        ),
        (
            {"context": ["a"], "penalties": {"unusedHighRelevanceContext": 0.2}},
            "penalties",
            "did you mean 'unused_high_relevance_context'",
        ),
        ({"context": ["a"], "reason": "short"}, "reason", "'llm', 'template' or 'none'"),
        ({"context_extractor": "not callable"}, "context_extractor", "function"),
    ],
)
def test_construction_errors(kwargs: dict, field: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_context_relevance_scorer_llm(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field
    assert message in str(info.value)


def test_each_penalty_defaults_on_its_own() -> None:
    rates = ContextRelevancePenalties.of({"missing_context_per_item": 0.2})
    assert rates == ContextRelevancePenalties(0.1, 0.2, 0.5)


def test_item_context_marker_judges_the_runs_context() -> None:
    reply = {
        "evaluations": [
            {
                "context_index": 0,
                "relevance_level": "high",
                "was_used": True,
                "reasoning": "r",
            }
        ],
        "missing_context": [],
        "overall_assessment": "fine",
    }
    judge = ScriptedJudge([reply])
    scorer = create_context_relevance_scorer_llm(
        model=judge, context_extractor=item_context, reason="none"
    )
    assert scorer.run_sync(input="q", output="a", context=["a"]).score == 1.0
    skipped = scorer.run_sync(input="q", output="a")
    assert skipped.status == "skipped"
    assert len(judge.calls) == 1
