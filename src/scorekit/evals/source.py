"""The data source of a run: any iterable or async iterable of items, read lazily, once.

Entries become :class:`~scorekit.items.EvalItem` records (an unreadable entry becomes an error
item, never a stopped run); an id seen before in the run becomes an error item under
``<id>#<n>`` naming where both were read, since resume and compare match items by id (the ids
read are kept as digests with where each was first read,
:class:`~scorekit.evals.seen_ids.SeenIds`, 36 to 72 bytes each). An entry without an id is
named by its position, unless the data gives that name to another entry
(:mod:`scorekit.datasets.generated_ids`: a list is read for its ids first; an iterator cannot
be, so a generated name already taken gets a ``'`` added, and an id given after the same name
was generated is an error item saying so). When the caller's iterable itself raises, reading
stops, the error is kept in :attr:`ItemSource.error`, and the run ends after the items already
read.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from scorekit.datasets.generated_ids import GeneratedIds, given_in
from scorekit.errors import ConfigError
from scorekit.evals.seen_ids import SeenIds
from scorekit.items import EvalItem, is_no_id, load_item
from scorekit.store.stored_text import text_sha256

__all__ = ["ItemSource"]


class ItemSource:
    """The items of one run, read lazily from ``data`` (single use).

    Args:
        data: an iterable or async iterable of entries (mappings or ``EvalItem`` objects), or
            a pandas DataFrame, read row by row with the column mapping of dataset files
            (:func:`scorekit.datasets.frames.frame_items`; a missing cell is a missing field).
        require_output: a DataFrame must have an ``output`` column; off when a target makes
            the outputs (its rows then need the ``input`` column instead), as for files.
        label_keys: turns an item's ``human_labels`` keys (scorer ids or registry names) into
            the run's scorer ids, raising :class:`ConfigError` for a key that names none; an
            item whose labels it refuses becomes an error item naming the key.

    Raises:
        ConfigError: ``data`` is a string, bytes, a mapping or not iterable at all
            (``field="data"``); a DataFrame lacks a column the mapping requires.

    Attributes:
        error: the exception the caller's iterable raised, when it did (reading then stopped).
        read: entries read so far.
    """

    def __init__(
        self,
        data: Iterable[Any] | AsyncIterator[Any],
        *,
        require_output: bool = True,
        label_keys: Callable[[Mapping[str, float]], dict[str, float]] | None = None,
    ) -> None:
        pandas = sys.modules.get("pandas")  # a DataFrame iterates its column names: its rows
        if pandas is not None and isinstance(data, pandas.DataFrame):
            from scorekit.datasets.files import FieldMap
            from scorekit.datasets.frames import frame_items

            data = frame_items(data, fields=FieldMap(output_required=require_output))
        if isinstance(data, (str, bytes, Mapping)):
            raise ConfigError(
                f"data must be an iterable of items, not a single {type(data).__name__}",
                field="data",
            )
        if not hasattr(data, "__aiter__") and not hasattr(data, "__iter__"):
            raise ConfigError(
                f"data must be an iterable of items, not {type(data).__name__}", field="data"
            )
        self._data = data
        self._label_keys = label_keys
        self._seen = SeenIds()
        self._ids = GeneratedIds(_given_ids(data), "item")
        self.error: Exception | None = None
        self.read = 0

    def _unique(self, item: EvalItem, position: int, generated: bool) -> EvalItem:
        """Return ``item``, or, when its id was seen before in this run, an error item.

        A generated id seen before is renamed instead (it is ours). Places are kept as
        ``±(number + 1)``: the line of a file's record or the entry's position, negative for a
        generated id.
        """
        number = item.origin.number if item.origin is not None else position
        if len(item.id) > MAX_ID_CHARS:
            item = _long_id(item, _where(item, number))
        count = self._seen.add(item.id, -(number + 1) if generated else number + 1)
        if count == 1:
            return item
        if generated:
            renamed = self._unseen(item.id + "'")
            self._seen.add(renamed, -(number + 1))
            return replace(item, id=renamed)
        first = self._seen.place(item.id)
        here, there = _where(item, number), _where(item, abs(first) - 1)
        renamed = self._unseen(f"{item.id}#{count}")
        self._seen.add(renamed)
        why = (
            f"{here}: item id {item.id!r} is the name given to {there}, which has no id (an "
            "iterator cannot be read ahead for the ids it gives): give every entry an id, or none"
            if first < 0
            else f"{here}: duplicate item id {item.id!r}, first at {there} (occurrence {count}); "
            "ids must be unique within a run, since resume and compare match items by id"
        )
        return EvalItem(
            id=renamed,
            input=item.input,
            ground_truth=item.ground_truth,
            metadata=item.metadata,
            origin=item.origin,
            load_error=why,
        )

    def _unseen(self, name: str) -> str:
        """``name``, with a ``'`` added while the run has read an id of that name."""
        while name in self._seen:
            name += "'"
        return name

    async def _entries(self) -> AsyncIterator[Any]:
        if hasattr(self._data, "__aiter__"):
            async for value in self._data:
                yield value
        else:
            for value in self._data:
                yield value

    async def __aiter__(self) -> AsyncIterator[EvalItem]:
        entries = self._entries()
        while True:
            try:
                value = await entries.__anext__()
            except StopAsyncIteration:
                return
            except Exception as exc:  # the caller's data source broke: stop reading
                self.error = exc
                return
            position = self.read
            self.read += 1
            generated = isinstance(value, Mapping) and is_no_id(value.get("id"))
            if generated:
                value = {**value, "id": self._ids(position)}
            yield self._labelled(self._unique(load_item(value, position), position, generated))

    def _labelled(self, item: EvalItem) -> EvalItem:
        """``item`` with its human labels keyed by scorer id, or an error item naming the key."""
        if not item.human_labels or self._label_keys is None or item.load_error is not None:
            return item
        try:
            return replace(item, human_labels=self._label_keys(item.human_labels))
        except ConfigError as exc:
            return EvalItem(
                id=item.id,
                input=item.input,
                ground_truth=item.ground_truth,
                metadata=item.metadata,
                load_error=f"item {item.id!r}: {exc}",
            )


MAX_ID_CHARS = 1_000
"""Characters an item id may hold; a longer one makes the item an error under a short id."""


def _long_id(item: EvalItem, where: str) -> EvalItem:
    """The error item of an id over :data:`MAX_ID_CHARS`: named by its start and SHA-256."""
    digest = text_sha256(item.id)
    return EvalItem(
        id=f"{item.id[:100]}…#{digest[:16]}",
        origin=item.origin,
        load_error=f"{where}: the item id holds {len(item.id):,} characters, over the "
        f"{MAX_ID_CHARS:,} an id may hold; this item is named by its first 100 characters "
        f"and its SHA-256 ({digest})",
    )


def _where(item: EvalItem, number: int) -> str:
    """Where the entry at ``number`` (a line of ``item``'s file, or a position) was read."""
    return item.origin.at(number) if item.origin is not None else f"item {number}"


def _given_ids(data: Any) -> Callable[[], set[str]]:
    """Reads the ids an in-memory list of entries gives; an iterator is not read ahead."""
    if not isinstance(data, (list, tuple)):
        return set
    return lambda: given_in(
        entry.id if isinstance(entry, EvalItem) else entry.get("id")
        for entry in data
        if isinstance(entry, (EvalItem, Mapping))
    )
