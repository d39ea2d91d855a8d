"""Reading evaluation datasets from JSONL, CSV and TSV files.

Each record becomes an :class:`~scorekit.evals.EvalItem`. Field names are mapped with
:class:`FieldMap`; a header-less file names its columns by 0-based position (``"5"``). A record
that cannot be read (bad JSON, a missing field, a short row) becomes an item with a
``load_error`` naming the file, line and field, so it is reported and counted while the other
records go on.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scorekit.errors import ConfigError
from scorekit.evals import EvalItem

__all__ = ["FieldMap", "read_dataset"]

Format = Literal["jsonl", "csv", "tsv"]

_SUFFIXES: dict[str, Format] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}


@dataclass(frozen=True)
class FieldMap:
    """Which record field (or, header-less, which 0-based column) holds each item field.

    Attributes:
        input: the input's field (optional in records).
        output: the output's field (required in every record).
        ground_truth: the ground truth's field (optional in records).
        id: the id's field (optional; the line number is used without it).
        context: the field of the retrieved context pieces (optional): a JSON list of strings
            (in CSV/TSV, a cell holding a JSON list), or one string for a single piece.
        extra: further fields copied into the item's ``metadata`` under their own names
            (e.g. a human label to correlate with); required in every record.
    """

    input: str = "input"
    output: str = "output"
    ground_truth: str = "ground_truth"
    id: str = "id"
    context: str = "context"
    extra: tuple[str, ...] = field(default_factory=tuple)


def _detect(path: Path, fmt: Format | None) -> Format:
    if fmt is not None:
        return fmt
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise ConfigError(
            f"{path}: cannot tell the format from the suffix {path.suffix!r}; "
            "use .jsonl, .csv or .tsv, or pass the format",
            field="format",
        )
    return found


def _context(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                pass
        return [value] if text else None
    return value


def _item(
    record: Mapping[str, Any], fields: FieldMap, where: str, line: int, require_output: bool
) -> EvalItem:
    required = (fields.output, *fields.extra) if require_output else fields.extra
    missing = [name for name in required if name not in record]
    if missing:
        return EvalItem(
            id=str(record.get(fields.id, line)),
            load_error=f"{where}:{line}: missing field {missing[0]!r}",
        )
    values: dict[str, Any] = {}
    if fields.output in record:
        values["output"] = record[fields.output]
    elif fields.input not in record:
        return EvalItem(
            id=str(record.get(fields.id, line)),
            load_error=f"{where}:{line}: missing field {fields.input!r}",
        )
    if fields.context in record and record[fields.context] is not None:
        context = _context(record[fields.context])
        if context is not None:
            values["context"] = context
    if fields.input in record:
        values["input"] = record[fields.input]
    if fields.ground_truth in record and record[fields.ground_truth] is not None:
        values["ground_truth"] = record[fields.ground_truth]
    item_id = record.get(fields.id)
    values["id"] = str(item_id) if item_id not in (None, "") else str(line)
    values["metadata"] = {"line": line, **{name: record[name] for name in fields.extra}}
    try:
        return EvalItem.from_value(values, line)
    except ConfigError as exc:
        return EvalItem(id=values["id"], load_error=f"{where}:{line}: {exc}")


def _jsonl(path: Path, fields: FieldMap, require_output: bool) -> Iterator[EvalItem]:
    with path.open(encoding="utf-8") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                yield EvalItem(id=str(line), load_error=f"{path}:{line}: invalid JSON ({exc.msg})")
                continue
            if not isinstance(record, dict):
                yield EvalItem(
                    id=str(line), load_error=f"{path}:{line}: expected a JSON object per line"
                )
                continue
            yield _item(record, fields, str(path), line, require_output)


def _delimited(
    path: Path,
    fields: FieldMap,
    delimiter: str,
    header: bool,
    quoting: bool,
    require_output: bool,
) -> Iterator[EvalItem]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(
            handle, delimiter=delimiter, quoting=csv.QUOTE_MINIMAL if quoting else csv.QUOTE_NONE
        )
        names: Sequence[str] | None = None
        if header:
            names = next(reader, None)
            if names is None:
                return
            wanted = [fields.output, *fields.extra] if require_output else list(fields.extra)
            absent = [name for name in wanted if name not in names]
            if absent:
                raise ConfigError(
                    f"{path}: no column {absent[0]!r} in the header ({', '.join(names)})",
                    field=absent[0],
                )
        for row in reader:
            line = reader.line_num
            if not row or all(not cell.strip() for cell in row):
                continue
            if names is not None:
                if len(row) != len(names):
                    yield EvalItem(
                        id=str(line),
                        load_error=f"{path}:{line}: {len(row)} columns, the header has "
                        f"{len(names)}",
                    )
                    continue
                record: dict[str, Any] = dict(zip(names, row, strict=True))
            else:
                record = {str(index): cell for index, cell in enumerate(row)}
            yield _item(record, fields, str(path), line, require_output)


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
        path: a ``.jsonl``/``.ndjson``, ``.csv`` or ``.tsv`` file (UTF-8).
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
        ConfigError: the file does not exist, its format is unknown, or (with a header) a
            required column is absent.
    """
    source = Path(path)
    if not source.is_file():
        raise ConfigError(f"{source}: no such file", field="data")
    fields = fields or FieldMap()
    kind = _detect(source, format)
    if kind == "jsonl":
        return _jsonl(source, fields, require_output)
    separator = delimiter or ("\t" if kind == "tsv" else ",")
    generator = _delimited(source, fields, separator, header, quoting, require_output)
    # check the header now, so a wrong column name fails before any scoring starts
    first = next(generator, None)

    def chained() -> Iterator[EvalItem]:
        if first is not None:
            yield first
            yield from generator

    return chained()
