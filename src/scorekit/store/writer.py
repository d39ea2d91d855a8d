"""``ResultWriter``: how ``run_evals`` streams finished items into the store.

Group commit: finished items queue up; one background thread takes everything queued and writes
it in one transaction, and while it writes the next batch queues. Batches are therefore as large
as the store is slow, and an item is written within about one transaction's time of finishing:
a crash (or a kill) loses the items being scored and at most the batch being written — never a
whole run. When the queue outgrows ``max_pending`` items (a store slower than the scorers),
:meth:`ResultWriter.put` waits, so memory stays bounded whatever the dataset's size.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python

from scorekit.errors import StoreError
from scorekit.results import ScorerRunResult

if TYPE_CHECKING:
    from scorekit.evals import ItemResult
    from scorekit.store.store import Store

__all__ = ["ResultWriter", "result_rows"]

_MAX_BATCH = 2000  # items per transaction: keeps one transaction's size and lock time bounded


def _text(value: str) -> str:
    """Return ``value`` with each lone surrogate written as its ``\\udXXX`` escape.

    Lone surrogates are legal in JSON and Python text but not in UTF-8, which databases store.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return [_clean(item) for item in value]
    if isinstance(value, dict):
        return {_text(str(key)): _clean(item) for key, item in value.items()}
    return value


def _json(value: Any) -> Any:
    # step results may be pydantic models, inputs may be any object: keep what JSON can hold;
    # bytes become base64, NaN and infinities null (standard JSON, which PostgreSQL requires)
    plain = to_jsonable_python(
        value, fallback=repr, serialize_unknown=True, bytes_mode="base64", inf_nan_mode="null"
    )
    return _clean(plain)


def _reason(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _text(value)
    return json.dumps(_json(value), ensure_ascii=False)


def _opt_text(value: str | None) -> str | None:
    return None if value is None else _text(value)


def _row(
    run_id: str, outcome: ItemResult, result: ScorerRunResult, created_at: datetime
) -> dict[str, Any]:
    item = outcome.item
    usage = result.judge_usage
    return {
        "run_id": run_id,
        "item_id": _text(item.id),
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
        "input": _json(item.input),
        "output": _json(outcome.output),
        "ground_truth": _json(item.ground_truth),
        "context": _json(list(item.context)) if item.context is not None else None,
        "request_context": _json(item.request_context),
        "item_metadata": _json(dict(item.metadata)) or None,
        "source": "TEST",
        "duration_s": result.duration_s,
        "created_at": created_at,
    }


def result_rows(
    run_id: str, outcome: ItemResult, created_at: datetime, *, skip: Collection[str] = ()
) -> list[dict[str, Any]]:
    """Return the ``results`` rows of one finished item (one per scorer result).

    Args:
        run_id: the run.
        outcome: the item's results.
        created_at: when the item finished (UTC).
        skip: scorer ids whose results are already stored (a resumed run), not repeated.
    """
    return [
        _row(run_id, outcome, result, created_at)
        for scorer_id, result in outcome.scorer_results.items()
        if scorer_id not in skip
    ]


@dataclass(frozen=True)
class _Finished:
    outcome: ItemResult
    created_at: datetime
    skip: frozenset[str]


class ResultWriter:
    """Writes finished items to a store from one background thread (group commit).

    Args:
        store: the store.
        run_id: the run the rows belong to.
        replace: delete stored rows of the same (item, scorer) pairs first (resumed runs).
        max_pending: queued items above which :meth:`put` waits for the writer, >= 1.
    """

    def __init__(
        self, store: Store, run_id: str, *, replace: bool = False, max_pending: int = 5000
    ) -> None:
        self._store = store
        self._run_id = run_id
        self._replace = replace
        self._max_pending = max_pending
        self._pending: list[_Finished] = []
        self._closing = False
        self._error: StoreError | None = None
        self._cond = threading.Condition()
        self.written = 0
        """Items written so far."""
        self._thread = threading.Thread(
            target=self._loop, name="scorekit-store-writer", daemon=True
        )
        self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closing:
                    self._cond.wait()
                if not self._pending:
                    return
                batch = self._pending[:_MAX_BATCH]
                del self._pending[:_MAX_BATCH]
                self._cond.notify_all()
            try:
                rows = [
                    row
                    for done in batch
                    for row in result_rows(
                        self._run_id, done.outcome, done.created_at, skip=done.skip
                    )
                ]
                self._store.write_results(rows, replace=self._replace)
            except Exception as exc:
                with self._cond:
                    self._error = (
                        exc
                        if isinstance(exc, StoreError)
                        else StoreError(f"cannot write results: {exc}", run_id=self._run_id)
                    )
                    self._pending.clear()
                    self._closing = True
                    self._cond.notify_all()
                return
            with self._cond:
                self.written += len(batch)
                self._cond.notify_all()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    async def put(
        self, outcome: ItemResult, created_at: datetime, *, skip: frozenset[str] = frozenset()
    ) -> None:
        """Queue one finished item; waits while the queue is full.

        Raises:
            StoreError: an earlier write failed (the run cannot be stored any further).
        """
        self._raise_error()
        with self._cond:
            self._pending.append(_Finished(outcome, created_at, skip))
            self._cond.notify_all()
            full = len(self._pending) >= self._max_pending
        while full:
            await asyncio.sleep(0.005)
            self._raise_error()
            with self._cond:
                full = len(self._pending) >= self._max_pending

    def close(self) -> None:
        """Write everything queued, then stop the thread (blocking).

        Raises:
            StoreError: a write failed; the items of that batch and later ones are not stored.
        """
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()
        self._raise_error()
