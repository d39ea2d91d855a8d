from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "scorekit.rounding",
    "scorekit.judge.logprobs",
    "scorekit.scorers.expected",
    "scorekit.scorers.answer_relevancy",
    "scorekit.scorers.context_precision",
    "scorekit.scorers.context_recall",
    "scorekit.scorers.context_relevance",
    "scorekit.scorers.faithfulness",
    "scorekit.scorers.hallucination",
    "scorekit.scorers.answer_similarity",
    "scorekit.scorers.bias",
    "scorekit.scorers.multi_turn_judge",
    "scorekit.scorers.noise_sensitivity",
    "scorekit.scorers.prompt_alignment",
    "scorekit.scorers.rubric",
    "scorekit.scorers.summarization",
    "scorekit.scorers.tone",
    "scorekit.scorers.tool_call_accuracy_llm",
    "scorekit.scorers.toxicity",
    "scorekit.scorers.trajectory",
    "scorekit.scorers.trajectory_accuracy",
    "scorekit.scorers.trajectory_accuracy_llm",
    "scorekit.scorers.verdicts",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
