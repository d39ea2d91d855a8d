"""Reading evaluation datasets from JSON Lines, JSON, CSV and TSV files.

A ``.jsonl`` file holds one JSON object per line and is read lazily; a ``.json`` file holds one
array of objects and is read whole; a JSON Lines file whose first record opens an array (an
array saved under ``.jsonl``) is refused once, saying so, instead of one error per line. Each
record becomes an :class:`~scorekit.items.EvalItem`. Field names are mapped with
:class:`FieldMap`; a header-less file names its columns by 0-based position (``"5"``). Files are
UTF-8, with or without a byte-order mark. A record that cannot be read (bad JSON, bytes that are
not UTF-8, a missing field, a value of the wrong shape, a short row) becomes an item with a
``load_error`` naming the file, line and field, so it is reported and counted while the other
records go on. In CSV/TSV files an empty cell means "no value".
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from scorekit.datasets.generated_ids import (
    GeneratedIds,
    delimited_given_ids,
    given_in,
    jsonl_given_ids,
)
from scorekit.errors import ConfigError
from scorekit.inputs.messages import messages_of
from scorekit.items import EvalItem, Origin, is_no_id
from scorekit.steps import CELLS, RECORD_FIELDS, cell_fields

__all__ = ["OPTIONAL_FIELDS", "FieldMap", "read_dataset", "record_item"]

Format = Literal["jsonl", "json", "csv", "tsv"]

_SUFFIXES: dict[str, Format] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "tsv",
}


OPTIONAL_FIELDS = (*(name for name in RECORD_FIELDS if name != "output"), "id")
"""The item fields a record may leave out (unless :attr:`FieldMap.required` names them): the
item record's fields (:data:`scorekit.steps.RECORD_FIELDS`) but the output, and the id."""


@dataclass(frozen=True)
class FieldMap:
    """Which record field (or, header-less, which 0-based column) holds each item field.

    One attribute per field of the item record (:class:`scorekit.steps.ItemRecord`, which says
    how a cell holds it), and the id; ``tests/test_item_record.py`` pins them together.

    Attributes:
        input: the input's field (optional in records).
        output: the output's field (required in every record).
        ground_truth: the ground truth's field (optional in records).
        id: the id's field (optional; the line number is used without it).
        context: the field of the retrieved context pieces (optional): a list of strings (in
            CSV/TSV, a cell holding a JSON list), or one string for a single piece.
        request_context: the field of per-request data for the target and the scorers
            (optional; in CSV/TSV a cell holding a JSON object or list is parsed).
        expected_trajectory: the field of the expected steps for trajectory scorers (optional;
            a trajectory ``{"steps": [...]}`` or a list of steps; JSON in CSV/TSV cells).
        additional_context: the field of further data for the judge (optional; JSON in
            CSV/TSV cells is parsed).
        extra: further fields copied into the item's ``metadata`` under their own names
            (e.g. a human label to correlate with); required in every record.
        labels: ``(scorer, field)`` pairs: the field holding a person's label of the item for
            that scorer (id or registry name), e.g. ``(("faithfulness", "supported"),)``; a
            record without the field (or with an empty cell) is unlabelled. A record's own
            ``human_labels`` object (JSON in a CSV cell) is read too.
        required: the optional fields (``"input"``, ``"ground_truth"``, ``"id"``,
            ``"context"``, ``"request_context"``, ``"expected_trajectory"``,
            ``"additional_context"``) that must be present in every record too — set it for
            fields the user named explicitly, so that a misspelt name fails instead of being
            ignored.
        output_required: whether every record must have the output field; off when a target
            produces the outputs (records then need the input field instead).
    """

    input: str = "input"
    output: str = "output"
    ground_truth: str = "ground_truth"
    id: str = "id"
    context: str = "context"
    request_context: str = "request_context"
    expected_trajectory: str = "expected_trajectory"
    additional_context: str = "additional_context"
    extra: tuple[str, ...] = field(default_factory=tuple)
    labels: tuple[tuple[str, str], ...] = ()
    required: frozenset[str] = frozenset()
    output_required: bool = True

    def __post_init__(self) -> None:
        unknown = self.required - set(OPTIONAL_FIELDS)
        if unknown:
            raise ConfigError(
                f"FieldMap.required takes {', '.join(OPTIONAL_FIELDS)}, not {sorted(unknown)}",
                field="required",
            )

    def names_required(self) -> list[str]:
        """The record field names every record must have, output first."""
        optional = [getattr(self, name) for name in OPTIONAL_FIELDS if name in self.required]
        if not self.output_required:
            return [*optional, *self.extra]
        return [self.output, *optional, *self.extra]


def _detect(path: Path, fmt: Format | None) -> Format:
    if fmt is not None:
        return fmt
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise ConfigError(
            f"{path}: cannot tell the format from the suffix {path.suffix!r}; "
            "name the file .jsonl, .json, .csv or .tsv, or give the format (--format)",
            field="format",
        )
    return found


_BAD_BYTE = re.compile("[\udc80-\udcff]")
"""What a byte that is not UTF-8 becomes when read with ``errors="surrogateescape"``."""


def _context(value: Any) -> Any:
    """A context cell: a list as is; a string holding a JSON list, parsed; else one piece."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return [value]


def _json_cell(value: Any) -> Any:
    """A CSV/TSV cell of a JSON field: a string holding an object or a list, parsed.

    Raises:
        ValueError: the cell looks like JSON (starts with ``[`` or ``{``) but is not.
    """
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not valid JSON ({exc.msg}, column {exc.colno})") from exc
    return value


def _message_cell(value: Any) -> Any:
    """Read a CSV/TSV input or output cell.

    JSON messages (a list of objects) or a JSON object (one message, a trajectory) are parsed;
    any other text, ``[1] cited`` included, is kept as text.
    """
    if not isinstance(value, str) or value.strip()[:1] not in ("[", "{"):
        return value
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        return value
    if isinstance(parsed, dict) or (
        isinstance(parsed, list) and parsed and all(isinstance(m, dict) for m in parsed)
    ):
        return parsed
    return value


def _is_trajectory(value: Any) -> bool:
    """A trajectory scorer's output: ``{"steps": [...]}`` (Mastra's ``Trajectory``)."""
    return isinstance(value, Mapping) and isinstance(value.get("steps"), list)


def _given(record: Mapping[str, Any], name: str, default: str) -> str:
    """Return the record key of a field.

    That is its configured name, or, for a field left at its default snake_case name, Mastra's
    camelCase spelling when the record uses that (``expectedTrajectory``, ``groundTruth``).
    """
    if name != default or name in record:
        return name
    camel = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)
    return camel if camel in record else name


def record_item(
    record: Mapping[str, Any],
    fields: FieldMap,
    where: str,
    line: int,
    *,
    cells: bool = False,
    separator: str = ":",
    ids: Callable[[int], str] = str,
) -> EvalItem:
    """One dataset record (a JSON object, a CSV row, a DataFrame row) as an item.

    Args:
        record: field name → value (a missing field is absent, not ``None``).
        fields: which field holds what (:class:`FieldMap`).
        where: the source named in a load error (a file path, ``"DataFrame row"``).
        line: the record's line (or row) number; the item's id when it has none.
        separator: between ``where`` and ``line`` in messages (``":"``: ``data.jsonl:3``;
            ``" "``: ``data.json record 3``).
        cells: the values are CSV cells (a message list may be written as JSON text).
        ids: the id of a record that has none, from its line
            (:class:`~scorekit.datasets.generated_ids.GeneratedIds`; the line number as is by
            default).

    Returns:
        The item; a record that cannot be read gives an item whose ``load_error`` says why,
        naming ``where``, ``line`` and the field (the run records it as that item's error).
    """
    origin = Origin(where, line, separator)
    item_id = record.get(fields.id)
    if is_no_id(item_id):
        item_id = ids(line)
    if not isinstance(item_id, (str, int)) or isinstance(item_id, bool):
        return _unread(
            ids(line),
            origin,
            f"field {fields.id!r}: an id must be a string or an integer, not "
            f"{type(item_id).__name__}",
        )
    item_id = str(item_id)
    missing = [name for name in fields.names_required() if name not in record]
    if missing:
        return _unread(item_id, origin, f"missing field {missing[0]!r}")
    values: dict[str, Any] = {"id": item_id}
    read = _message_cell if cells else (lambda value: value)
    if fields.output in record:
        values["output"] = read(record[fields.output])
    elif record.get(fields.input) is None:
        return _unread(item_id, origin, f"missing field {fields.input!r}")
    for key in RECORD_FIELDS:
        if key == "output":  # read above
            continue
        name = _given(record, getattr(fields, key), key)
        if record.get(name) is None:
            continue
        cell = CELLS[key]
        if cell == "message":
            values[key] = read(record[name])
        elif cell == "pieces":
            values[key] = _context(record[name])
        else:
            try:
                values[key] = _json_cell(record[name]) if cells else record[name]
            except ValueError as exc:
                return _unread(item_id, origin, f"field {name!r}: {exc}")
    for key in cell_fields("message"):
        if key not in values or (key == "output" and _is_trajectory(values[key])):
            continue
        try:
            messages_of(values.get(key), field=key)
        except ConfigError as exc:
            name = getattr(fields, key)
            return _unread(item_id, origin, f"field {name!r}: {exc}")
    labels = record.get("human_labels")
    if isinstance(labels, str) and not labels.strip():  # an empty CSV cell: no labels
        labels = None
    if cells and labels is not None:
        try:
            labels = _json_cell(labels)
        except ValueError as exc:
            return _unread(item_id, origin, f"field 'human_labels': {exc}")
    if labels is not None and not isinstance(labels, Mapping):
        return _unread(
            item_id,
            origin,
            "field 'human_labels': must map scorers to labels, as {\"faithfulness\": 1}",
        )
    labels = dict(labels) if labels is not None else None
    for scorer, name in fields.labels:
        if record.get(name) not in (None, ""):
            labels = {**(labels or {}), scorer: record[name]}
    if labels is not None:
        values["human_labels"] = labels
    values["metadata"] = {"line": line, **{name: record[name] for name in fields.extra}}
    try:
        return EvalItem.from_value(values, line, origin)
    except ConfigError as exc:
        return _unread(item_id, origin, str(exc))


def _array_instead(path: Path, text: str) -> ConfigError | None:
    """The error for a JSON Lines file whose first record opens a JSON array, or ``None``."""
    if not text.lstrip().startswith("["):
        return None
    return ConfigError(
        f"{path}: the file holds a JSON array, not JSON Lines (one object per line): name it "
        ".json, or give the format json (--format json), to read the array's objects",
        field="format",
    )


def _check_first(path: Path, fields: FieldMap, record: Mapping[str, Any], where: str) -> None:
    """Refuse a first record without a field the user named (a misspelt name, say).

    Like a CSV header: the run stops before any scoring.
    """
    named = [getattr(fields, name) for name in sorted(fields.required)]
    absent = [name for name in named if name not in record]
    if absent:
        raise ConfigError(
            f"{where}: no field {absent[0]!r} in the first record "
            f"(fields: {', '.join(map(str, record))})",
            field=absent[0],
        )


def _json_array(path: Path, fields: FieldMap) -> Iterator[EvalItem]:
    """The objects of a JSON file holding one array (read whole); record N is its N-th object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 ({exc.reason})", field="data") from exc
    except json.JSONDecodeError as exc:
        hint = (
            " (one object per line is JSON Lines: name it .jsonl)"
            if exc.msg == "Extra data"
            else ""
        )
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}){hint}",
            field="data",
        ) from exc
    if not isinstance(data, list):
        kind = "null" if data is None else "an object" if isinstance(data, dict) else "a value"
        raise ConfigError(
            f"{path}: a .json dataset holds one array of objects, not {kind}"
            f"{' (JSON Lines? name it .jsonl)' if isinstance(data, dict) else ''}",
            field="data",
        )
    where = f"{path} record"
    ids = GeneratedIds(
        lambda: given_in(record.get(fields.id) for record in data if isinstance(record, dict)),
        "record",
    )
    for number, record in enumerate(data, start=1):
        if not isinstance(record, dict):
            yield _unread(ids(number), Origin(where, number, " "), "expected a JSON object")
            continue
        if number == 1:
            _check_first(path, fields, record, f"{where} 1")
        yield record_item(record, fields, where, number, separator=" ", ids=ids)


def _unread(item_id: str, origin: Origin, why: str) -> EvalItem:
    """The error item of a record that cannot be read: ``origin`` and ``why`` name it."""
    return EvalItem(id=item_id, origin=origin, load_error=f"{origin}: {why}")


def _jsonl(path: Path, fields: FieldMap) -> Iterator[EvalItem]:
    checked = False
    ids = GeneratedIds(lambda: jsonl_given_ids(path, fields.id))
    with path.open(encoding="utf-8-sig", errors="surrogateescape") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            if not checked and (array := _array_instead(path, text)) is not None:
                raise array
            if _BAD_BYTE.search(text):
                yield _unread(ids(line), Origin(str(path), line), "not valid UTF-8")
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                yield _unread(ids(line), Origin(str(path), line), f"invalid JSON ({exc.msg})")
                continue
            except RecursionError:
                yield _unread(ids(line), Origin(str(path), line), "JSON nested too deep to read")
                continue
            if not isinstance(record, dict):
                yield _unread(ids(line), Origin(str(path), line), "expected a JSON object per line")
                continue
            if not checked:
                checked = True
                _check_first(path, fields, record, f"{path}:{line}")
            yield record_item(record, fields, str(path), line, ids=ids)


_OTHER_DELIMITERS = (";", "\t", "|", ",")


def _delimiter_hint(names: Sequence[str], delimiter: str) -> str:
    """A hint when a header read as one column splits at another common delimiter."""
    if len(names) != 1:
        return ""
    for other in _OTHER_DELIMITERS:
        if other != delimiter and other in names[0]:
            shown = "\\t" if other == "\t" else other
            return f"; the header splits at '{shown}': give --delimiter '{shown}'"
    return ""


def _delimited(
    path: Path, fields: FieldMap, delimiter: str, header: bool, quoting: bool
) -> Iterator[EvalItem]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        reader = csv.reader(
            handle, delimiter=delimiter, quoting=csv.QUOTE_MINIMAL if quoting else csv.QUOTE_NONE
        )
        names: Sequence[str] | None = None
        if header:
            names = next(reader, None)
            if names is None:
                return
            if any(_BAD_BYTE.search(name) for name in names):
                raise ConfigError(f"{path}: the header is not valid UTF-8", field="data")
            doubled = sorted({name for name in names if names.count(name) > 1})
            if doubled:
                raise ConfigError(
                    f"{path}: the header names column {doubled[0]!r} more than once",
                    field=doubled[0],
                )
            # a label column named for a scorer must exist too (its cells may be empty)
            named = [*fields.names_required(), *(column for _, column in fields.labels)]
            absent = [name for name in named if name not in names]
            if absent:
                raise ConfigError(
                    f"{path}: no column {absent[0]!r} in the header ({', '.join(names)})"
                    f"{_delimiter_hint(names, delimiter)}",
                    field=absent[0],
                )
        ids = GeneratedIds(
            lambda: delimited_given_ids(
                path, fields.id, delimiter=delimiter, header=header, quoting=quoting
            )
        )
        line = reader.line_num + 1
        for row in reader:
            start, line = line, reader.line_num + 1  # a quoted cell may span several lines
            if not row or all(not cell.strip() for cell in row):
                continue
            if any(_BAD_BYTE.search(cell) for cell in row):
                yield _unread(ids(start), Origin(str(path), start), "not valid UTF-8")
                continue
            if names is not None:
                if len(row) != len(names):
                    yield _unread(
                        ids(start),
                        Origin(str(path), start),
                        f"{len(row)} columns, the header has {len(names)}",
                    )
                    continue
                cells: Iterable[tuple[str, str]] = zip(names, row, strict=True)
            else:
                cells = ((str(index), cell) for index, cell in enumerate(row))
            # an empty cell is "no value"; absent optional fields are then left out
            record: dict[str, Any] = {name: (cell if cell != "" else None) for name, cell in cells}
            yield record_item(record, fields, str(path), start, cells=True, ids=ids)


def read_dataset(
    path: str | Path,
    *,
    fields: FieldMap | None = None,
    format: Format | None = None,
    header: bool = True,
    quoting: bool = True,
    delimiter: str | None = None,
    require_output: bool = True,
) -> Iterator[EvalItem]:
    """Read a dataset file lazily, one item per record.

    Args:
        path: a ``.jsonl``/``.ndjson`` (one JSON object per line), ``.json`` (one array of
            objects, read whole), ``.csv`` or ``.tsv`` file (UTF-8).
        fields: the field mapping; defaults to ``input``/``output``/``ground_truth``/``id``.
        format: overrides the format the suffix implies.
        header: CSV/TSV: the first row names the columns. Without it, fields are 0-based
            column numbers (``FieldMap(output="6")``).
        quoting: CSV/TSV: honour quote characters; turn off for quote-free files whose text
            contains bare quotes (STS-B).
        delimiter: CSV/TSV: overrides ``,`` (csv) or tab (tsv).
        require_output: every record must have the output field. Turn off when a target
            produces the outputs: records then need the input field instead.

    Yields:
        Items; a record that cannot be read yields an item whose ``load_error`` names the file,
        line and field.

    Raises:
        ConfigError: the file does not exist or is a directory, its format is unknown, the
            delimiter is not one character, or (with a header) a required column is absent, a
            column name is doubled or the header is not UTF-8.
    """
    source = Path(path)
    if source.is_dir():
        raise ConfigError(f"{source}: is a directory, not a dataset file", field="data")
    if not source.is_file():
        raise ConfigError(f"{source}: no such file", field="data")
    fields = fields or FieldMap()
    if not require_output:
        fields = replace(fields, output_required=False)
    kind = _detect(source, format)
    if delimiter == "\\t":  # as a shell passes '\t': the tab the hint names
        delimiter = "\t"
    if delimiter is not None and len(delimiter) != 1:
        raise ConfigError(
            f"the delimiter must be one character, got {delimiter!r}", field="delimiter"
        )
    if kind == "jsonl":
        generator = _jsonl(source, fields)
    elif kind == "json":
        generator = _json_array(source, fields)
    else:
        separator = delimiter or ("\t" if kind == "tsv" else ",")
        generator = _delimited(source, fields, separator, header, quoting)
    # read the first record now, so a wrong column or field name fails before any scoring
    first = next(generator, None)

    def chained() -> Iterator[EvalItem]:
        if first is not None:
            yield first
            yield from generator

    return chained()
