"""The verdict recipe (scorekit.scorers.verdicts) and the four scorers built on it.

The judge-cache keys below pin the requests: a cache key hashes the instructions, the prompt,
the schema and the generation settings of a request, so equal keys mean byte-identical requests
and a filled cache still answers. They were first computed on the scorers as they were before
the recipe (the port changed no request), and computed anew when the schemas sent to the judge
lost their titles and developer docstrings (replies.py), and once more when Hallucination
stopped asking the judge to copy each claim back as ``statement`` (its analyze request: prompt
and schema; the scorer fills ``statement`` from its own copy, row 79); the other three
scorers' requests did not change. Every key changed again with the reply budgets (cache key
version 3: each request's ``max_tokens`` follows from its schema's bound, and the schemas bound
their free text and lists, judge/budget.py), and Hallucination's analyze request once more when
its judge was asked whether the context supports each claim instead of whether it is a
hallucination (row 107), and Answer Relevancy's when its judge was told that a statement that
answers nothing is off the question (row 109). A change of these keys must always be such a
deliberate one.
"""

from __future__ import annotations

import doctest
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

import pytest

from scorekit.errors import ScorerRunError
from scorekit.inputs.retrieval_context import ALL_BLANK_REASON
from scorekit.judge import ScriptedJudge
from scorekit.judge.cache import cache_key
from scorekit.pipeline import Scorer, ScorerRun
from scorekit.scorers import (
    create_answer_relevancy_scorer,
    create_context_recall_scorer,
    create_faithfulness_scorer,
    create_hallucination_scorer,
)
from scorekit.scorers import verdicts as recipe
from scorekit.scorers.replies import CountedReply

IDENTITY = {"provider": "test", "model": "scripted", "base_url": None}
QUERY = "When was the Eiffel Tower built, and how tall is it?"
ANSWER = "The Eiffel Tower was built in 1889. It is 330 metres tall. It is beautiful."
CONTEXT = ["The Eiffel Tower was completed in 1889.", "It stands 300 metres tall."]
CLAIMS = {"claims": ["The Eiffel Tower was built in 1889.", "The Eiffel Tower is 330 metres tall."]}

Factory = Callable[..., Scorer]

CASES: dict[str, tuple[Factory, dict[str, Any], dict[str, Any], list[Any], float, list[str]]] = {
    "faithfulness": (
        create_faithfulness_scorer,
        {"context": CONTEXT, "scale": 10, "reason": "llm"},
        {"input": QUERY, "output": ANSWER},
        [
            CLAIMS,
            {"verdicts": [{"verdict": "yes", "reason": "a"}, {"verdict": "no", "reason": "b"}]},
            "why",
        ],
        5.0,
        [
            "a1f4187c2cf7870bd23f7da26d61da0e89828eb82219070e9633715a66f6b4e0",
            "5293ad1d2365bf157f656c8bd1d067b162c57620f82c42612a3c976704d821db",
            "b227a2372451120cc5e8b998361853627be1ba1cf2618c98a5c69480b691b6b5",
        ],
    ),
    "hallucination": (
        create_hallucination_scorer,
        {"context": CONTEXT, "scale": 10},
        {"input": QUERY, "output": ANSWER},
        [
            CLAIMS,
            {
                "verdicts": [
                    {"verdict": "no", "reason": "a"},
                    {"verdict": "yes", "reason": "b"},
                ]
            },
            "why",
        ],
        5.0,
        [
            "2034462ea5ca4f0e867d1d976799383fb4da73875dfae5004c08dcaa2724d2de",
            "d64f35b25136c53af294768f573586b9eb620aefe91d02bd90c0c36ee2a2a5f1",
            "ac49b54697bfb4304d07245796417a528886d71bd32a0feac94842a5a3131c07",
        ],
    ),
    "context-recall": (
        create_context_recall_scorer,
        {"context": CONTEXT, "scale": 10},
        {"input": QUERY, "output": ANSWER, "ground_truth": "Built in 1889; 300 metres tall."},
        [
            CLAIMS,
            {"verdicts": [{"verdict": "yes", "reason": "a"}, {"verdict": "yes", "reason": "b"}]},
            "why",
        ],
        10.0,
        [
            "a180c040343f80c44ce7df906f4b982f1577b30835487872fe93cb0f02155d15",
            "72f2d448ef4efc7f9ac12cccb478cd76248e225428b626ea18f306b45cf157c1",
            "90e8802bf499849876b5d82ed85de04b138c9d1ac395526c88a32531ef8ea307",
        ],
    ),
    "answer-relevancy": (
        create_answer_relevancy_scorer,
        {"uncertainty_weight": 0.5, "scale": 10},
        {"input": QUERY, "output": ANSWER},
        [
            {
                "statements": [
                    "The Eiffel Tower was built in 1889.",
                    "It is 330 metres tall.",
                    "It is beautiful.",
                ]
            },
            {
                "results": [
                    {"result": "yes", "reason": "a"},
                    {"result": "unsure", "reason": "b"},
                    {"result": "no", "reason": "c"},
                ]
            },
            "why",
        ],
        5.0,
        [
            "71368851f9de89e5f031daeff9e10c56f45241f33e52c295673d5e27f79445f1",
            "0822d7822a756d25d3e7a058e2acdaeb016d179a648e760ecce63cd7985f90e9",
            "7c4e2d31199f727e8ddada5dc61cb84404489fe23b84317da12d17c05849e6a2",
        ],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_judge_cache_keys_are_unchanged(name: str) -> None:
    # the keys hold the cache's key version (judge/cache.py): pinned again at version 5
    factory, options, run, script, score, keys = CASES[name]
    judge = ScriptedJudge(script)
    result = factory(model=judge, **options).run_sync(**run)
    assert (result.status, result.score) == ("ok", score)
    assert [request.step for request in judge.calls] == [
        "preprocess",
        "analyze",
        "generate_reason",
    ]
    assert [cache_key(IDENTITY, request) for request in judge.calls] == keys


def test_module_docstring_examples() -> None:
    result = doctest.testmod(recipe)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    ("labels", "weights", "denominator", "score"),
    [
        (["yes", "no", "unsure"], recipe.YES, None, 0.33),
        (["yes", "unsure", "no"], {"yes": 1.0, "unsure": 0.3}, None, 0.43),
        ([], recipe.YES, None, 0.0),
        (["yes", "yes", "yes"], recipe.YES, 2, 1.0),  # capped at 1 with a denominator
        (["yes"], recipe.YES, 3, 0.33),
        (["yes"], recipe.YES, 0, 0.0),
        (["maybe"], recipe.YES, None, 0.0),  # an unlisted label weighs 0
    ],
)
def test_share_score(
    labels: list[str], weights: dict[str, float], denominator: int | None, score: float
) -> None:
    assert recipe.share_score(labels, weights, denominator=denominator) == score


def test_share_score_scale() -> None:
    assert recipe.share_score(["yes", "yes", "no"], scale=10) == 6.67


# A made-up scorer on the recipe: the politeness of each sentence of the answer, where a
# "partly" polite sentence counts half and the run's context must name the audience.

NO_AUDIENCE = "No audience in the context."


class Politeness(recipe.Verdict[Literal["yes", "partly", "no"]]):
    """The verdict on one sentence."""


class PolitenessVerdicts(recipe.VerdictList[Politeness]):
    """One verdict per sentence."""

    ITEM_OF: ClassVar[str] = "sentence"


class Sentences(CountedReply):
    """The answer's sentences."""

    ITEMS: ClassVar[str] = "sentences"
    ITEM_OF: ClassVar[str] = "sentence"

    sentences: list[str]


def _verdicts_prompt(query: str, context: Sequence[str], sentences: Sequence[str]) -> str:
    return f"rate {list(sentences)} for {list(context)}"


def _reason_prompt(run: recipe.ToExplain[PolitenessVerdicts]) -> str:
    return f"explain {run.score}/{run.scale}:\n{run.lines}"


POLITENESS = recipe.VerdictRecipe(
    "politeness-scorer",
    "Politeness Scorer",
    "Share of polite sentences",
    "You rate politeness.",
    recipe.Units("Split the answer into sentences", Sentences, lambda text: f"split {text}"),
    recipe.VerdictStep("Rate each sentence", PolitenessVerdicts, _verdicts_prompt),
    recipe.ReasonStep(_reason_prompt, "the answer is empty."),
)


async def _audience(run: ScorerRun) -> tuple[str, ...]:
    return run.context or ()


def politeness(judge: ScriptedJudge) -> Scorer:
    return recipe.verdict_scorer(
        POLITENESS,
        judge,
        10.0,
        context=recipe.ContextCheck(_audience, NO_AUDIENCE),
        weights={"yes": 1.0, "partly": 0.5},
    )


def test_recipe_wires_the_four_steps() -> None:
    scorer = politeness(ScriptedJudge())
    assert (scorer.id, scorer.name, scorer.description) == (
        "politeness-scorer",
        "Politeness Scorer",
        "Share of polite sentences",
    )
    assert scorer.judge is not None
    assert scorer.judge.instructions == "You rate politeness."
    assert [(s.name, s.type, s.description) for s in scorer.get_steps()] == [
        ("preprocess", "prompt", "Split the answer into sentences"),
        ("analyze", "prompt", "Rate each sentence"),
        ("generate_score", "function", None),
        ("generate_reason", "prompt", "Explain the score"),
    ]


def test_recipe_scores_the_weighted_share() -> None:
    judge = ScriptedJudge(
        [
            {"sentences": ["Hi.", "Go away.", "Thanks!"]},
            {
                "verdicts": [
                    {"verdict": "partly", "reason": "curt"},
                    {"verdict": "no", "reason": "rude"},
                    {"verdict": "yes", "reason": "kind"},
                ]
            },
            "because",
        ]
    )
    result = politeness(judge).run_sync(
        input="Say hi", output="Hi. Go away. Thanks!", context=["a customer"]
    )
    assert (result.status, result.score, result.reason) == ("ok", 5.0, "because")
    assert isinstance(result.preprocess_step_result, Sentences)
    assert isinstance(result.analyze_step_result, PolitenessVerdicts)
    assert judge.calls[0].prompt == "split Hi. Go away. Thanks!"
    assert judge.calls[1].prompt == "rate ['Hi.', 'Go away.', 'Thanks!'] for ['a customer']"
    assert judge.calls[2].prompt == (
        "explain 5/10:\n- Hi.: partly (curt)\n- Go away.: no (rude)\n- Thanks!: yes (kind)"
    )
    # the schemas: at most item_limit(answer) sentences, then exactly one verdict per sentence
    assert judge.calls[0].output_schema is not None
    assert judge.calls[0].output_schema["properties"]["sentences"]["maxItems"] == 7
    assert judge.calls[1].output_schema is not None
    verdicts = judge.calls[1].output_schema["properties"]["verdicts"]
    assert (verdicts["minItems"], verdicts["maxItems"]) == (3, 3)


def test_recipe_without_units_calls_no_judge() -> None:
    judge = ScriptedJudge([])
    result = politeness(judge).run_sync(input="Say hi", output="  ", context=["a customer"])
    assert (result.status, result.score) == ("ok", 0.0)
    assert result.reason == "The score is 0 because the answer is empty."
    assert result.preprocess_step_result == Sentences(sentences=[])
    assert result.analyze_step_result == PolitenessVerdicts(verdicts=[])
    assert judge.calls == []


def test_recipe_skips_a_run_without_context() -> None:
    judge = ScriptedJudge([])
    result = politeness(judge).run_sync(input="Say hi", output="Hi.")
    assert (result.status, result.score, result.reason) == ("skipped", None, NO_AUDIENCE)
    assert judge.calls == []


def test_units_whose_text_is_required_skip_a_blank_text() -> None:
    units = recipe.Units(
        "Split the ground truth", Sentences, str, lambda run: run.ground_truth or "", "no truth"
    )
    parts = recipe.VerdictRecipe(
        "truth-scorer",
        "Truth",
        "d",
        "i",
        units,
        POLITENESS.verdicts,
        POLITENESS.reason,
    )
    judge = ScriptedJudge([])
    result = recipe.verdict_scorer(parts, judge, 1.0).run_sync(output="x", ground_truth=" ")
    assert (result.status, result.reason) == ("skipped", "no truth")
    assert judge.calls == []


def test_recipe_drops_blank_context_pieces() -> None:
    # row 78: blank pieces never reach the judge; a run whose pieces are all blank is
    # skipped, saying so
    judge = ScriptedJudge(
        [{"sentences": ["Hi."]}, {"verdicts": [{"verdict": "yes", "reason": "r"}]}, "why"]
    )
    result = politeness(judge).run_sync(input="Say hi", output="Hi.", context=[" ", "a customer"])
    assert result.score == 10.0
    assert judge.calls[1].prompt == "rate ['Hi.'] for ['a customer']"
    blank = politeness(ScriptedJudge([])).run_sync(input="Say hi", output="Hi.", context=["", "\t"])
    assert (blank.status, blank.reason) == ("skipped", ALL_BLANK_REASON)


def test_a_verdict_list_without_verdicts_is_repaired_then_an_error() -> None:
    judge = ScriptedJudge([{"sentences": ["Hi."]}, {"verdicts": []}, {"verdicts": []}])
    with pytest.raises(ScorerRunError) as info:
        politeness(judge).run_sync(input="Say hi", output="Hi.", context=["a customer"])
    error = info.value.result.error
    assert error.step == "analyze"
    assert (
        "expected exactly 1 verdicts, one per sentence in the order given; got 0" in error.message
    )
    assert len(judge.calls) == 3
