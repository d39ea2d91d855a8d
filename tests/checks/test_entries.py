"""The checks as registry entries: names, ids, keyword-only factories, the same scorers."""

from __future__ import annotations

import inspect
import pickle
import re
from typing import Any

import pytest

from scorekit import checks
from scorekit.scorers.registry import ScorerEntry, build_scorer

OPTIONS: dict[str, dict[str, Any]] = {
    "check-includes": {"expected": "Sunny", "ignore_case": False},
    "check-excludes": {"unwanted": "rain", "ignore_case": True},
    "check-equals": {"expected": "It is sunny.", "ignore_case": True},
    "check-matches": {"pattern": {"source": r"\bSUNNY\b", "flags": "i"}, "exact": False},
    "check-similarity": {"expected": "It is sunny.", "ignore_case": True, "threshold": 0.5},
    "check-called-tool": {"tool_name": "search", "times": 2},
    "check-did-not-call": {"tool_name": "delete_user"},
    "check-tool-order": {"expected_order": ["search", "search"]},
    "check-max-tool-calls": {"max_calls": 2},
    "check-used-no-tools": {},
    "check-no-tool-errors": {},
}

OUTPUT = [
    {
        "role": "assistant",
        "content": "It is sunny.",
        "toolInvocations": [
            {"toolCallId": str(i), "toolName": "search", "state": "result", "result": {}}
            for i in range(2)
        ],
    }
]

SCORES = {
    "check-includes": 0.0,
    "check-excludes": 1.0,
    "check-equals": 1.0,
    "check-matches": 1.0,
    "check-similarity": 1.0,
    "check-called-tool": 1.0,
    "check-did-not-call": 1.0,
    "check-tool-order": 1.0,
    "check-max-tool-calls": 1.0,
    "check-used-no-tools": 0.0,
    "check-no-tool-errors": 1.0,
}


def test_one_entry_per_check() -> None:
    assert [entry.name for entry in checks.ENTRIES] == list(OPTIONS)
    for entry in checks.ENTRIES:
        assert isinstance(entry, ScorerEntry)
        assert entry.kind == "code"
        assert entry.scorer_id == entry.name
        assert re.fullmatch(r"check-[a-z]+(-[a-z]+)*", entry.name)
        assert entry.summary


@pytest.mark.parametrize("entry", checks.ENTRIES, ids=lambda e: e.name)
def test_factories_take_keyword_options_only(entry: ScorerEntry) -> None:
    parameters = inspect.signature(entry.factory).parameters.values()
    assert all(param.kind is param.KEYWORD_ONLY for param in parameters)
    # every check also takes scorer_id, to run two of one kind in one run
    assert [option.name for option in entry.options()] == [*OPTIONS[entry.name], "scorer_id"]
    for option in entry.options():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", option.name)


@pytest.mark.parametrize("entry", checks.ENTRIES, ids=lambda e: e.name)
def test_entries_build_the_checks(entry: ScorerEntry) -> None:
    scorer = entry.factory(**OPTIONS[entry.name])
    assert scorer.id == entry.scorer_id
    result = scorer.run_sync(input="Weather?", output=OUTPUT)
    assert result.status == "ok"
    assert result.score == SCORES[entry.name]


def test_options_given_as_data_pickle() -> None:
    for options in OPTIONS.values():
        assert pickle.loads(pickle.dumps(options)) == options
    assert pickle.loads(pickle.dumps(checks.js_regex("a", "i"))) == checks.js_regex("a", "i")


def test_required_options() -> None:
    required = {
        entry.name: [option.name for option in entry.options() if option.required]
        for entry in checks.ENTRIES
    }
    assert required["check-called-tool"] == ["tool_name"]
    assert required["check-matches"] == ["pattern"]
    assert required["check-used-no-tools"] == []


def test_two_checks_of_one_kind_run_together_under_their_own_ids() -> None:
    from scorekit.evals import run_evals_sync

    reply = [{"role": "assistant", "content": "Sunny in Paris."}]
    sunny = checks.includes("sunny", scorer_id="mentions-sunny")
    paris = checks.includes("paris", scorer_id="mentions-paris")
    rain = build_scorer("check-includes", expected="rain", scorer_id="mentions-rain")
    result = run_evals_sync([{"input": "q", "output": reply}], [sunny, paris, rain])
    scores = {sid: r.score for sid, r in result.items[0].scorer_results.items()}
    assert scores == {"mentions-sunny": 1.0, "mentions-paris": 1.0, "mentions-rain": 0.0}
    assert checks.includes("x").id == "check-includes"  # Mastra's id by default
