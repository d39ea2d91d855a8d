"""The benchmark's tasks: a scorer, the human label it is compared with, and its baseline.

A task names the data and its label, builds the scorekit scorer for one (cut) row, turns the
scorer's score into a value that grows with the human label's positive class ("oriented"
score: the hallucination score is inverted), and says which oriented scores count as a
positive prediction. Each task also names the plain baseline prompt of its label's question.

Thresholds (the oriented score at or above which a row is predicted positive):

* context relevance, context precision, answer relevancy: 0.5 (for context relevance: the
  piece rated ``medium`` or ``high``);
* faithfulness: 1.0 and hallucination: 0 hallucinated claims (every claim supported, which is
  what "fully attributable", "complete support" and ARES's faithfulness label mean);
* RAGChecker pairs: oriented = (score₂ − score₁ + 1) / 2, response 2 predicted better when
  it is above 0.5 (a tie predicts response 1).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from judge_quality import baselines
from judge_quality.data import Row, load_ares, load_begin, load_expertqa_claims, load_ragchecker
from scorekit.pipeline import Scorer
from scorekit.scorers import (
    create_answer_relevancy_scorer,
    create_answer_similarity_scorer,
    create_context_precision_scorer,
    create_context_relevance_scorer_llm,
    create_faithfulness_scorer,
    create_hallucination_scorer,
)

__all__ = ["DEFAULT_TASKS", "TASKS", "Task", "accepts"]


@dataclass(frozen=True)
class Task:
    """One scorer against one human label.

    Attributes:
        name: the task's name (``--tasks``).
        data: the data set and label, for the report.
        load: loads every labelled row.
        factory: the scorer factory.
        options: keyword options for the factory besides ``model`` and ``context``.
        baseline: the plain prompt of the same label.
        rows: the default subset size (balanced between the labels).
        threshold: oriented scores at or above it are predicted positive (``strict``: above).
        invert: the oriented score is ``1 − score`` (a lower score means the positive class).
        pair: the row is a pair: the scorer runs on both responses against the reference.
        with_context: the factory takes the row's (cut) documents as ``context``.
    """

    name: str
    data: str
    load: Callable[[], list[Row]]
    factory: Callable[..., Scorer]
    baseline: baselines.Baseline
    rows: int
    threshold: float
    options: dict[str, Any] = field(default_factory=dict)
    invert: bool = False
    pair: bool = False
    strict: bool = False
    with_context: bool = True

    def build(self, judge: Any, row: Row, extra: dict[str, Any]) -> Scorer:
        """The scorer for one row (its documents as the fixed context)."""
        kwargs = {**self.options, **extra}
        if self.with_context:
            kwargs["context"] = list(row.contexts)
        return self.factory(model=judge, **kwargs)

    def orient(self, score: float) -> float:
        """The score turned so that higher means the label's positive class."""
        return 1.0 - score if self.invert else score

    def predict(self, oriented: float) -> int:
        """The predicted label of an oriented score."""
        return int(oriented > self.threshold if self.strict else oriented >= self.threshold)


def accepts(factory: Callable[..., Any], option: str) -> bool:
    """Whether ``factory`` takes the keyword ``option`` (e.g. ``scoring``)."""
    params = inspect.signature(factory).parameters.values()
    return any(p.name == option or p.kind is p.VAR_KEYWORD for p in params)


def _ares(label: str) -> Callable[[], list[Row]]:
    return lambda: load_ares(label)


_TASKS = [
    Task(
        "ares-context-relevance",
        "ARES dev, Context_Relevance_Label",
        _ares("context_relevance"),
        create_context_relevance_scorer_llm,
        baselines.context_relevance,
        rows=12,
        threshold=0.5,
        options={"reason": "template"},
    ),
    Task(
        "ares-context-precision",
        "ARES dev, Context_Relevance_Label",
        _ares("context_relevance"),
        create_context_precision_scorer,
        baselines.context_relevance,
        rows=8,
        threshold=0.5,
    ),
    Task(
        "ares-faithfulness",
        "ARES dev, Answer_Faithfulness_Label",
        _ares("answer_faithfulness"),
        create_faithfulness_scorer,
        baselines.faithfulness,
        rows=8,
        threshold=1.0,
    ),
    Task(
        "ares-hallucination",
        "ARES dev, Answer_Faithfulness_Label",
        _ares("answer_faithfulness"),
        create_hallucination_scorer,
        baselines.faithfulness,
        rows=8,
        threshold=1.0,
        invert=True,
    ),
    Task(
        "ares-answer-relevancy",
        "ARES dev, Answer_Relevance_Label",
        _ares("answer_relevance"),
        create_answer_relevancy_scorer,
        baselines.answer_relevance,
        rows=8,
        threshold=0.5,
        with_context=False,
    ),
    Task(
        "begin-faithfulness",
        "BEGIN WoW dev, fully attributable",
        load_begin,
        create_faithfulness_scorer,
        baselines.faithfulness,
        rows=8,
        threshold=1.0,
    ),
    Task(
        "begin-hallucination",
        "BEGIN WoW dev, fully attributable",
        load_begin,
        create_hallucination_scorer,
        baselines.faithfulness,
        rows=8,
        threshold=1.0,
        invert=True,
    ),
    Task(
        "expertqa-faithfulness",
        "ExpertQA claims, support Complete",
        load_expertqa_claims,
        create_faithfulness_scorer,
        baselines.faithfulness,
        rows=8,
        threshold=1.0,
    ),
    Task(
        "expertqa-hallucination",
        "ExpertQA claims, support Complete",
        load_expertqa_claims,
        create_hallucination_scorer,
        baselines.faithfulness,
        rows=8,
        threshold=1.0,
        invert=True,
    ),
    Task(
        "ragchecker-answer-similarity",
        "RAGChecker pairs, correctness preference",
        load_ragchecker,
        create_answer_similarity_scorer,
        baselines.pair_correctness,
        rows=4,
        threshold=0.5,
        pair=True,
        strict=True,
        with_context=False,
    ),
]

TASKS: dict[str, Task] = {t.name: t for t in _TASKS}
"""Every task by name."""

DEFAULT_TASKS = (
    "ares-context-relevance",
    "ares-faithfulness",
    "ares-answer-relevancy",
    "begin-faithfulness",
    "expertqa-faithfulness",
)
"""The tasks of the default run, chosen to fit about an hour on 2 cores with the 1.5B judge;
context precision, the hallucination tasks and the RAGChecker pairs run on request."""
