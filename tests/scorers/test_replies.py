"""Counted replies: one item per context piece, claim or statement, asked for and checked."""

from __future__ import annotations

import json
import pickle
from typing import ClassVar

import pytest
from pydantic import ValidationError

from scorekit.judge import ScriptedJudge
from scorekit.judge.scripted import minimal_instance
from scorekit.scorers import create_faithfulness_scorer
from scorekit.scorers.context_precision import PrecisionVerdicts
from scorekit.scorers.faithfulness import FaithfulnessVerdicts
from scorekit.scorers.hallucination import HallucinationVerdicts
from scorekit.scorers.replies import EXPECTED_ITEMS, Claims, item_limit


def verdict(label: str) -> dict[str, str]:
    return {"verdict": label, "reason": "r"}


def test_expecting_bounds_the_list_exactly() -> None:
    spec = FaithfulnessVerdicts.expecting(3)
    base = FaithfulnessVerdicts.model_json_schema()
    assert spec.name == "FaithfulnessVerdicts"
    assert spec.model is FaithfulnessVerdicts
    assert spec.validation_context == {EXPECTED_ITEMS: 3}
    assert spec.json_schema["properties"]["verdicts"] == {
        **base["properties"]["verdicts"],
        "minItems": 3,
        "maxItems": 3,
    }
    assert {k: v for k, v in spec.json_schema.items() if k != "properties"} == {
        k: v for k, v in base.items() if k != "properties"
    }
    assert FaithfulnessVerdicts.expecting(3) is spec  # cached per count
    with pytest.raises(ValueError, match="at least one item"):
        FaithfulnessVerdicts.expecting(0)


def test_indexed_items_must_cover_each_index_exactly_once() -> None:
    # divergences.md rows 19 and 26, row 80: no verdicts, a repeated index or an index out
    # of range is refused (Mastra scores them)
    spec = PrecisionVerdicts.expecting(2)
    items = {"items": {"$ref": "#/$defs/PrecisionVerdict"}, "type": "array"}
    assert spec.json_schema["properties"]["verdicts"] == {**items, "minItems": 2, "maxItems": 2}
    context = spec.validation_context

    def indexed(*indices: int) -> dict[str, list[dict[str, object]]]:
        return {"verdicts": [{"context_index": i, **verdict("yes")} for i in indices]}

    expected = (
        "expected exactly 2 verdicts, one for each context_index from 0 to 1, each exactly once"
    )
    for indices, got in [((), "[]"), ((0,), "[0]"), ((0, 0), "[0, 0]"), ((0, 2), "[0, 2]")]:
        with pytest.raises(ValidationError) as info:
            PrecisionVerdicts.model_validate(indexed(*indices), context=context)
        assert f"{expected}; got context_index values {got}" in str(info.value)
    reply = PrecisionVerdicts.model_validate(indexed(1, 0), context=context)
    assert [v.context_index for v in reply.verdicts] == [0, 1]  # sorted, as Mastra stores them
    assert [v.context_index for v in reply.items_in_reply_order()] == [1, 0]


def test_positions_map_the_judges_indices_back() -> None:
    # row 78: the judge numbers the pieces it saw; the result names their positions
    spec = PrecisionVerdicts.expecting(2, positions=(0, 2))
    reply = PrecisionVerdicts.model_validate(
        {"verdicts": [{"context_index": i, **verdict("yes")} for i in (1, 0)]},
        context=spec.validation_context,
    )
    assert [v.context_index for v in reply.verdicts] == [0, 2]
    assert [v.context_index for v in reply.items_in_reply_order()] == [2, 0]
    assert PrecisionVerdicts.expecting(2).validation_context == {EXPECTED_ITEMS: 2}
    with pytest.raises(ValueError, match="positions holds 1 values for 2 items"):
        PrecisionVerdicts.expecting(2, positions=(0,))


def test_echo_fields_hold_our_copy_not_the_judges() -> None:
    # row 79: a judge that copies the prompt's example back does not change the result
    spec = HallucinationVerdicts.expecting(2, shown=["claim A", "claim B"])
    assert "statement" not in json.dumps(spec.json_schema)
    reply = HallucinationVerdicts.model_validate(
        {
            "verdicts": [
                {"statement": "an example from the prompt", "verdict": "no", "reason": "r"},
                {"verdict": "yes", "reason": "r"},
            ]
        },
        context=spec.validation_context,
    )
    assert [v.statement for v in reply.verdicts] == ["claim A", "claim B"]


def test_the_count_is_checked_only_with_the_expected_count() -> None:
    one = {"verdicts": [verdict("yes")]}
    assert len(FaithfulnessVerdicts.model_validate(one).verdicts) == 1
    context = FaithfulnessVerdicts.expecting(2).validation_context
    with pytest.raises(
        ValidationError,
        match="expected exactly 2 verdicts, one per claim in the order given; got 1",
    ):
        FaithfulnessVerdicts.model_validate(one, context=context)
    with pytest.raises(ValidationError, match="got 0"):
        FaithfulnessVerdicts.model_validate({"verdicts": []}, context=context)
    # results are plain instances of the reply class: they compare and pickle as such
    two = FaithfulnessVerdicts.model_validate({"verdicts": [verdict("yes")] * 2}, context=context)
    assert type(two) is FaithfulnessVerdicts
    assert pickle.loads(pickle.dumps(two)) == two


def test_a_short_reply_is_repaired_with_the_expected_count() -> None:
    judge = ScriptedJudge(
        [
            {"claims": ["Paris is in France.", "Paris has 2 million people."]},
            {"verdicts": [verdict("yes")]},
            {"verdicts": [verdict("yes"), verdict("no")]},
            "why",
        ]
    )
    scorer = create_faithfulness_scorer(
        model=judge, context=["Paris is the capital of France."], reason="llm"
    )
    result = scorer.run_sync(
        input="Tell me about Paris.", output="Paris is in France. 2M live there."
    )
    assert result.status == "ok"
    assert result.score == 0.5
    asked = judge.calls[1].output_schema
    assert asked is not None
    assert asked["properties"]["verdicts"]["minItems"] == 2
    assert asked["properties"]["verdicts"]["maxItems"] == 2
    assert judge.calls[2].output_schema == asked
    repair = judge.calls[2].messages[-1].content
    assert "expected exactly 2 verdicts, one per claim in the order given; got 1" in repair
    assert result.judge_usage.calls == 4


def test_minimal_instance_honours_min_items() -> None:
    schema = PrecisionVerdicts.expecting(2).json_schema
    assert minimal_instance(schema) == {
        "verdicts": [{"context_index": 0, "verdict": "yes", "reason": ""}] * 2
    }
    exact = FaithfulnessVerdicts.expecting(2).json_schema
    assert minimal_instance(exact) == {"verdicts": [{"verdict": "yes", "reason": ""}] * 2}


def test_item_limit_counts_characters() -> None:
    assert item_limit("") == 1
    assert item_limit("  abc  ") == 1
    assert item_limit("abcd") == 2
    assert item_limit("Paris is the capital of France.") == 11  # 31 characters
    assert item_limit("東京は日本の首都です。") == 4  # 11 characters, no spaces


def test_at_most_bounds_the_list_from_above() -> None:
    spec = Claims.at_most(2)
    assert spec.json_schema["properties"]["claims"] == {
        # TEXT_CHARS: each claim is bounded; no empty claim (constrained decoding obeys it)
        "items": {"type": "string", "maxLength": 500, "minLength": 1},
        "type": "array",
        "maxItems": 2,
    }
    assert spec.reply_chars == 4 * 3 * 2 + 256  # the whole list: 4x its text, 3 chars a unit
    assert Claims.at_most(2) is spec
    context = spec.validation_context
    assert Claims.model_validate({"claims": []}, context=context).claims == []
    with pytest.raises(ValidationError, match="expected at most 2 claims for this text; got 3"):
        Claims.model_validate({"claims": ["a", "b", "c"]}, context=context)
    with pytest.raises(ValueError, match="at least 1"):
        Claims.at_most(0)


def test_claim_extraction_is_bounded_by_the_answer() -> None:
    answer = "Paris is the capital of France."
    judge = ScriptedJudge([{"claims": [answer]}, {"verdicts": [verdict("yes")]}, "why"])
    scorer = create_faithfulness_scorer(model=judge, context=["Paris is the capital of France."])
    assert scorer.run_sync(input="q", output=answer).score == 1.0
    asked = judge.calls[0].output_schema
    assert asked is not None
    assert asked["properties"]["claims"]["maxItems"] == item_limit(answer) == 11
    assert "minItems" not in asked["properties"]["claims"]


def test_extra_keys_are_kept_snake_cased() -> None:
    # divergences.md row 29: a reply with every field and keys of its own is accepted (as
    # Mastra does); the schema sent stays closed
    reply = Claims.model_validate({"claims": ["a"], "sourceSpan": [0, 1]})
    assert reply.model_dump() == {"claims": ["a"], "source_span": [0, 1]}
    assert Claims.model_json_schema()["additionalProperties"] is False


def test_the_judge_sees_no_titles_or_developer_docstrings() -> None:
    from scorekit.scorers.replies import JudgeReply

    sent = json.dumps(FaithfulnessVerdicts.expecting(2).json_schema)
    assert '"title"' not in sent
    assert '"description"' not in sent  # the models' docstrings are for developers

    class Noted(JudgeReply):
        """Developer notes, with ``reST`` and remarks about Mastra."""

        JUDGE_NOTE: ClassVar[str] = "One verdict for the whole answer."
        verdict: str

    schema = Noted.model_json_schema()
    assert schema["description"] == "One verdict for the whole answer."
    assert schema["additionalProperties"] is False
    assert schema["properties"] == {"verdict": {"type": "string", "maxLength": 500}}


@pytest.mark.parametrize(
    ("claims", "problem"),
    [(["a", "  "], r"positions \[1\] are blank"), (["a", "b", "a "], "repeat .a .")],
)
def test_units_taken_from_a_text_are_neither_blank_nor_repeated(
    claims: list[str], problem: str
) -> None:
    # row 82: a blank or repeated claim would be judged and counted like a real one
    spec = Claims.at_most(10)
    with pytest.raises(ValidationError, match=problem):
        Claims.model_validate({"claims": claims}, context=spec.validation_context)
    assert Claims.model_validate({"claims": ["a", "b"]}, context=spec.validation_context)


def test_optional_lists_default_to_empty() -> None:
    # row 106: one rule for every reply model: an optional list field is [] when the judge
    # left it out (never None, never absent)
    import importlib
    import inspect

    from scorekit.scorers import registry
    from scorekit.scorers.replies import JudgeReply

    models = {
        obj
        for name in registry.builtin_modules()
        for _, obj in inspect.getmembers(importlib.import_module(name), inspect.isclass)
        if issubclass(obj, JudgeReply) and obj is not JudgeReply
    }
    checked = 0
    for model in models:
        for name, field in model.model_fields.items():
            text = str(field.annotation)
            if "list[" in text and not field.is_required():
                assert field.default_factory is list, f"{model.__name__}.{name}"
                assert "None" not in text, f"{model.__name__}.{name} may be None"
                checked += 1
    assert checked >= 4
