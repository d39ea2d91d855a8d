"""What the judge reads in the schemas of every registered LLM scorer.

The schemas are for the judge: no developer docstrings, no reST markup, no remarks about Mastra
or scorekit's divergences, and a note only where one was written for the judge
(``Field(description=...)`` or ``JUDGE_NOTE``; scorekit.scorers.replies). Each scorer is built
with ``model="test/judge"`` (a stand-in judge that answers with minimal schema-valid replies),
every reply model it may validate with is walked, and the requests its judge receives are read.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from scorekit.errors import ScorerRunError
from scorekit.scorers import build_scorer
from scorekit.scorers.registry import list_scorers
from scorekit.scorers.replies import JudgeReply

LLM_SCORERS = [entry for entry in list_scorers() if entry.kind == "llm"]

# reST roles and literals, doctest prompts, and words a judge should never be shown
LEAKS = re.compile(r"``|:(class|func|meth|data|attr|mod):|>>>|Mastra|divergence|scorekit|D\[")

ITEM = {
    "input": "What is the capital of France?",
    "output": [{"role": "assistant", "content": "Paris is the capital of France."}],
    "ground_truth": "Paris is the capital of France.",
    "context": ["Paris is the capital of France."],
}


REQUIRED: dict[str, dict[str, Any]] = {
    "noise-sensitivity": {"baseline_response": "Paris.", "noisy_query": "Capital of France, ok?"},
    "tool-call-accuracy-llm": {"available_tools": [{"id": "search", "description": "Search"}]},
    "multi-turn-judge": {"criterion": "The assistant answers the question."},
    "rubric": {"criteria": ["The answer names the capital."]},
}
"""The options a scorer cannot be built (or asks nothing) without."""


def descriptions(schema: Any) -> Iterator[str]:
    """Every ``description`` in a JSON schema, nested ones and ``$defs`` included."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from descriptions(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from descriptions(value)


def reply_models() -> list[type[JudgeReply]]:
    """Every reply model the registered scorers define (their modules are imported)."""
    found: list[type[JudgeReply]] = []
    pending = [JudgeReply]
    while pending:
        for model in pending.pop().__subclasses__():
            if model not in found:
                found.append(model)
                pending.append(model)
    return found


def options_for(entry: Any) -> dict[str, Any]:
    names = {option.name for option in entry.options()}
    options: dict[str, Any] = {"model": "test/judge"}
    if "context" in names:
        options["context"] = ITEM["context"]
    return {**options, **REQUIRED.get(entry.name, {})}


def test_every_llm_scorer_is_covered() -> None:
    assert {entry.name for entry in LLM_SCORERS} >= {
        "context-relevance",
        "context-precision",
        "context-recall",
        "faithfulness",
        "hallucination",
        "answer-relevancy",
    }
    modules = {model.__module__ for model in reply_models()}
    assert "scorekit.scorers.context_relevance" in modules
    assert "scorekit.scorers.hallucination" in modules


@pytest.mark.parametrize("model", reply_models(), ids=lambda m: f"{m.__module__}.{m.__name__}")
def test_reply_models_show_the_judge_only_notes_written_for_it(model: type[JudgeReply]) -> None:
    schema = model.model_json_schema()
    assert schema["additionalProperties"] is False
    for text in descriptions(schema):
        assert not LEAKS.search(text), f"{model.__name__}: {text!r}"
        assert len(text) <= 200, f"{model.__name__}: a judge's note is short: {text!r}"
    assert '"title"' not in json.dumps(schema)


def test_notes_for_the_judge_are_where_they_help() -> None:
    from scorekit.scorers.context_precision import PrecisionVerdict
    from scorekit.scorers.context_relevance import ContextEvaluation
    from scorekit.scorers.hallucination import HallucinationVerdict

    index = PrecisionVerdict.model_json_schema()["properties"]["context_index"]
    assert index["description"] == "The number of the context piece, from 0."
    assert "context_piece" not in PrecisionVerdict.model_json_schema()["properties"]
    # context relevance asks the level and the use of each piece, in order (issue 29)
    assert list(ContextEvaluation.model_json_schema()["properties"]) == [
        "relevance_level",
        "was_used",
    ]
    verdict = HallucinationVerdict.model_json_schema()["properties"]
    assert (
        verdict["supported"]["description"]
        == '"yes" when the context supports the claim, else "no".'
    )
    assert "statement" not in verdict
    assert "verdict" not in verdict  # derived from `supported` (row 107)


@pytest.mark.parametrize("entry", LLM_SCORERS, ids=lambda e: e.name)
def test_requests_carry_no_developer_text(entry: Any) -> None:
    scorer = build_scorer(entry.name, **options_for(entry))
    model = scorer.judge.model if scorer.judge is not None else None
    # a minimal reply may be refused (it may repeat an index): the requests are what counts
    with contextlib.suppress(ScorerRunError):
        scorer.run_sync(**ITEM)
    calls = getattr(model, "calls", [])
    assert calls, f"{entry.name}: the stand-in judge received no request"
    for request in calls:
        if request.output_schema is not None:
            for text in descriptions(request.output_schema):
                assert not LEAKS.search(text), f"{entry.name} ({request.step}): {text!r}"
