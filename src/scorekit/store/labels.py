"""Human labels of a stored run's (item, scorer) pairs: appended, never overwritten.

A label is a person's judgement of one item for one scorer: 0 or 1, or graded in ``[0, 1]``
(:func:`scorekit.items.check_label`). Labels come with a run's dataset (``human_labels`` on an
item, written by the run's writer with source ``"dataset"``), from a file added later
(``scorekit label``, source ``"file"``), from Python (:func:`add_labels`, ``"api"``) or from
the viewer (``"viewer"``). Every change is a new row of the ``labels`` table; the latest row of
a pair is its label (:func:`current_labels`), the earlier ones its history
(:func:`label_history`). Labels never touch the ``results`` table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from sqlalchemy import func, inspect, select
from sqlalchemy.exc import SQLAlchemyError

from scorekit.errors import ConfigError, StoreError
from scorekit.items import ItemResult, check_label
from scorekit.store.engines import Database
from scorekit.store.store import Store
from scorekit.store.tables import labels, results

__all__ = [
    "LABEL_SOURCES",
    "NOTE_CHARS",
    "HumanLabel",
    "LabelSource",
    "add_labels",
    "current_labels",
    "has_labels",
    "known_items",
    "label_history",
    "label_rows",
    "write_labels",
]

LabelSource = Literal["dataset", "file", "api", "viewer"]
"""Where a label came from."""

LABEL_SOURCES: tuple[LabelSource, ...] = ("dataset", "file", "api", "viewer")

NOTE_CHARS = 10_000
"""The longest note kept (a longer one is refused)."""


@dataclass(frozen=True)
class HumanLabel:
    """One person's label of one item for one scorer.

    Attributes:
        item_id: the item's id in the run.
        scorer_id: the scorer's id in the run.
        label: 0 or 1, or graded in ``[0, 1]``.
        note: why, in the labeller's words, or ``None``.
        author: who set it, or ``None``.
        source: where it came from (:data:`LabelSource`); set by the store on writing.
        created_at: when it was stored (UTC); set by the store on writing.
    """

    item_id: str
    scorer_id: str
    label: float
    note: str | None = None
    author: str | None = None
    source: LabelSource = "api"
    created_at: datetime | None = None


def label_rows(run_id: str, outcome: ItemResult, created_at: datetime) -> list[dict[str, Any]]:
    """The ``labels`` rows of an item's own human labels (keyed by scorer id), source dataset."""
    return [
        {
            "run_id": run_id,
            "item_id": outcome.item.id,
            "scorer_id": scorer_id,
            "label": label,
            "note": None,
            "author": None,
            "source": "dataset",
            "created_at": created_at,
        }
        for scorer_id, label in outcome.item.human_labels.items()
    ]


def _checked(given: HumanLabel, items: set[str], scorers: Sequence[str], where: str) -> HumanLabel:
    if given.item_id not in items:
        raise ConfigError(f"{where}: the run has no item {given.item_id!r}", field="item_id")
    if given.scorer_id not in scorers:
        raise ConfigError(
            f"{where}: {given.scorer_id!r} is not a scorer of the run; scorers: "
            f"{', '.join(scorers)}",
            field="scorer_id",
        )
    note = given.note
    if note is not None and (not isinstance(note, str) or len(note) > NOTE_CHARS):
        raise ConfigError(
            f"{where}: a note is text of at most {NOTE_CHARS} characters", field="note"
        )
    if given.author is not None and not isinstance(given.author, str):
        raise ConfigError(f"{where}: the author is a name (text)", field="author")
    label = check_label(given.label, f"{where}: label")
    return HumanLabel(given.item_id, given.scorer_id, label, given.note, given.author)


def add_labels(
    store: Store,
    run: str,
    given: Iterable[HumanLabel],
    *,
    source: LabelSource = "api",
) -> int:
    """Append human labels to a stored run, all or none.

    Args:
        store: the results database.
        run: the run (id, prefix, name or ``"latest"``).
        given: the labels; their ``item_id`` and ``scorer_id`` must be the run's (a registry
            name is resolved by the caller: ``scorekit label`` does).
        source: where they come from (:data:`LabelSource`).

    Returns:
        How many labels were written.

    Raises:
        ConfigError: a label names an item or scorer the run does not have, is not a number
            in ``[0, 1]``, or has a note that is not text of at most :data:`NOTE_CHARS`
            characters; the message names the label's position and ``field`` the field.
            Nothing is written then.
        StoreError: no such run, or the write failed (nothing is written).
    """
    if source not in LABEL_SOURCES:
        raise ConfigError(f"source must be one of {', '.join(LABEL_SOURCES)}", field="source")
    record = store.get_run(run)
    scorers = [s["id"] for s in record.scorers]
    given = list(given)
    items = known_items(store, record.id, {label.item_id for label in given})
    checked = [
        _checked(label, items, scorers, f"label {position}") for position, label in enumerate(given)
    ]
    now = datetime.now(timezone.utc)
    rows = [
        {
            "run_id": record.id,
            "item_id": label.item_id,
            "scorer_id": label.scorer_id,
            "label": label.label,
            "note": label.note,
            "author": label.author,
            "source": source,
            "created_at": now,
        }
        for label in checked
    ]
    write_labels(store, rows)
    return len(rows)


def write_labels(store: Database, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``labels`` rows in one transaction (the run writer's and :func:`add_labels`'s).

    Raises:
        StoreError: the write failed; none of the rows is stored.
    """
    store.insert(labels, rows, what="labels")


def known_items(store: Store, run_id: str, wanted: set[str]) -> set[str]:
    """Which of ``wanted`` (item ids) are items of the run, read by the run-item index.

    Raises:
        StoreError: the read failed.
    """
    names = sorted(str(item) for item in wanted)
    found: set[str] = set()
    try:
        with store.engine.connect() as conn:
            for start in range(0, len(names), 500):
                query = (
                    select(results.c.item_id)
                    .where(
                        results.c.run_id == run_id,
                        results.c.item_id.in_(names[start : start + 500]),
                    )
                    .distinct()
                )
                found.update(row[0] for row in conn.execute(query))
            return found
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the run's items: {exc}", run_id=run_id) from exc


def _has_labels_table(store: Database) -> bool:
    return bool(inspect(store.engine).has_table(labels.name))


def has_labels(store: Database, run_id: str) -> bool:
    """Whether any human label is stored for the run (one indexed look-up).

    Raises:
        StoreError: the read failed.
    """
    if not _has_labels_table(store):
        return False
    try:
        with store.engine.connect() as conn:
            found = conn.execute(select(labels.c.id).where(labels.c.run_id == run_id).limit(1))
            return found.first() is not None
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read labels: {exc}", run_id=run_id) from exc


def _label(row: Any) -> HumanLabel:
    return HumanLabel(
        item_id=row.item_id,
        scorer_id=row.scorer_id,
        label=float(row.label),
        note=row.note,
        author=row.author,
        source=row.source,
        created_at=row.created_at,
    )


def current_labels(
    store: Database, run_id: str, *, scorer_id: str | None = None, item_id: str | None = None
) -> dict[tuple[str, str], HumanLabel]:
    """Each labelled (item, scorer) pair of a run → its latest label.

    Args:
        store: the results database (a :class:`~scorekit.store.Store`, or the viewer's
            read-only one).
        run_id: the run's id (resolve a reference with ``store.get_run`` first).
        scorer_id: only this scorer's labels, or all.
        item_id: only this item's labels, or all.

    Raises:
        StoreError: the read failed.
    """
    if not _has_labels_table(store):  # a read-only database older than labels
        return {}
    latest = (
        select(func.max(labels.c.id))
        .where(labels.c.run_id == run_id)
        .group_by(labels.c.item_id, labels.c.scorer_id)
    )
    if scorer_id is not None:
        latest = latest.where(labels.c.scorer_id == scorer_id)
    if item_id is not None:
        latest = latest.where(labels.c.item_id == item_id)
    try:
        with store.engine.connect() as conn:
            rows = conn.execute(select(labels).where(labels.c.id.in_(latest)).order_by(labels.c.id))
            return {(row.item_id, row.scorer_id): _label(row) for row in rows}
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read labels: {exc}", run_id=run_id) from exc


def label_history(store: Database, run_id: str, item_id: str, scorer_id: str) -> list[HumanLabel]:
    """Every label ever set on one (item, scorer) pair of a run, oldest first.

    Raises:
        StoreError: the read failed.
    """
    if not _has_labels_table(store):
        return []
    query = (
        select(labels)
        .where(
            labels.c.run_id == run_id,
            labels.c.item_id == item_id,
            labels.c.scorer_id == scorer_id,
        )
        .order_by(labels.c.id)
    )
    try:
        with store.engine.connect() as conn:
            return [_label(row) for row in conn.execute(query)]
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read labels: {exc}", run_id=run_id) from exc
