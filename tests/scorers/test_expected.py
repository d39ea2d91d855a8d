"""``scoring="expected"``: LLM scorers scored from the judge's label distribution.

The judge is the real OpenAI-compatible adapter against the scripted server, which sends
token log-probabilities (tests/servers/scripted_openai.py ``token_logprobs``), so every value
below follows from the log-probabilities given.
"""

from __future__ import annotations

import json
import math
import uuid
from typing import Any

import pytest

from scorekit import ConfigError, ScorerRunError
from scorekit.judge import Judge
from scorekit.scorers import build_scorer
from scorekit.scorers.context_precision import create_context_precision_scorer
from scorekit.scorers.context_relevance import create_context_relevance_scorer_llm
from scorekit.scorers.expected import EXPECTED_TOP_LOGPROBS, expected_share
from scorekit.scorers.faithfulness import create_faithfulness_scorer
from scorekit.scorers.hallucination import create_hallucination_scorer
from scorekit.scorers.registry import get_entry
from tests.servers.scripted_openai import Reply, ScriptedServer, token_logprobs

LOG = math.log
CONTEXT = ["Paris is the capital of France.", "Bananas are yellow."]
QUERY = "What is the capital of France?"
ANSWER = "The capital of France is Paris."

RELEVANCE = {
    "evaluations": [
        {"context_index": 0, "relevance_level": "high", "was_used": True, "reasoning": "on it"},
        {"context_index": 1, "relevance_level": "none", "was_used": False, "reasoning": "off"},
    ],
    "missing_context": [],
    "overall_assessment": "fine",
}
LEVEL_TOPS = [
    {"high": LOG(0.5), "medium": LOG(0.3), "low": LOG(0.1), "Paris": LOG(0.05)},
    {"none": LOG(0.6), "low": LOG(0.3)},
]


def judge(server: ScriptedServer) -> Judge:
    return Judge(
        f"openai-compatible/ex-{uuid.uuid4().hex[:8]}",
        base_url=server.base_url,
        cache=False,
        max_retries=0,
    )


def scripted(value: Any, field: str | None = None, tops: list[dict[str, float]] | None = None):
    content = json.dumps(value)
    if field is None:
        return Reply(content)
    return Reply(content, logprobs=token_logprobs(content, field, tops or []))


def test_context_relevance_scores_each_piece_by_its_expected_weight(
    server: ScriptedServer,
) -> None:
    server.enqueue(scripted(RELEVANCE, "relevance_level", LEVEL_TOPS))
    scorer = create_context_relevance_scorer_llm(
        model=judge(server), context=CONTEXT, reason="template", scoring="expected"
    )
    result = scorer.run_sync(input=QUERY, output=ANSWER)
    assert result.status == "ok", result.error
    # piece 0: p = 5/9, 3/9, 1/9, 0 -> 5/9 + 0.7 × 3/9 + 0.3 × 1/9 = 7.4/9
    # piece 1: p(none) = 2/3, p(low) = 1/3 -> 0.1; base (7.4/9 + 0.1) / 2 = 0.4611
    assert result.score == 0.46
    evaluations = result.analyze_step_result.model_dump()["evaluations"]
    assert [e["expected_weight"] for e in evaluations] == [
        pytest.approx(7.4 / 9, rel=1e-12),
        pytest.approx(0.1, rel=1e-12),
    ]
    assert evaluations[0]["label_probabilities"] == pytest.approx(
        {"high": 5 / 9, "medium": 3 / 9, "low": 1 / 9, "none": 0.0}, rel=1e-12
    )
    assert evaluations[1]["label_probabilities"] == pytest.approx(
        {"high": 0.0, "medium": 0.0, "low": 1 / 3, "none": 2 / 3}, rel=1e-12
    )
    assert [e["label_mass"] for e in evaluations] == [
        pytest.approx(0.9, rel=1e-12),
        pytest.approx(0.9, rel=1e-12),
    ]
    body = server.requests[0].body
    assert (body["logprobs"], body["top_logprobs"]) == (True, EXPECTED_TOP_LOGPROBS)
    assert result.reason == (
        "The score is 0.46 because context 1: relevance high (expected weight 0.82), used; "
        "context 2: relevance none (expected weight 0.1), not used. No context was missing."
    )


def test_context_relevance_label_scoring_asks_for_no_logprobs(server: ScriptedServer) -> None:
    server.enqueue(scripted(RELEVANCE, "relevance_level", LEVEL_TOPS))
    scorer = create_context_relevance_scorer_llm(
        model=judge(server), context=CONTEXT, reason="template"
    )
    result = scorer.run_sync(input=QUERY, output=ANSWER)
    assert result.score == 0.5  # Mastra's: (1.0 + 0.0) / 2
    assert "logprobs" not in server.requests[0].body
    assert "expected_weight" not in result.analyze_step_result.model_dump()["evaluations"][0]


def test_context_relevance_penalties_count_the_generated_levels(server: ScriptedServer) -> None:
    unused = json.loads(json.dumps(RELEVANCE))
    unused["evaluations"][0]["was_used"] = False
    unused["missing_context"] = ["the population"]
    server.enqueue(scripted(unused, "relevance_level", LEVEL_TOPS))
    scorer = create_context_relevance_scorer_llm(
        model=judge(server), context=CONTEXT, reason="none", scoring="expected"
    )
    # 0.4611 − 1 unused high piece × 0.1 − 1 missing item × 0.15 = 0.2111
    assert scorer.run_sync(input=QUERY, output=ANSWER).score == 0.21


def test_faithfulness_scores_the_expected_share_of_supported_claims(
    server: ScriptedServer,
) -> None:
    verdicts = {
        "verdicts": [
            {"verdict": "yes", "reason": "stated"},
            {"verdict": "no", "reason": "contradicted"},
        ]
    }
    tops = [
        {"yes": LOG(0.9), "no": LOG(0.05), "unsure": LOG(0.05)},
        {"no": LOG(0.7), "yes": LOG(0.3)},
    ]
    server.enqueue(
        scripted({"claims": ["Paris is the capital of France.", "Paris has 90M people."]}),
        scripted(verdicts, "verdict", tops),
        Reply("The score is 0.6 because one claim is contradicted."),
    )
    scorer = create_faithfulness_scorer(
        model=judge(server), context=CONTEXT, scoring="expected", reason="llm"
    )
    result = scorer.run_sync(input=QUERY, output="Paris is the capital. It has 90M people.")
    assert result.status == "ok", result.error
    assert result.score == 0.6  # (0.9 + 0.3) / 2; the labels' share is 0.5
    items = result.analyze_step_result.model_dump()["verdicts"]
    assert [v["expected_weight"] for v in items] == [
        pytest.approx(0.9, rel=1e-12),
        pytest.approx(0.3, rel=1e-12),
    ]
    bodies = [r.body for r in server.requests]
    assert ["logprobs" in body for body in bodies] == [False, True, False]


def test_context_precision_plugs_p_yes_into_the_average_precision(
    server: ScriptedServer,
) -> None:
    verdicts = {
        "verdicts": [
            {"context_index": 0, "verdict": "yes", "reason": "supports"},
            {"context_index": 1, "verdict": "no", "reason": "unrelated"},
        ]
    }
    tops = [{"yes": LOG(0.9), "no": LOG(0.1)}, {"no": LOG(0.8), "yes": LOG(0.2)}]
    server.enqueue(scripted(verdicts, "verdict", tops), Reply("The score is 0.84 because ..."))
    scorer = create_context_precision_scorer(
        model=judge(server), context=CONTEXT, scoring="expected"
    )
    # (0.9 × 0.9 / 1 + 0.2 × 1.1 / 2) / 1.1 = 0.836; the labels' score is 1.0
    assert scorer.run_sync(input=QUERY, output=ANSWER).score == 0.84


def test_context_precision_reads_a_reply_in_any_order(server: ScriptedServer) -> None:
    # the stored verdicts are sorted by context_index (issue 33); the log-probabilities are
    # matched with the reply's own order, so each verdict keeps its own p(yes)
    verdicts = {
        "verdicts": [
            {"context_index": 1, "verdict": "no", "reason": "unrelated"},
            {"context_index": 0, "verdict": "yes", "reason": "supports"},
        ]
    }
    tops = [{"no": LOG(0.8), "yes": LOG(0.2)}, {"yes": LOG(0.9), "no": LOG(0.1)}]
    server.enqueue(scripted(verdicts, "verdict", tops), Reply("The score is 0.84 because ..."))
    scorer = create_context_precision_scorer(
        model=judge(server), context=CONTEXT, scoring="expected"
    )
    result = scorer.run_sync(input=QUERY, output=ANSWER)
    assert result.score == 0.84  # the same verdicts as in order: the same score
    stored = result.analyze_step_result.verdicts
    assert [(v.context_index, v.verdict) for v in stored] == [(0, "yes"), (1, "no")]
    assert [round(v.label_probabilities["yes"], 2) for v in stored] == [0.9, 0.2]


def test_a_reply_without_logprobs_is_an_error_naming_why(server: ScriptedServer) -> None:
    server.enqueue(scripted(RELEVANCE))
    scorer = create_context_relevance_scorer_llm(
        model=judge(server), context=CONTEXT, reason="none", scoring="expected"
    )
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(input=QUERY, output=ANSWER)
    result = caught.value.result
    assert result.status == "error"
    assert result.score is None
    assert result.error is not None
    assert result.error.step == "analyze"
    assert result.error.type == "JudgeOutputError"
    assert "needs the judge's token log-probabilities, and none came with its reply" in (
        result.error.message
    )
    assert result.error.raw_output == json.dumps(RELEVANCE)
    assert result.judge_usage.calls == 1


def test_labels_the_tokens_do_not_hold_are_an_error(server: ScriptedServer) -> None:
    content = json.dumps(RELEVANCE)
    tokens = token_logprobs(content, "relevance_level", LEVEL_TOPS)
    tokens["content"] = tokens["content"][:5]  # cut: the tokens no longer spell the reply
    server.enqueue(Reply(content, logprobs=tokens))
    scorer = create_context_relevance_scorer_llm(
        model=judge(server), context=CONTEXT, reason="none", scoring="expected"
    )
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(input=QUERY, output=ANSWER)
    error = caught.value.result.error
    assert error is not None
    assert error.message == (
        "scoring='expected': the log-probabilities do not spell the reply text"
    )


def test_anthropic_judges_cannot_score_expected(server: ScriptedServer) -> None:
    anthropic = Judge(
        f"anthropic/claude-test-{uuid.uuid4().hex[:6]}",
        base_url=server.root_url,
        api_key="sk-ant-test",
        cache=False,
    )
    scorer = create_context_relevance_scorer_llm(
        model=anthropic, context=CONTEXT, reason="none", scoring="expected"
    )
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(input=QUERY, output=ANSWER)
    error = caught.value.result.error
    assert error is not None
    assert error.type == "JudgeUnavailableError"
    assert "returns no token log-probabilities" in error.message
    assert server.requests == []


EXPECTED_SCORERS = [
    "context-relevance",
    "context-precision",
    "context-recall",
    "faithfulness",
    "hallucination",
    "answer-relevancy",
    "bias",
]


@pytest.mark.parametrize("name", EXPECTED_SCORERS)
def test_each_label_scorer_takes_the_scoring_option(name: str) -> None:
    option = next(o for o in get_entry(name).options() if o.name == "scoring")
    assert (option.default, option.required) == ("label", False)
    options: dict[str, Any] = {"model": "test/judge", "scoring": "sometimes"}
    if name in ("context-relevance", "context-precision", "context-recall", "hallucination"):
        options["context"] = CONTEXT
    with pytest.raises(ConfigError, match="scoring must be 'label' or 'expected'") as caught:
        build_scorer(name, **options)
    assert caught.value.field == "scoring"


def test_expected_share_matches_the_label_share_on_certain_labels() -> None:
    assert expected_share([1.0, 0.0, 1.0]) == 0.67
    assert expected_share([0.5, 0.5], scale=10) == 5.0
    assert expected_share([0.9, 0.8], denominator=1) == 1.0
    assert expected_share([]) == 0.0


def test_hallucination_reads_the_support_asked_or_a_verdict_in_mastras_shape(
    server: ScriptedServer,
) -> None:
    # row 107: the judge is asked `supported` (a claim weighs p(no)); a reply in Mastra's shape
    # (`verdict`, yes = hallucination) is read where it has its labels (a claim weighs p(yes))
    claims = {"claims": ["Paris is the capital of France.", "Paris has 90M people."]}
    asked = {"verdicts": [{"supported": "yes", "reason": "r"}, {"supported": "no", "reason": "r"}]}
    mastras = {"verdicts": [{"verdict": "no", "reason": "r"}, {"verdict": "yes", "reason": "r"}]}
    tops = [{"yes": LOG(0.8), "no": LOG(0.2)}, {"no": LOG(0.6), "yes": LOG(0.4)}]
    server.enqueue(
        scripted(claims),
        scripted(asked, "supported", tops),
        scripted(claims),
        scripted(mastras, "verdict", [{"no": LOG(0.8), "yes": LOG(0.2)}, tops[1]]),
    )
    scorer = create_hallucination_scorer(
        model=judge(server), context=CONTEXT, scoring="expected", reason="none"
    )
    output = "Paris is the capital. It has 90M people."
    first = scorer.run_sync(input=QUERY, output=output)
    second = scorer.run_sync(input=QUERY, output=output)
    assert (first.status, second.status) == ("ok", "ok"), (first.error, second.error)
    assert first.score == 0.4  # (p(no) 0.2 + p(no) 0.6) / 2
    assert second.score == 0.3  # (p(yes) 0.2 + p(yes) 0.4) / 2
