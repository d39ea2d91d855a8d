"""The ``results`` rows of a finished item, built from the item record.

The store knows the item record (:mod:`scorekit.items`) and the scorer result
(:mod:`scorekit.results`), never the run loop. Values are made storable on the way: step
results and inputs of any type become JSON (pydantic models dumped, unknown objects as their
``repr``, bytes as base64, NaN and infinities as null, which PostgreSQL requires), and lone
surrogates, legal in Python text but not in UTF-8, are written as their ``\\udXXX`` escapes.
The NUL character, which PostgreSQL's text columns cannot hold, is written as the four
characters ``\\x00`` in the text columns (item id, reason, prompts, origins) on every backend,
so both store the same text; JSON values keep it (JSON escapes it as ``\\u0000``). Every text
but the item id is capped at :data:`~scorekit.store.stored_text.STORED_TEXT_CHARS`
characters, its full length and SHA-256 kept (:mod:`scorekit.store.stored_text`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from pydantic_core import to_jsonable_python

from scorekit.items import ItemResult
from scorekit.results import ScorerRunResult
from scorekit.steps import record_values
from scorekit.store.records import ORIGIN_FIELDS, RunSource
from scorekit.store.stored_text import cut_list, cut_text

__all__ = ["origin_values", "result_rows"]

_ORIGIN_LIMITS = {"trace_id": 32, "span_id": 16, "entity_type": 32}
"""Columns narrower than the default 200 characters (their SQL widths)."""


def _text(value: str) -> str:
    """Return ``value`` with each lone surrogate written as its ``\\udXXX`` escape.

    Lone surrogates are legal in JSON and Python text but not in UTF-8, which databases store.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def _column_text(value: str) -> str:
    """Return ``value`` storable in a text column: :func:`_text`, and NUL as ``\\x00``."""
    return _text(value).replace("\x00", "\\x00")


def _capped_column_text(value: str) -> str:
    """:func:`_column_text` of ``value`` cut to the stored length (:func:`cut_text`)."""
    return _column_text(cut_text(value))


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _text(cut_text(value))
    if isinstance(value, list):
        return [_clean(item) for item in cut_list(value)]
    if isinstance(value, dict):
        return {_text(cut_text(str(key))): _clean(item) for key, item in value.items()}
    return value


def _json(value: Any) -> Any:
    # step results may be pydantic models, inputs may be any object: keep what JSON can hold;
    # bytes become base64, NaN and infinities null (standard JSON, which PostgreSQL requires);
    # a value nested too deep to serialise is stored as a note saying so, never ending the run
    try:
        plain = to_jsonable_python(
            value, fallback=repr, serialize_unknown=True, bytes_mode="base64", inf_nan_mode="null"
        )
        return _clean(plain)
    except (ValueError, RecursionError) as exc:
        return f"[not stored by scorekit: {type(exc).__name__}: {str(exc)[:200]}]"


def _reason(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _capped_column_text(value)
    return json.dumps(_json(value), ensure_ascii=False)


def _opt_text(value: str | None) -> str | None:
    return None if value is None else _capped_column_text(value)


def origin_values(trace: Any) -> dict[str, Any]:
    """The origin columns of an item whose ``trace`` says where it came from.

    A live call or a trace span sets the item's ``trace`` to a mapping with some of the keys
    of :data:`~scorekit.store.records.ORIGIN_FIELDS` (``trace_id``, ``span_id``,
    ``entity_id``, ``entity_type``, ``entity``, ``call_run_id``, ``thread_id``,
    ``resource_id``). Text values are kept (cut to their column's width), ``entity`` when it
    is a mapping; anything else, and an item whose ``trace`` is not a mapping, gives ``None``.

    Args:
        trace: the item's ``trace`` value (any).

    Returns:
        Column name → value for every origin column.
    """
    found: dict[str, Any] = dict.fromkeys(ORIGIN_FIELDS)
    if not isinstance(trace, Mapping):
        return found
    for name in ORIGIN_FIELDS:
        value = trace.get(name)
        if name == "entity":
            found[name] = _json(dict(value)) if isinstance(value, Mapping) else None
        elif isinstance(value, str) and value:
            found[name] = _column_text(value[: _ORIGIN_LIMITS.get(name, 200)])
    return found


def _row(
    run_id: str,
    outcome: ItemResult,
    result: ScorerRunResult,
    created_at: datetime,
    source: RunSource,
) -> dict[str, Any]:
    item = outcome.item
    usage = result.judge_usage
    return {
        "run_id": run_id,
        "item_id": _column_text(item.id),
        "scorer_id": result.scorer_id,
        "scorer_run_id": result.run_id,
        "status": result.status,
        "score": result.score,
        "reason": _reason(result.reason),
        "preprocess_step_result": _json(result.preprocess_step_result),
        "analyze_step_result": _json(result.analyze_step_result),
        "preprocess_prompt": _opt_text(result.preprocess_prompt),
        "analyze_prompt": _opt_text(result.analyze_prompt),
        "generate_score_prompt": _opt_text(result.generate_score_prompt),
        "generate_reason_prompt": _opt_text(result.generate_reason_prompt),
        "judge_calls": usage.calls,
        "judge_input_tokens": usage.input_tokens,
        "judge_output_tokens": usage.output_tokens,
        "judge_cache_hits": usage.cache_hits,
        "judge_latency_s": usage.latency_s,
        "error": _json(result.error.model_dump()) if result.error is not None else None,
        # the item record's fields (a tuple of context pieces becomes a JSON list), with the
        # output that was scored
        **{name: _json(value) for name, value in record_values(item).items()},
        "output": _json(outcome.output),
        "item_metadata": _json(dict(item.metadata)) or None,
        "source": source,
        "duration_s": result.duration_s,
        "created_at": created_at,
        **origin_values(item.trace),
    }


def result_rows(
    run_id: str,
    outcome: ItemResult,
    created_at: datetime,
    *,
    source: RunSource = "TEST",
    skip: Collection[str] = (),
) -> list[dict[str, Any]]:
    """Return the ``results`` rows of one finished item (one per scorer result).

    Results read back from the store (``outcome.stored``, a resumed run) are not repeated.

    Args:
        run_id: the run.
        outcome: the item's results.
        created_at: when the item finished (UTC).
        source: where the item came from (``"TEST"`` a dataset run, ``"LIVE"``, ``"TRACE"``).
        skip: further scorer ids whose results are not to be written.

    Returns:
        One dict of ``results`` column values per result, JSON values made storable (see the
        module docstring).
    """
    return [
        _row(run_id, outcome, result, created_at, source)
        for scorer_id, result in outcome.scorer_results.items()
        if scorer_id not in skip and scorer_id not in outcome.stored
    ]
