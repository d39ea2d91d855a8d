"""Text in other languages than English through the LLM scorers (scripted judge).

The prompts must carry the language rule (reasons in the query's language) and the user's
query exactly as given, whatever its script.
"""

from __future__ import annotations

import pytest

from scorekit.judge import ScriptedJudge
from scorekit.scorers import build_scorer
from scorekit.scorers.replies import LANGUAGE_RULE

RUNS = {
    "ja": {
        "query": "日本の首都はどこですか？",
        "answer": "東京は日本の首都です。",
        "context": ["東京は日本の首都であり、最大の都市である。"],
        "reason": "文脈に書かれている。",
    },
    "pl": {
        "query": "Jaka jest stolica Polski? Proszę odpowiedzieć krótko.",
        "answer": "Stolicą Polski jest Warszawa.",
        "context": ["Warszawa jest stolicą i największym miastem Polski."],
        "reason": "Kontekst mówi, że Warszawa jest stolicą.",
    },
}


@pytest.mark.parametrize("lang", sorted(RUNS))
def test_faithfulness_prompts_keep_the_query_and_the_rule(lang: str) -> None:
    run = RUNS[lang]
    judge = ScriptedJudge(
        [
            {"claims": [run["answer"]]},
            {"verdicts": [{"verdict": "yes", "reason": run["reason"]}]},
            run["reason"],
        ]
    )
    scorer = build_scorer("faithfulness", model=judge, context=run["context"], reason="llm")
    result = scorer.run_sync(input=run["query"], output=run["answer"])
    assert result.status == "ok"
    assert result.score == 1.0
    assert result.reason == run["reason"]
    verdicts = judge.calls[1].prompt
    assert LANGUAGE_RULE in verdicts
    assert run["query"] in verdicts
    assert run["context"][0] in verdicts
    assert run["answer"] in verdicts
    reason_prompt = judge.calls[2].prompt
    assert "Write in the language the user query is written in." in reason_prompt
    assert run["query"] in reason_prompt


@pytest.mark.parametrize("lang", sorted(RUNS))
def test_context_relevance_prompts_keep_the_query_and_the_rule(lang: str) -> None:
    run = RUNS[lang]
    evaluation = {
        "context_index": 0,
        "context_piece": run["context"][0],
        "relevance_level": "high",
        "was_used": True,
        "reasoning": run["reason"],
    }
    judge = ScriptedJudge(
        [
            {
                "evaluations": [evaluation],
                "missing_context": [],
                "overall_assessment": run["reason"],
            },
            run["reason"],
        ]
    )
    scorer = build_scorer("context-relevance", model=judge, context=run["context"], reason="llm")
    result = scorer.run_sync(input=run["query"], output=run["answer"])
    assert result.status == "ok"
    assert result.score == 1.0
    assert result.reason == run["reason"]
    assert len(judge.calls) == 2
    prompt = judge.calls[0].prompt
    assert "in the language of the user's query" in prompt
    assert run["query"] in prompt
    assert run["context"][0] in prompt
    assert run["answer"] in prompt
    reason_prompt = judge.calls[1].prompt
    assert "Write in the language the user query is written in." in reason_prompt
    assert run["query"] in reason_prompt
