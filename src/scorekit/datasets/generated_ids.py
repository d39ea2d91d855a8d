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
        places_repeat: places may repeat (a DataFrame's index labels): names already handed
            out are avoided too (they are kept, one string per record).
    """

    def __init__(
        self, given: Callable[[], set[str]], noun: str = "line", *, places_repeat: bool = False
    ) -> None:
        self._read = given
        self._noun = noun
        self._given: set[str] | None = None
        self._handed: set[str] | None = set() if places_repeat else None

    def __call__(self, place: int | str) -> str:
        """The id of the record at ``place`` (a line, record number or index label)."""
        if self._given is None:
            self._given = self._read()
        taken = self._given if self._handed is None else self._given | self._handed
        name = str(place)
        if name in taken:
            name = f"{self._noun} {place}"
            while name in taken:
                name += "'"
        if self._handed is not None:
            self._handed.add(name)
        return name


def given_in(values: Iterable[Any]) -> set[str]:
    """The place-like ids among ``values`` (:func:`place_like`)."""
    return {text for value in values if (text := place_like(value)) is not None}


def jsonl_given_ids(path: Path, field: str) -> set[str]:
    """The place-like ids that the JSON Lines file at ``path`` gives in ``field``.

    A line is parsed only when the field's name appears in it as JSON writes it (or the line
    holds a ``\\u`` escape, which may spell it); a line that is not a JSON object, or nests too
    deep to parse, is passed over (the reading pass reports it).
    """
    keys = {json.dumps(field), json.dumps(field, ensure_ascii=False)}
    found: list[Any] = []
    with path.open(encoding="utf-8-sig", errors="surrogateescape") as handle:
        for text in handle:
            # a line that may name the field: as JSON writes it, or with escapes in it
            if "\\u" not in text and not any(key in text for key in keys):
                continue
            try:
                record = json.loads(text)
            except (ValueError, RecursionError):  # the reading pass reports the line
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
