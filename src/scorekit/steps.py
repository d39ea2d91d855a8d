"""What a scorer's steps see and may return: the run, earlier results, and two sentinels.

A step receives a :class:`StepContext` (the record being scored and the results of the steps
before it); it may return :func:`not_scorable` to end the run as ``skipped``, and a prompt
step's ``create_prompt`` may return :func:`local_result` to settle the step without a judge
call. :mod:`scorekit.pipeline` re-exports all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal

__all__ = [
    "CELLS",
    "RECORD_FIELDS",
    "RESULT_FIELDS",
    "Cell",
    "ItemRecord",
    "LocalResult",
    "NotScorable",
    "ScorerRun",
    "StepContext",
    "StepResults",
    "cell_fields",
    "local_result",
    "not_scorable",
    "record_values",
]


Cell = Literal["message", "pieces", "json"]
"""How a dataset file's cell holds an item field: ``"message"`` (a text or chat messages),
``"pieces"`` (a list of strings, or one string for a single piece), ``"json"`` (anything; a
CSV/TSV cell holding a JSON object or list is parsed)."""


_MESSAGE = {"cell": "message", "in_result": True}
_PIECES = {"cell": "pieces", "in_result": False}
_JSON = {"cell": "json", "in_result": True}


@dataclass(frozen=True, kw_only=True)
class ItemRecord:
    """The item's fields, declared once: what a dataset record holds and a scorer sees.

    :class:`ScorerRun` (what a scorer's steps see), :class:`~scorekit.items.EvalItem` (an item
    of a run) and the store's :class:`~scorekit.store.records.ResultRecord` are this record
    plus their own fields; the dataset readers, the store's columns and rows, the per-item
    loop and the users' assertions iterate :data:`RECORD_FIELDS` instead of naming the fields.
    Three typed mirrors name them for type checkers and are pinned to this declaration by
    ``tests/test_item_record.py``: :class:`~scorekit.results.ScorerRunResult` (every field
    whose ``in_result`` is true), :class:`~scorekit.datasets.files.FieldMap` and the config's
    ``FieldsConfig``. Each field's metadata says how a file cell holds it (:data:`Cell`) and
    whether a result echoes it.

    Attributes:
        input: the user's input in any shape :mod:`scorekit.inputs.messages` accepts, or ``None``.
        output: the output being scored.
        ground_truth: the expected output or reference, or ``None``.
        context: the record's retrieved context pieces (a dataset item's ``context``, or what
            a ``run_evals`` target returned with its output), or ``None``. Context scorers use
            it when they are given neither a fixed context nor a context extractor.
        request_context: any per-request data the caller passes through (a dict), or ``None``.
        expected_trajectory: the steps the agent was expected to take (trajectory scorers): a
            trajectory ``{"steps": [...]}`` or a list of expected steps, or ``None``.
        additional_context: any further data for the judge (Mastra ``additionalContext``), or
            ``None``.
    """

    input: Any = field(default=None, metadata=_MESSAGE)
    output: Any = field(default=None, metadata=_MESSAGE)
    ground_truth: Any = field(default=None, metadata=_MESSAGE)
    context: Sequence[str] | None = field(default=None, metadata=_PIECES)
    request_context: Any = field(default=None, metadata=_JSON)
    expected_trajectory: Any = field(default=None, metadata=_JSON)
    additional_context: Any = field(default=None, metadata=_JSON)


RECORD_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(ItemRecord))
"""The item record's field names, in declaration order."""

RESULT_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(ItemRecord) if f.metadata["in_result"]
)
"""The record's fields a :class:`~scorekit.results.ScorerRunResult` echoes."""


CELLS: Mapping[str, Cell] = MappingProxyType(
    {f.name: f.metadata["cell"] for f in fields(ItemRecord)}
)
"""Each record field → how a dataset file's cell holds it (:data:`Cell`)."""


def cell_fields(cell: Cell) -> tuple[str, ...]:
    """The record's fields a file cell holds as ``cell`` (:data:`Cell`), in order."""
    return tuple(name for name, held in CELLS.items() if held == cell)


def record_values(record: Any, names: Sequence[str] = RECORD_FIELDS) -> dict[str, Any]:
    """The values of ``names`` (default: every record field) read from ``record``'s attributes.

    Args:
        record: an :class:`ItemRecord` (or any object with those attributes, such as a
            :class:`~scorekit.results.ScorerRunResult`).
        names: the fields to read, e.g. :data:`RESULT_FIELDS`.
    """
    return {name: getattr(record, name) for name in names}


@dataclass(frozen=True)
class ScorerRun(ItemRecord):
    """The record being scored, as steps see it (``ctx.run``): an :class:`ItemRecord` and its id.

    Attributes:
        run_id: the run's id (a uuid4 string when the caller gave none; ``""`` until
            :meth:`scorekit.pipeline.Scorer.run` fills it).
    """

    run_id: str = ""


@dataclass(frozen=True)
class StepResults:
    """Results of the steps that already ran (``None`` where a step has not run or is absent)."""

    preprocess_step_result: Any = None
    analyze_step_result: Any = None
    generate_score_step_result: float | None = None


@dataclass(frozen=True)
class StepContext:
    """What each step receives.

    Attributes:
        run: the record being scored.
        results: the results of earlier steps.
        score: the score (only set for ``generate_reason``).
    """

    run: ScorerRun
    results: StepResults
    score: float | None = None


@dataclass(frozen=True)
class NotScorable:
    """Sentinel a step returns to end the run with status ``skipped`` (see :func:`not_scorable`)."""

    reason: str


def not_scorable(reason: str) -> NotScorable:
    """Return the sentinel that ends a run as ``skipped``, with ``reason`` as the result's reason.

    The results of earlier steps are kept; no score is given and no later step runs
    (Mastra ``notScorable``, current main).
    """
    return NotScorable(reason)


@dataclass(frozen=True)
class LocalResult:
    """What a prompt step's ``create_prompt`` returns to settle the step without the judge."""

    value: Any


def local_result(value: Any) -> LocalResult:
    """Return the sentinel that gives a prompt step its result without a judge call.

    ``create_prompt`` returns it when the answer is already known (e.g. an empty response has no
    claims to extract); ``value`` becomes the step's result as if the judge had returned it.
    """
    return LocalResult(value)
