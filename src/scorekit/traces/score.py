"""``score_traces``: score the traces of OTLP JSON files and store them as one ``TRACE`` run.

The files are read (:mod:`scorekit.traces.otlp`), each trace becomes items
(:mod:`scorekit.traces.trace_items`), every item is scored by every scorer
(:func:`scorekit.evals.score_item`: code scorers in worker threads under their time limit,
judge calls concurrently) and, with a store, recorded as it finishes
(:class:`~scorekit.evals.RunRecorder`, source ``TRACE``; the rows carry the trace and span
ids). A malformed or partial trace never stops the run: its problem is reported in
:attr:`TraceRunResult.problems`, and a trace that cannot be scored is an ``error`` item.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorekit._sync import run_sync
from scorekit.errors import ConfigError
from scorekit.evals.per_item import DEFAULT_SCORER_TIMEOUT, check_scorers, score_item
from scorekit.evals.recorder import RunRecorder
from scorekit.evals.scorer_threads import check_scorer_timeout
from scorekit.items import EvalItem, ItemResult
from scorekit.pipeline import Scorer
from scorekit.store.records import RunStatus
from scorekit.summary import ScoreSummary
from scorekit.traces.otlp import TraceFile, TraceProblem, read_otlp_json
from scorekit.traces.trace_items import trace_items
from scorekit.usage import JudgeUsage

if TYPE_CHECKING:
    from scorekit.store.store import Store

__all__ = ["TraceRunResult", "load_trace_items", "score_traces", "score_traces_sync"]


@dataclass
class TraceRunResult:
    """What scoring a set of trace files gave.

    Attributes:
        run_id: the run's id (stored when a store was given).
        traces: traces read.
        total_items: items scored (error items of unscorable traces included).
        summaries: scorer id → its :class:`~scorekit.summary.ScoreSummary`.
        problems: every problem met, per trace (fatal ones made error items).
        judge_usage: judge usage totals.
        status: how the run ended (``finished``, ``interrupted``, ``failed``).
        results: each item's results, in completion order (kept when ``keep_items``).
    """

    run_id: str
    traces: int = 0
    total_items: int = 0
    summaries: dict[str, ScoreSummary] = field(default_factory=dict)
    problems: list[TraceProblem] = field(default_factory=list)
    judge_usage: JudgeUsage = field(default_factory=JudgeUsage)
    status: RunStatus = "running"
    results: list[ItemResult] = field(default_factory=list)


def _files(source: str | Path | Iterable[str | Path]) -> list[Path]:
    if isinstance(source, (str, Path)):
        return [Path(source)]
    return [Path(p) for p in source]


def load_trace_items(
    source: str | Path | Iterable[str | Path], *, target: str = "root"
) -> tuple[list[EvalItem], list[TraceProblem], int]:
    """Read trace files and turn their traces into items.

    Args:
        source: an OTLP JSON file, or several.
        target: ``"root"`` or a span kind (see :func:`~scorekit.traces.trace_items.trace_items`).

    Returns:
        (items, problems, number of traces).

    Raises:
        ConfigError: a file cannot be read (``field="source"``).
    """
    merged = TraceFile()
    for path in _files(source):
        try:
            found = read_otlp_json(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the trace file {path}: {exc}", field="source") from exc
        merged.problems.extend(found.problems)
        for trace_id, spans in found.traces.items():
            merged.traces.setdefault(trace_id, []).extend(spans)
    items: list[EvalItem] = []
    problems = list(merged.problems)
    for trace_id, spans in merged.traces.items():
        made, found_problems = trace_items(trace_id, spans, target=target)
        items.extend(made)
        problems.extend(found_problems)
    return items, problems, len(merged.traces)


async def score_traces(
    source: str | Path | Iterable[str | Path],
    scorers: Sequence[Scorer],
    *,
    target: str = "root",
    store: Store | str | Path | None = None,
    run_name: str | None = None,
    concurrency: int = 8,
    scorer_timeout: float | None = DEFAULT_SCORER_TIMEOUT,
    keep_items: bool = True,
) -> TraceRunResult:
    """Score every trace of OTLP JSON files with every scorer.

    Args:
        source: an OTLP JSON file (collector JSON lines, or one ExportTraceServiceRequest),
            or several.
        scorers: the scorers, distinct ids.
        target: which spans become items: ``"root"`` (one per trace) or a span kind
            (``"LLM"``, ``"AGENT"``...: one per such span).
        store: where to record the run (a Store, a URL, a SQLite path); ``None``: not stored.
        run_name: the stored run's name.
        concurrency: items scored at once, >= 1.
        scorer_timeout: seconds one code-scorer call may take (``None``: no limit).
        keep_items: keep each item's results in :attr:`TraceRunResult.results`.

    Returns:
        The run's result: summaries, problems, usage.

    Raises:
        ConfigError: a bad argument, or an unreadable file (before anything is scored).
        StoreError: the store cannot be opened or written.
    """
    chosen = check_scorers(scorers)
    timeout = check_scorer_timeout(scorer_timeout)
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(
            f"concurrency must be an integer >= 1, not {concurrency!r}", field="concurrency"
        )
    if not isinstance(target, str) or not target.strip():
        raise ConfigError("target must be 'root' or a span kind", field="target")
    items, problems, traces = load_trace_items(source, target=target)
    result = TraceRunResult(
        str(uuid.uuid4()), traces, 0, {s.id: ScoreSummary(s.id) for s in chosen}
    )
    result.problems = problems
    recorder = RunRecorder(store, source="TRACE") if store is not None else None
    config: dict[str, Any] = {"files": [str(p) for p in _files(source)], "target": target}
    try:
        if recorder is not None:
            recorder.start(result.run_id, scorers=chosen, name=run_name, config=config)
        queue = iter(items)

        async def worker() -> None:
            for item in queue:
                outcome = await score_item(item, chosen, scorer_timeout=timeout)
                if recorder is not None:
                    await recorder.record(outcome)
                for scored in outcome.scorer_results.values():
                    result.summaries[scored.scorer_id].add(scored)
                    result.judge_usage = result.judge_usage + scored.judge_usage
                result.total_items += 1
                if keep_items:
                    result.results.append(outcome)

        await asyncio.gather(*(worker() for _ in range(min(concurrency, max(len(items), 1)))))
        result.status = "finished"
    except (asyncio.CancelledError, KeyboardInterrupt):
        result.status = "interrupted"
        raise
    except BaseException:
        result.status = "failed"
        raise
    finally:
        if recorder is not None:
            try:
                if recorder.run_id is not None and not recorder.finished:
                    recorder.finish(
                        result.status if result.status != "running" else "failed",
                        total_items=result.total_items,
                        judge_usage=result.judge_usage,
                    )
            finally:
                recorder.close()
    return result


def score_traces_sync(
    source: str | Path | Iterable[str | Path], scorers: Sequence[Scorer], **options: Any
) -> TraceRunResult:
    """Blocking :func:`score_traces` (same arguments); works inside a running event loop too.

    Raises:
        KeyboardInterrupt: Ctrl-C stopped it (the stored run is marked ``interrupted``).
    """
    return run_sync(score_traces(source, scorers, **options), interruptible=True)
