"""Ids for records that have none, never equal to an id the data gives another record.

A record without an id is named by its place: its line in a JSON Lines or CSV file, its record
number in a ``.json`` array, its index label in a DataFrame, its position in an in-memory list.
That name could be an id another record gives itself (record 7 has ``"id": "2"`` and the
record on line 2 has none): the two would then collide, and resume and compare, which match
items by id, would mix them up. So before the first generated id is handed out, the data is
read once more for the ids it gives (:func:`jsonl_given_ids`, :func:`delimited_given_ids`, or
the caller's list), and a place name that is given elsewhere becomes ``line 2`` (``record 2``,
``row 2``, ``item 2`` by the kind of place; then ``line 2'``, ``line 2''`` ... while that too
is given). Data in which no given id looks like a
place name (the usual case: every record has an id, or none has) keeps the plain place names,
as runs stored before this rule named them.

Only given ids that could equal a generated one are kept (digits, or a place noun and digits),
so the extra pass over a file holds a few ids, not the data's.

Ground floor: the standard library only.

Example:
    >>> names = GeneratedIds(lambda: {"2", "line 2"})
    >>> names(1), names(2)
    ('1', "line 2'")
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = ["GeneratedIds", "delimited_given_ids", "given_in", "jsonl_given_ids", "place_like"]

_PLACE_LIKE = re.compile(r"(?:(?:line|record|row|item) )?-?\d+'*")


def place_like(value: Any) -> str | None:
    """The id text of a given id that a generated id could equal, else ``None``.

    Ids are given as strings or integers (booleans are not ids); only those that read as a
    place name (``"12"``, ``12``, ``"line 12'"``) are returned.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    text = str(value)
    return text if _PLACE_LIKE.fullmatch(text) else None


class GeneratedIds:
    """Hands out the id of a record that has none (see the module).

    Args:
        given: reads the ids the data gives that a generated id could equal
            (:func:`place_like`); called once, when the first id is generated.
        noun: what a place is (``line``, ``record``, ``row``, ``item``): the prefix of a
            place name that is given elsewhere.
    """

    def __init__(self, given: Callable[[], set[str]], noun: str = "line") -> None:
        self._read = given
        self._noun = noun
        self._given: set[str] | None = None

    def __call__(self, place: int | str) -> str:
        """The id of the record at ``place`` (a line, record number or index label)."""
        if self._given is None:
            self._given = self._read()
        name = str(place)
        if name not in self._given:
            return name
        name = f"{self._noun} {place}"
        while name in self._given:
            name += "'"
        return name


def given_in(values: Iterable[Any]) -> set[str]:
    """The place-like ids among ``values`` (:func:`place_like`)."""
    return {text for value in values if (text := place_like(value)) is not None}


def jsonl_given_ids(path: Path, field: str) -> set[str]:
    """The place-like ids that the JSON Lines file at ``path`` gives in ``field``.

    A line is parsed only when the field's name appears in it as JSON writes it; a line that
    is not a JSON object is passed over (the reading pass reports it).
    """
    key = json.dumps(field)
    found: list[Any] = []
    with path.open(encoding="utf-8-sig", errors="surrogateescape") as handle:
        for text in handle:
            if key not in text:
                continue
            try:
                record = json.loads(text)
            except ValueError:
                continue
            if isinstance(record, dict):
                found.append(record.get(field))
    return given_in(found)


def delimited_given_ids(
    path: Path, field: str, *, delimiter: str, header: bool, quoting: bool
) -> set[str]:
    """The place-like ids that the CSV/TSV file at ``path`` gives in column ``field``.

    With a header the column is found by name, else ``field`` is its 0-based number; a file
    without such a column gives none.
    """
    with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        reader = csv.reader(
            handle, delimiter=delimiter, quoting=csv.QUOTE_MINIMAL if quoting else csv.QUOTE_NONE
        )
        if header:
            names = next(reader, None) or []
            if field not in names:
                return set()
            column = names.index(field)
        elif field.isdigit():
            column = int(field)
        else:
            return set()
        return given_in(row[column] for row in reader if len(row) > column)
