from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "scorekit.rounding",
    "scorekit.scorers.answer_relevancy",
    "scorekit.scorers.context_precision",
    "scorekit.scorers.context_recall",
    "scorekit.scorers.context_relevance",
    "scorekit.scorers.faithfulness",
    "scorekit.scorers.hallucination",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
