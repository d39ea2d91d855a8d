"""``RunLog``: the per-item bookkeeping of a command-line run.

It writes one JSON line per (item, scorer) to the ``--out`` file (:func:`out_row`), collects
the problems to report at the end (unreadable records, failed results, labels that are not
numbers, repeated ids), and the (score, label) pairs of ``--correlate``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape

from scorekit.items import EvalItem
from scorekit.results import ScorerRunResult
from scorekit.store.stored_text import capped

__all__ = ["RunLog", "out_row"]

_SHOWN_ERRORS = 10  # failed results listed one by one; the rest are counted
_SHOWN_UNREADABLE = 20  # unreadable records listed one by one


def _label(item: EvalItem, column: str) -> float | None:
    value = item.metadata.get(column)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def out_row(run_id: str | None, item: EvalItem, result: ScorerRunResult) -> dict[str, Any]:
    """One ``--out`` line: the run, the item and one scorer's result, as the store keeps them.

    Keys: ``run_id`` (the run's id: the stored run's, unless ``--no-store``), ``item_id``,
    ``scorer_id``, ``scorer_run_id`` (this scorer run's own id), then the result's fields
    (``status``, ``score``, ``reason``, step results, prompts, ``error``, ``judge_usage``,
    ``duration_s``, the input, output and ground truth it saw), and the item's ``context`` and
    ``metadata``; ``expected_trajectory`` and ``additional_context`` are the item's when it
    has them. Texts are capped as the store caps them (:mod:`scorekit.store.stored_text`).
    """
    data = result.to_dict()
    row: dict[str, Any] = {
        "run_id": run_id,
        "item_id": item.id,
        "scorer_id": data.pop("scorer_id"),
        "scorer_run_id": data.pop("run_id"),
        **data,
        "context": list(item.context) if item.context is not None else None,
        "metadata": dict(item.metadata),
    }
    for name in ("expected_trajectory", "additional_context"):
        value = getattr(item, name)
        if value is not None:
            row[name] = value
    capped_row: dict[str, Any] = capped(row)
    return {**capped_row, "item_id": item.id}  # an id is never cut: it must match the store's


class RunLog:
    """Per-item bookkeeping of one ``scorekit run``; call it as ``on_item_complete``.

    Args:
        scorer_ids: the run's scorers.
        correlate: the metadata field holding each item's human label, or ``None``.
        sink: the open ``--out`` file, or ``None``.
        run_id: the run's id, written in every ``--out`` line.
    """

    def __init__(
        self,
        scorer_ids: Sequence[str],
        correlate: str | None,
        sink: TextIO | None,
        *,
        run_id: str | None = None,
    ):
        self.run_id = run_id
        self.correlate = correlate
        self.sink = sink
        self.pairs: dict[str, list[tuple[float, float]]] = {sid: [] for sid in scorer_ids}
        """Scorer id → (score, label) of each ``ok`` result with a numeric label."""
        self.load_errors: list[str] = []
        self.result_errors: list[str] = []
        self.result_error_count = 0
        self.bad_labels: list[str] = []
        self.seen_ids: set[str] = set()
        self.duplicate_ids: list[str] = []

    def __call__(self, item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        """Log one finished item.

        Raises:
            OSError: the ``--out`` file cannot be written.
        """
        if item.id in self.seen_ids:
            self.duplicate_ids.append(item.id)
        self.seen_ids.add(item.id)
        if item.load_error is not None:
            self.load_errors.append(item.load_error)
        label = None
        if self.correlate and item.load_error is None:
            label = _label(item, self.correlate)
            if label is None:
                where = item.metadata.get("line", item.id)
                self.bad_labels.append(f"line {where}: {item.metadata.get(self.correlate)!r}")
        if self.sink is not None:
            # written through per item: a full disk fails the run while it is recorded (the
            # stored run then ends failed), not at the last flush after it was stored finished
            self._write_rows(item, results)
        for scorer_id, result in results.items():
            if result.status == "error" and item.load_error is None:
                self.result_error_count += 1
                if len(self.result_errors) < _SHOWN_ERRORS and result.error is not None:
                    step = f" in {result.error.step}" if result.error.step else ""
                    self.result_errors.append(
                        f"item {item.id!r}, {scorer_id}{step}: {result.error.message}"
                    )
            if label is not None and result.status == "ok" and result.score is not None:
                self.pairs[scorer_id].append((result.score, label))

    def _write_rows(self, item: EvalItem, results: dict[str, ScorerRunResult]) -> None:
        assert self.sink is not None
        for result in results.values():
            record = out_row(self.run_id, item, result)
            self.sink.write(json.dumps(record, ensure_ascii=False, default=repr) + "\n")
        self.sink.flush()

    def report(self, err: Console) -> None:
        """Print the problems seen, on ``err``."""
        for message in self.load_errors[:_SHOWN_UNREADABLE]:
            err.print(f"[yellow]unreadable record:[/yellow] {escape(message)}")
        if len(self.load_errors) > _SHOWN_UNREADABLE:
            more = len(self.load_errors) - _SHOWN_UNREADABLE
            err.print(f"[yellow]… and {more} more unreadable records")
        for message in self.result_errors:
            err.print(f"[yellow]error:[/yellow] {escape(message)}")
        if self.result_error_count > len(self.result_errors):
            more = self.result_error_count - len(self.result_errors)
            where = " (see --out)" if self.sink is not None else ""
            err.print(f"[yellow]… and {more} more failed results{where}")
        if self.bad_labels:
            err.print(
                f"[yellow]{len(self.bad_labels)} records have a {self.correlate!r} label that "
                f"is not a finite number and are left out of the correlation; first: "
                f"{escape(self.bad_labels[0])}"
            )
        if self.duplicate_ids:
            err.print(
                f"[yellow]{len(self.duplicate_ids)} records repeat an earlier id; first: "
                f"{escape(self.duplicate_ids[0])!r}"
            )
