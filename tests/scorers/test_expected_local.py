"""``scoring="expected"`` end to end on the real local judge (``local/smollm2``, llama.cpp).

llama.cpp's server returns token log-probabilities for chat completions constrained by a
``response_format`` JSON schema; they are the model's distribution before the grammar, so the
top alternatives are often tokens no label starts with (``label_mass`` records how much
probability went to the labels).
"""

from __future__ import annotations

import math

import pytest

from scorekit.judge import Judge
from scorekit.rounding import round_to_two_decimals
from scorekit.scorers.context_relevance import create_context_relevance_scorer_llm
from tests.judge.conftest import needs_smollm2

pytestmark = needs_smollm2

CONTEXT = ["Paris is the capital of France."]
"""One piece: SmolLM2's reply for two runs away in its reasoning under a 384-token budget."""
QUERY = "What is the capital of France?"
ANSWER = "The capital of France is Paris."
LEVELS = {"high", "medium", "low", "none"}
WEIGHTS = {"high": 1.0, "medium": 0.7, "low": 0.3, "none": 0.0}


@pytest.fixture(scope="module")
def judge() -> Judge:
    return Judge("local/smollm2", cache=False, max_tokens=384, timeout=120, seed=1)


def test_context_relevance_expected_on_smollm2(judge: Judge) -> None:
    scorer = create_context_relevance_scorer_llm(
        model=judge, context=CONTEXT, reason="template", scoring="expected"
    )
    result = scorer.run_sync(input=QUERY, output=ANSWER)
    assert result.status == "ok", result.error
    assert result.score is not None
    assert 0.0 <= result.score <= 1.0
    evaluations = result.analyze_step_result.model_dump()["evaluations"]
    assert len(evaluations) == len(CONTEXT)
    for evaluation in evaluations:
        probabilities = evaluation["label_probabilities"]
        assert set(probabilities) == LEVELS
        assert math.isclose(sum(probabilities.values()), 1.0, rel_tol=1e-9)
        assert 0.0 < evaluation["label_mass"] <= 1.0
        # the generated level always keeps probability: it is among the labels' mass
        assert probabilities[evaluation["relevance_level"]] > 0.0
        expected = sum(p * WEIGHTS[level] for level, p in probabilities.items())
        assert evaluation["expected_weight"] == pytest.approx(expected, rel=1e-12)
    # the score is Mastra's formula with the expected weights (and its generated-level penalties)
    base = sum(e["expected_weight"] for e in evaluations) / len(evaluations)
    unused_high = sum(
        1 for e in evaluations if e["relevance_level"] == "high" and not e["was_used"]
    )
    missing = min(len(result.analyze_step_result.missing_context) * 0.15, 0.5)
    assert result.score == round_to_two_decimals(max(0.0, base - unused_high * 0.1 - missing))
    assert "expected weight" in (result.reason or "")
