"""The plain baseline: one short labelling prompt per row, answering the human label's question.

Each baseline asks the human annotators' question directly and takes a one-field JSON reply,
``{"label": "yes" | "no"}`` (or ``{"better": "1" | "2"}`` for a pair), so it costs one call and
a handful of completion tokens per row. Its score is the label itself (1 or 0), so its AUROC
equals its balanced accuracy. The prompts are ours, deliberately minimal: no worked examples,
no reasoning field. The same judge model, the same rows and the same cut texts as the scorer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BASELINE_INSTRUCTIONS",
    "Baseline",
    "answer_relevance",
    "context_relevance",
    "faithfulness",
    "pair_correctness",
]

BASELINE_INSTRUCTIONS = "You label data for an evaluation. Reply only with the JSON asked for."
"""The baseline judge's system prompt."""

_YES_NO: dict[str, Any] = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["label"],
    "additionalProperties": False,
}
_PAIR: dict[str, Any] = {
    "type": "object",
    "properties": {"better": {"type": "string", "enum": ["1", "2"]}},
    "required": ["better"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Baseline:
    """One baseline prompt.

    Attributes:
        name: what it asks, for the report.
        prompt: ``(question, documents, answer, reference, other) -> prompt``; texts already cut.
        schema: the reply's JSON schema.
        positive: ``reply value -> 1 | 0``.
    """

    name: str
    prompt: Callable[[str, tuple[str, ...], str, str | None, str | None], str]
    schema: dict[str, Any]
    positive: Callable[[Any], int]


def _documents(documents: tuple[str, ...]) -> str:
    if len(documents) == 1:
        return f"Document:\n{documents[0]}"
    return "\n\n".join(f"Document {i + 1}:\n{d}" for i, d in enumerate(documents))


def _yes(value: Any) -> int:
    return int(value["label"] == "yes")


def _ask(question: str) -> str:
    return f'{question} Reply with JSON: {json.dumps({"label": "yes"})} or {{"label": "no"}}.'


context_relevance = Baseline(
    "document relevant to the question?",
    lambda q, docs, a, ref, other: (
        f"Question: {q}\n\n{_documents(docs)}\n\n"
        + _ask("Does the document contain information relevant to answering the question?")
    ),
    _YES_NO,
    _yes,
)
"""ARES's context relevance question (the answer is not shown)."""

faithfulness = Baseline(
    "answer supported by the documents?",
    lambda q, docs, a, ref, other: (
        f"{_documents(docs)}\n\nQuestion: {q}\n\nAnswer: {a}\n\n"
        + _ask("Is everything the answer states supported by the document(s)?")
    ),
    _YES_NO,
    _yes,
)
"""Attribution: is every statement of the answer (claim, response) supported?"""

answer_relevance = Baseline(
    "answer addresses the question?",
    lambda q, docs, a, ref, other: (
        f"Question: {q}\n\nAnswer: {a}\n\n" + _ask("Does the answer address the question?")
    ),
    _YES_NO,
    _yes,
)
"""ARES's answer relevance question (the document is not shown)."""

pair_correctness = Baseline(
    "which response is more correct?",
    lambda q, docs, a, ref, other: (
        f"Question: {q}\n\nReference answer: {ref}\n\nResponse 1: {a}\n\nResponse 2: {other}\n\n"
        "Which response is more correct, judged against the reference answer? "
        'Reply with JSON: {"better": "1"} or {"better": "2"}.'
    ),
    _PAIR,
    lambda value: int(value["better"] == "2"),
)
"""RAGChecker's correctness preference between two responses."""
