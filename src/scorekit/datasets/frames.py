"""pandas DataFrames in and out: a DataFrame as a run's data, results as frames.

Needs the optional extra ``scorekit[pandas]``; nothing else in scorekit imports pandas.

- :func:`frame_items`: the rows of a DataFrame as items, with the column mapping of dataset
  files (:class:`~scorekit.datasets.files.FieldMap`: ``input``, ``output``, ``ground_truth``,
  ``id``, ``context`` ... or Mastra's camelCase names); a missing value (``NaN``, ``None``,
  ``pd.NA``) is a missing field, never an error. ``run_evals`` takes a DataFrame as ``data``
  directly (the default mapping); call this for another mapping.
- :func:`results_frame`: results as a frame, long (one row per item and scorer) or wide (one
  row per item, a score column per scorer), from an
  :class:`~scorekit.evals.EvalRunResult` (``EvalRunResult.to_pandas``) or from a stored run
  (``Store.results_frame``). A score that was not measured is ``<NA>`` (the nullable
  ``Float64`` dtype), its ``status`` column says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scorekit.datasets.files import FieldMap, record_item
from scorekit.datasets.generated_ids import GeneratedIds
from scorekit.errors import ConfigError
from scorekit.items import EvalItem, ItemResult

if TYPE_CHECKING:
    from scorekit.store.records import ResultRecord

__all__ = [
    "PANDAS_EXTRA",
    "frame_items",
    "is_frame",
    "items_frame",
    "records_frame",
    "results_frame",
]

PANDAS_EXTRA = "scorekit[pandas]"
"""The optional extra that brings pandas."""

LONG_COLUMNS = (
    "item_id",
    "scorer_id",
    "status",
    "score",
    "reason",
    "error",
    "input",
    "output",
    "ground_truth",
    "judge_calls",
    "judge_input_tokens",
    "judge_output_tokens",
    "duration_s",
)
"""The columns of a long results frame, in order."""


def _pandas() -> Any:
    try:
        import pandas  # type: ignore[import-untyped, unused-ignore]  # no stubs needed: Any
    except ImportError as exc:
        raise ImportError(
            f"DataFrames need pandas: pip install '{PANDAS_EXTRA}'", name="pandas"
        ) from exc
    return pandas


def is_frame(data: Any) -> bool:
    """Whether ``data`` is a pandas DataFrame (checked without importing pandas)."""
    import sys

    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(data, pandas.DataFrame)


def _plain(value: Any, pandas: Any) -> Any:
    """A cell as plain Python: numpy scalars unwrapped, arrays as lists, missing as ``None``."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()  # numpy scalars and arrays
    if isinstance(value, (list, tuple, dict)):
        return value
    try:
        if pandas.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return value


def frame_items(frame: Any, *, fields: FieldMap | None = None) -> Iterator[EvalItem]:
    """The rows of a DataFrame as items, mapped as dataset files are.

    Args:
        frame: one row per item; columns named as ``fields`` says (default ``input``,
            ``output``, ``ground_truth``, ``id``, ``context``, ...; Mastra's camelCase names
            are found too). A missing cell (``NaN``, ``None``, ``pd.NA``) is a missing field.
            A row without an ``id`` is named by its index label.
        fields: the column mapping (:class:`~scorekit.datasets.files.FieldMap`).

    Yields:
        One item per row; a row that cannot be read (a missing required value, a bad context)
        is an item whose ``load_error`` names the row and the column.

    Raises:
        ConfigError: ``frame`` is not a DataFrame, its column names are not unique, or a
            column the mapping requires is absent (``field`` names it), before any row is
            read.
        ImportError: pandas is not installed (``pip install 'scorekit[pandas]'``).
    """
    pandas = _pandas()
    if not isinstance(frame, pandas.DataFrame):
        raise ConfigError(f"expected a DataFrame, not {type(frame).__name__}", field="data")
    fields = fields or FieldMap()
    columns = [str(c) for c in frame.columns]
    doubled = sorted({c for c in columns if columns.count(c) > 1})
    if doubled:
        raise ConfigError(f"the DataFrame has two columns {doubled[0]!r}", field=doubled[0])
    absent = [name for name in fields.names_required() if name not in columns]
    if absent:
        raise ConfigError(
            f"the DataFrame has no column {absent[0]!r} (columns: {', '.join(columns)})",
            field=absent[0],
        )
    return _rows(frame, fields, columns, pandas)


def _rows(frame: Any, fields: FieldMap, columns: list[str], pandas: Any) -> Iterator[EvalItem]:
    ids = GeneratedIds(
        lambda: _given_ids(frame, fields.id, columns, pandas),
        "row",
        places_repeat=not frame.index.is_unique,
    )
    for position, (label, values) in enumerate(
        zip(frame.index, frame.itertuples(index=False, name=None), strict=True)
    ):
        record = {
            name: cell
            for name, cell in zip(columns, (_plain(v, pandas) for v in values), strict=True)
            if cell is not None
        }
        if record.get(fields.id) in (None, ""):
            record[fields.id] = ids(str(_plain(label, pandas)))
        item = record_item(record, fields, "DataFrame row", position)
        extra = {key: record[key] for key in fields.extra if key in record}
        yield replace(item, metadata={"row": position, **extra})


def _given_ids(frame: Any, column: str, columns: list[str], pandas: Any) -> set[str]:
    """The ids the frame's id column gives (an index label must not take one of them)."""
    if column not in columns:
        return set()
    cells = (_plain(cell, pandas) for cell in frame.iloc[:, columns.index(column)])
    return {str(cell) for cell in cells if cell not in (None, "")}


def _text(value: Any) -> Any:
    return value if value is None or isinstance(value, str) else repr(value)


def _error_text(error: Any) -> str | None:
    if error is None:
        return None
    if isinstance(error, Mapping):
        return f"{error.get('type')}: {error.get('message')}"
    return f"{error.type}: {error.message}"


def results_frame(rows: Iterable[Mapping[str, Any]], *, wide: bool = False) -> Any:
    """A results frame from rows with the keys of :data:`LONG_COLUMNS`.

    Args:
        rows: one mapping per (item, scorer) result.
        wide: one row per item (index ``item_id``; ``input``, ``output``, ``ground_truth``,
            then per scorer a ``<scorer id>`` score column and a ``<scorer id>:status``
            column) instead of one row per item and scorer.

    Raises:
        ImportError: pandas is not installed.
    """
    pandas = _pandas()
    frame = pandas.DataFrame(list(rows), columns=list(LONG_COLUMNS))
    frame["score"] = frame["score"].astype("Float64")
    if not wide:
        return frame
    first = frame.drop_duplicates("item_id").set_index("item_id")
    wide_frame = first[["input", "output", "ground_truth"]].copy()
    for scorer_id in dict.fromkeys(frame["scorer_id"]):
        part = frame[frame["scorer_id"] == scorer_id].set_index("item_id")
        wide_frame[scorer_id] = part["score"].reindex(wide_frame.index).astype("Float64")
        wide_frame[f"{scorer_id}:status"] = part["status"].reindex(wide_frame.index)
    return wide_frame


def items_frame(items: Iterable[ItemResult], *, wide: bool = False) -> Any:
    """A run's per-item results (``EvalRunResult.items``) as a frame (see :func:`results_frame`).

    Raises:
        ImportError: pandas is not installed.
    """
    rows = [
        {
            "item_id": outcome.item.id,
            "scorer_id": sid,
            "status": r.status,
            "score": r.score,
            "reason": _text(r.reason),
            "error": _error_text(r.error),
            "input": outcome.item.input,
            "output": outcome.output,
            "ground_truth": outcome.item.ground_truth,
            "judge_calls": r.judge_usage.calls,
            "judge_input_tokens": r.judge_usage.input_tokens,
            "judge_output_tokens": r.judge_usage.output_tokens,
            "duration_s": r.duration_s,
        }
        for outcome in items
        for sid, r in outcome.scorer_results.items()
    ]
    return results_frame(rows, wide=wide)


def records_frame(records: Iterable[ResultRecord], *, wide: bool = False) -> Any:
    """Stored results (``Store.results``) as a frame (see :func:`results_frame`), in order.

    Args:
        records: a stored run's results, as :meth:`scorekit.store.Store.results` reads them.
        wide: one row per item instead of one per item and scorer.

    Raises:
        ImportError: pandas is not installed.
    """
    rows = [
        {
            "item_id": r.item_id,
            "scorer_id": r.scorer_id,
            "status": r.status,
            "score": r.score,
            "reason": r.reason,
            "error": _error_text(r.error),
            "input": r.input,
            "output": r.output,
            "ground_truth": r.ground_truth,
            "judge_calls": r.judge_usage.calls,
            "judge_input_tokens": r.judge_usage.input_tokens,
            "judge_output_tokens": r.judge_usage.output_tokens,
            "duration_s": r.duration_s,
        }
        for r in records
    ]
    return results_frame(rows, wide=wide)
