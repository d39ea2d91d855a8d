"""The per-item record: ``EvalItem`` (what is scored), ``ItemResult`` (what came of it).

Ground floor: imports nothing of ours but :mod:`scorekit.errors`, :mod:`scorekit.results` and
:mod:`scorekit.steps` (the item record's declaration, :class:`~scorekit.steps.ItemRecord`).
Every source of items (a dataset file, a DataFrame, an iterable, a live call, a trace) becomes
an :class:`EvalItem`; every executor hands back an :class:`ItemResult`; the store builds its
rows from the two (architecture.md, "Data flows one way").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scorekit.errors import ConfigError, JudgeBudgetError
from scorekit.results import RunError, ScorerRunResult
from scorekit.steps import RECORD_FIELDS, ItemRecord, ScorerRun, record_values

__all__ = [
    "ITEM_FIELDS",
    "EvalItem",
    "ItemResult",
    "Origin",
    "Target",
    "check_label",
    "is_no_id",
    "load_item",
]

Target = Callable[..., Any]
"""The application under test: ``target(input)`` or ``target(input, request_context)``, sync or
async, returning the output (a string, messages, or a dict with ``output`` and optional
``context``)."""

ITEM_FIELDS = frozenset({"id", *RECORD_FIELDS, "human_labels", "metadata", "trace"})
"""The keys a dataset entry given as a mapping may have: the id, the item record's fields
(:data:`~scorekit.steps.RECORD_FIELDS`), human labels, metadata and the trace."""


_WORDS = {"true": 1.0, "false": 0.0}
"""Label words a CSV cell may hold (as JSON's ``true`` and ``false`` are read)."""


def check_label(value: Any, where: str) -> float:
    """A human label as a number: 0 or 1 (``True``/``False`` too), or graded in ``[0, 1]``.

    A text holding such a number, or ``true``/``false`` (a CSV cell), is read as that.

    Args:
        value: the label.
        where: what the error names (``"item 3: human_labels.faithfulness"``).

    Raises:
        ConfigError: the label is not a number, not finite, or outside ``[0, 1]``
            (``field="human_labels"``), naming ``where``.
    """
    number = math.nan
    try:
        if isinstance(value, (bool, int, float)):  # bool: True is 1
            number = float(value)
        elif isinstance(value, str):  # a CSV cell: a number, or true / false
            text = value.strip().lower()
            number = _WORDS[text] if text in _WORDS else float(text)
    except (ValueError, OverflowError):  # not a number, or an integer past float's range
        number = math.nan
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ConfigError(
            f"{where}: a human label must be a number in [0, 1] (0 or 1, or graded), not "
            f"{_shown(value)}",
            field="human_labels",
        )
    return number


def _shown(value: Any) -> str:
    """A refused value as the error shows it, cut to 60 characters (a huge number stays short)."""
    text = (
        repr(value) if not isinstance(value, int) or value.bit_length() < 200 else "a huge integer"
    )
    return text if len(text) <= 60 else f"{text[:57]}..."


def _labels(value: Any, position: int) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"item {position}: human_labels must map scorers to labels, not {type(value).__name__}",
            field="human_labels",
        )
    return {  # a null label is no label
        str(key): check_label(label, f"item {position}: human_labels.{key}")
        for key, label in value.items()
        if label is not None
    }


def _is_pieces(context: Any) -> bool:
    return (
        not isinstance(context, str)
        and isinstance(context, Sequence)
        and all(isinstance(piece, str) for piece in context)
    )


def _pieces(context: Any, position: int) -> Sequence[str]:
    if not _is_pieces(context):
        raise ConfigError(f"item {position}: context must be a list of strings", field="context")
    return context  # type: ignore[no-any-return]  # checked just above


def is_no_id(value: object) -> bool:
    """Whether an entry's id field gives no id: ``None`` (absent) or ``""`` (a blank cell).

    One rule for every way items arrive (dataset files, dicts given to ``run_evals``, the
    generated names of items without one): such an item gets the name of its place.
    """
    return value is None or (isinstance(value, str) and value == "")


@dataclass(frozen=True)
class Origin:
    """Where a dataset record was read, as messages name it (``data.jsonl:3``).

    Attributes:
        where: the source (``data.jsonl``; ``data.json record`` for a ``.json`` array).
        number: the record's line (or record, or row) number.
        separator: between the two (``":"``; ``" "`` gives ``data.json record 3``).
    """

    where: str
    number: int
    separator: str = ":"

    def __str__(self) -> str:
        return self.at(self.number)

    def at(self, number: int) -> str:
        """The same source at another line (or record) ``number``."""
        return f"{self.where}{self.separator}{number}"


@dataclass(frozen=True)
class EvalItem(ItemRecord):
    """One item to score: the item record with its id and what a run keeps beside it.

    The record's fields (``input``, ``output``, ``ground_truth``, ``context``, ...) are
    :class:`~scorekit.steps.ItemRecord`'s. The input is sent to the target; an item with its
    own output needs no target.

    Attributes:
        id: the item's id, unique within a run (its position, as a string, when the data
            gives none).
        has_output: whether the item carries its own output (set by itself when ``output`` is
            not ``None``; pass it for an explicit ``None`` output).
        human_labels: scorer (id or registry name) → a person's label of this item for that
            scorer (0 or 1, or graded in ``[0, 1]``; :func:`check_label`); stored beside the
            scores, never mixed with them (:mod:`scorekit.trust`).
        metadata: anything else the caller wants kept with the item (stored with its rows).
        trace: the trace the item was taken from (trace scoring), or ``None``; kept, not
            interpreted, here.
        load_error: why the item could not be read (a malformed line): it is then recorded with
            status ``error`` for every scorer and never scored.
        origin: where a dataset file gave the record (messages name it), or ``None``.
    """

    id: str
    has_output: bool = False
    human_labels: Mapping[str, float] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    trace: Any = None
    load_error: str | None = None
    origin: Origin | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str):
            raise ConfigError(
                f"an item id must be a string, not {type(self.id).__name__}", field="id"
            )
        if not isinstance(self.metadata, Mapping):
            raise ConfigError(
                f"item {self.id!r}: metadata must be a mapping, not {type(self.metadata).__name__}",
                field="metadata",
            )
        if self.output is not None and not self.has_output:
            object.__setattr__(self, "has_output", True)

    @classmethod
    def from_value(cls, value: Any, position: int, origin: Origin | None = None) -> EvalItem:
        """Build an item from a dataset entry (an ``EvalItem`` or a mapping).

        Args:
            value: an ``EvalItem`` (returned as is) or a mapping with keys from
                :data:`ITEM_FIELDS`, at least ``input`` or ``output``.
            position: the entry's 0-based position in the data, its id when it has none.
            origin: where a dataset file gave the entry.

        Raises:
            ConfigError: the entry is not a mapping, has unknown keys, lacks both ``input``
                and ``output``, its context is not a list of strings, or a human label is not
                a number in [0, 1]; the message names the item's position and ``field`` the
                offending key.
        """
        if isinstance(value, EvalItem):
            return value
        if not isinstance(value, Mapping):
            raise ConfigError(
                f"item {position}: expected a mapping with 'input', got {type(value).__name__}",
                field="data",
            )
        unknown = sorted(map(str, set(value) - ITEM_FIELDS))
        if unknown:
            raise ConfigError(
                f"item {position}: unknown field(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(ITEM_FIELDS))}",
                field=unknown[0],
            )
        if "input" not in value and "output" not in value:
            raise ConfigError(f"item {position}: needs 'input' or 'output'", field="input")
        item_id = None if is_no_id(value.get("id")) else value.get("id")
        if isinstance(item_id, bool) or not isinstance(item_id, (str, int, type(None))):
            raise ConfigError(
                f"item {position}: an id must be a string or an integer, not "
                f"{type(item_id).__name__}",
                field="id",
            )
        record = {name: value.get(name) for name in RECORD_FIELDS}
        if record["context"] is not None:
            record["context"] = _pieces(record["context"], position)
        return cls(
            id=str(item_id) if item_id is not None else str(position),
            has_output="output" in value,
            human_labels=_labels(value.get("human_labels"), position),
            metadata=value.get("metadata") or {},
            trace=value.get("trace"),
            origin=origin,
            **record,
        )

    def scorer_run(self, output: Any, run_id: str) -> ScorerRun:
        """The record a scorer scores: this item's fields, ``output`` and the run's id.

        Args:
            output: the output to score (the item's own or what the target returned).
            run_id: the scorer run's id.
        """
        return ScorerRun(**{**record_values(self), "output": output}, run_id=run_id)

    def with_context(self, context: Any) -> EvalItem:
        """Return a copy with ``context`` (what a target returned with its output).

        Raises:
            ConfigError: ``context`` is not a list of strings (``field="context"``).
        """
        if not _is_pieces(context):
            raise ConfigError(
                f"the target returned context of type {type(context).__name__}; "
                "expected a list of strings",
                field="context",
            )
        return replace(self, context=tuple(context))


def load_item(value: Any, position: int) -> EvalItem:
    """Return the item of a dataset entry; an entry that cannot be read becomes an error item.

    A malformed entry never stops a run: it is recorded as an item whose ``load_error`` says
    why (status ``error`` for every scorer).

    Args:
        value: the entry (see :meth:`EvalItem.from_value`).
        position: its 0-based position in the data.
    """
    try:
        return EvalItem.from_value(value, position)
    except ConfigError as exc:
        item_id = value.get("id") if isinstance(value, Mapping) else None
        return EvalItem(id=str(item_id if item_id is not None else position), load_error=str(exc))


@dataclass(frozen=True)
class ItemResult:
    """What happened to one item.

    Attributes:
        item: the item (with the target's context, when the target returned some).
        output: the output that was scored (the item's own or the target's), ``None`` on failure.
        target_error: why the target (or loading the item) failed, or ``None``.
        scorer_results: scorer id → result, in the run's scorer order.
        stored: ids of the scorers whose results were read back from the store (a resumed
            run), not produced now; a recorder does not write them again.
        trials: scorer id → its repeats of the item beyond the first (``run_evals(trials=k)``:
            ``k - 1`` results each, trial 1 first); empty without trials.
    """

    item: EvalItem
    output: Any
    target_error: RunError | None
    scorer_results: dict[str, ScorerRunResult]
    stored: frozenset[str] = frozenset()
    trials: dict[str, list[ScorerRunResult]] = field(default_factory=dict)

    @property
    def new_results(self) -> list[ScorerRunResult]:
        """The results produced by this run (those not in :attr:`stored`), in scorer order."""
        return [r for sid, r in self.scorer_results.items() if sid not in self.stored]

    def refused_by_budget(self) -> set[str]:
        """The scorers a judge budget refused a call of, in any trial (``JudgeBudgetError``).

        Their results on this item are half-judged: neither stored nor checked
        (:mod:`scorekit.judge.spending`).
        """
        return {
            sid
            for sid, result in self.scorer_results.items()
            if any(
                r.error is not None and r.error.type == JudgeBudgetError.__name__
                for r in (result, *self.trials.get(sid, ()))
            )
        }
