"""The reason option of the verdict scorers: the judge's reason, a template, or none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scorekit.errors import ConfigError
from scorekit.judge import ScriptedJudge
from scorekit.pipeline import Scorer
from scorekit.scorers import (
    answer_relevancy,
    bias,
    context_recall,
    faithfulness,
    hallucination,
)
from scorekit.scorers.verdicts import UNIT_CHARS, VerdictRecipe, template_reason

UNITS = ["Paris is in France.", "Paris has 40 million people."]
RUN = {"input": "Tell me about Paris.", "output": "Paris is in France. It has 40M people."}
CONTEXT = ["Paris is the capital of France; about 2 million people live there."]

Factory = Callable[..., Scorer]
SCORERS: list[tuple[str, VerdictRecipe[Any], Factory, dict[str, Any], dict[str, Any]]] = [
    ("faithfulness", faithfulness.RECIPE, faithfulness.create_faithfulness_scorer,
     {"context": CONTEXT}, {}),
    ("hallucination", hallucination.RECIPE, hallucination.create_hallucination_scorer,
     {"context": CONTEXT}, {}),
    ("context recall", context_recall.RECIPE, context_recall.create_context_recall_scorer,
     {"context": CONTEXT}, {"ground_truth": "Paris is in France. Paris has 2M people."}),
    ("answer relevancy", answer_relevancy.RECIPE,
     answer_relevancy.create_answer_relevancy_scorer, {}, {}),
    ("bias", bias.RECIPE, bias.create_bias_scorer, {}, {}),
]  # fmt: skip
IDS = [name for name, *_ in SCORERS]
EACH_SCORER = pytest.mark.parametrize(
    ("name", "recipe", "factory", "options", "extra"), SCORERS, ids=IDS
)


def _script(recipe: VerdictRecipe[Any]) -> list[Any]:
    """The units reply, then a verdict reply labelling them yes, no."""
    reply = recipe.verdicts.reply
    item = reply.model_fields[reply.ITEMS].annotation.__args__[0]  # type: ignore[union-attr]
    fields = item.model_fields
    verdicts = []
    for label in ("yes", "no"):
        verdict: dict[str, Any] = {recipe.verdicts.label: label}
        if "reason" in fields:
            verdict["reason"] = "because"
        verdicts.append(verdict)
    return [{recipe.units.reply.ITEMS: UNITS}, {reply.ITEMS: verdicts}, "The judge's reason."]


@EACH_SCORER
def test_a_template_reason_states_the_verdicts_without_a_judge_call(
    name: str, recipe: VerdictRecipe[Any], factory: Factory, options: dict, extra: dict
) -> None:
    judge = ScriptedJudge(_script(recipe))
    result = factory(model=judge, reason="template", **options).run_sync(**RUN, **extra)
    assert result.status == "ok"
    assert len(judge.calls) == 2
    item = recipe.units.reply.ITEM_OF
    assert result.reason == (
        f"The score is {result.score:g} because the verdicts on the 2 {item}s were yes 1, no 1: "
        '1. "Paris is in France.": yes; 2. "Paris has 40 million people.": no.'
    )
    assert result.generate_reason_prompt is None


@EACH_SCORER
def test_no_reason_means_no_reason_step(
    name: str, recipe: VerdictRecipe[Any], factory: Factory, options: dict, extra: dict
) -> None:
    judge = ScriptedJudge(_script(recipe))
    result = factory(model=judge, reason="none", **options).run_sync(**RUN, **extra)
    assert (result.status, result.reason, len(judge.calls)) == ("ok", None, 2)


TEMPLATE_BY_DEFAULT = {"faithfulness"}
"""Where the reason is a template unless asked (divergences.md row 102): measured, the small
judge's own explanation contradicted its verdicts. The others keep Mastra's judge reason."""


@EACH_SCORER
def test_the_default_reason(
    name: str, recipe: VerdictRecipe[Any], factory: Factory, options: dict, extra: dict
) -> None:
    judge = ScriptedJudge(_script(recipe))
    result = factory(model=judge, **options).run_sync(**RUN, **extra)
    if name in TEMPLATE_BY_DEFAULT:
        assert (result.status, len(judge.calls)) == ("ok", 2)
        assert result.reason is not None and result.reason.startswith("The score is ")
        assert result.reason.endswith('2. "Paris has 40 million people.": no.')
    else:
        assert (result.status, result.reason, len(judge.calls)) == ("ok", "The judge's reason.", 3)


@EACH_SCORER
def test_the_judge_writes_the_reason_when_asked(
    name: str, recipe: VerdictRecipe[Any], factory: Factory, options: dict, extra: dict
) -> None:
    judge = ScriptedJudge(_script(recipe))
    result = factory(model=judge, reason="llm", **options).run_sync(**RUN, **extra)
    assert (result.status, result.reason, len(judge.calls)) == ("ok", "The judge's reason.", 3)
    assert judge.calls[2].step == "generate_reason"


@EACH_SCORER
def test_a_bad_reason_option_is_refused(
    name: str, recipe: VerdictRecipe[Any], factory: Factory, options: dict, extra: dict
) -> None:
    with pytest.raises(ConfigError) as info:
        factory(model=ScriptedJudge([]), reason="short", **options)
    assert info.value.field == "reason"
    assert "'llm', 'template' or 'none'" in str(info.value)


def test_the_template_quotes_long_units_shortened_and_one_unit_in_the_singular() -> None:
    long = "word " * 40
    text = template_reason("0", "claim", [long], ["no"])
    quoted = " ".join(long.split())[: UNIT_CHARS - 1] + "…"
    assert (
        text == f'The score is 0 because the verdicts on the 1 claim were no 1: 1. "{quoted}": no.'
    )


def test_the_template_counts_labels_in_order_of_first_appearance() -> None:
    text = template_reason("0.4", "statement", ["a", "b", "c"], ["unsure", "yes", "unsure"])
    assert text == (
        "The score is 0.4 because the verdicts on the 3 statements were unsure 2, yes 1: "
        '1. "a": unsure; 2. "b": yes; 3. "c": unsure.'
    )


@pytest.mark.parametrize(("units", "labels"), [([], []), (["a"], []), (["a"], ["yes", "no"])])
def test_the_template_needs_one_label_per_unit(units: list[str], labels: list[str]) -> None:
    with pytest.raises(ValueError, match="labels for"):
        template_reason("1", "claim", units, labels)
