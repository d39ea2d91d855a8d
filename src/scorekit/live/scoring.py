"""``LiveScoring``: score a sample of an application's live calls, in the background.

Wrap any function of the application (an agent call, a RAG endpoint; sync or async) with
scorers, each with its own sampling (:mod:`scorekit.live.sampling`) and an optional filter on
the call's request context (:mod:`scorekit.live.context`), as Mastra attaches scorers to an
agent (mastra-core.md §6). After each call that returns, in the caller's thread:

1. when an OpenTelemetry span is current and its trace is not sampled, the call is not scored
   (Mastra's rule: a trace sampled out is not scored);
2. the request context is snapshotted; each scorer's filter (a function of the snapshot) runs,
   then its sampling, keyed by the trace id, else the call's run id (a new uuid4);
3. when any scorer is left, one job is put on the bounded queue of the background worker,
   never waiting: the scoring process (:mod:`scorekit.live.process`) when every scorer of the
   function carries a spec, else the in-process thread (:mod:`scorekit.live.worker`).

The function's return value and its exceptions reach the caller untouched; a call that raises
is not scored. Scoring, its errors and the store are the worker's.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import logging
import os
import random
import time
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Literal

from scorekit.errors import ConfigError
from scorekit.evals.per_item import DEFAULT_SCORER_TIMEOUT, check_scorers
from scorekit.evals.scorer_threads import check_scorer_timeout
from scorekit.items import EvalItem
from scorekit.judge.prices import PriceTable
from scorekit.judge.spending import JudgeBudget, check_prices
from scorekit.live.context import current_request_context, current_span_ids
from scorekit.live.context import snapshot_request_context as _snapshot
from scorekit.live.daily_budget import DailyBudget
from scorekit.live.process import ProcessWorker
from scorekit.live.runs import RunKey
from scorekit.live.sampling import Sampling, read_sampling
from scorekit.live.worker import LiveJob, LiveStats, LiveWorker
from scorekit.pipeline import Scorer
from scorekit.store import Store

__all__ = [
    "AsyncLiveFunction",
    "LiveFunction",
    "LiveScorer",
    "LiveScoring",
    "RequestFilter",
    "WorkerKind",
]

logger = logging.getLogger("scorekit.live")

RequestFilter = Callable[[Mapping[str, Any]], bool]
"""A scorer's filter: the call's request-context snapshot → whether the scorer may score it."""

_THREAD_KEYS = ("threadId", "thread_id", "mastra__threadId")
_RESOURCE_KEYS = ("resourceId", "resource_id", "mastra__resourceId")
"""Request-context keys whose value is stored as the result's ``thread_id`` / ``resource_id``."""

DEFAULT_QUEUE_SIZE = 10_000
"""Calls queued for scoring at most, by default."""

WorkerKind = Literal["auto", "process", "thread"]
"""Where a wrapped function's calls are scored: ``"process"`` (a child process; every scorer
needs a spec), ``"thread"`` (a thread of the application's interpreter), ``"auto"`` (the
process when every scorer has a spec that pickles and the store is a file or a server, else
the thread)."""


_EVERY_CALL = Sampling()

_VERSION_4 = (0xF000 << 64) | (0xC000 << 48), (0x4000 << 64) | (0x8000 << 48)
_IDS = random.Random()  # seeded from os.urandom
os.register_at_fork(after_in_child=_IDS.seed)  # a forked worker must not repeat its parent's ids


def _new_run_id() -> str:
    """A random (version 4) UUID, as text, without a system call.

    ``uuid.uuid4`` reads ``os.urandom``, a system call that lets go of the interpreter lock
    (measured at 7 µs under threads); a private :class:`random.Random` (seeded from the system,
    again in a forked child, and untouched by the application's ``random.seed``) needs neither.
    The id keys sampling and names the call; it is no secret.
    """
    clear, flags = _VERSION_4
    digits = f"{(_IDS.getrandbits(128) & ~clear) | flags:032x}"
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


@dataclass(frozen=True)
class LiveScorer:
    """A scorer attached to live calls (Mastra's ``{scorer, sampling, filter}`` entry).

    Attributes:
        scorer: the scorer.
        sampling: which calls it scores (see :mod:`scorekit.live.sampling`); every call by
            default.
        filter: a function of the request-context snapshot, run before sampling; the scorer
            scores a call only when it returns true. One that raises counts as false (logged).
    """

    scorer: Scorer
    sampling: Sampling = _EVERY_CALL
    filter: RequestFilter | None = None


def _entry(value: Any, position: int) -> LiveScorer:
    field = f"scorers[{position}]"
    if isinstance(value, LiveScorer):
        return value
    if isinstance(value, Scorer):
        return LiveScorer(value)
    if not isinstance(value, Mapping) or not isinstance(value.get("scorer"), Scorer):
        raise ConfigError(
            f"{field} must be a Scorer, a LiveScorer or {{'scorer', 'sampling'?, 'filter'?}}, "
            f"not {value!r}",
            field=field,
        )
    unknown = sorted(set(map(str, value)) - {"scorer", "sampling", "filter"})
    if unknown:
        raise ConfigError(f"{field} has unknown key(s) {', '.join(unknown)}", field=field)
    chosen = value.get("filter")
    if chosen is not None and not callable(chosen):
        raise ConfigError(f"{field}.filter must be a function of the request context", field=field)
    sampling = read_sampling(value.get("sampling"), field=f"{field}.sampling")
    return LiveScorer(value["scorer"], sampling, chosen)


def _default_input(signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: Any) -> Any:
    """The call's input: its one argument, else its arguments by name."""
    given = {k: v for k, v in kwargs.items() if k != "request_context"}
    if len(args) == 1 and not given:
        return args[0]
    if signature is not None:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            pass
        else:
            named = {k: v for k, v in bound.arguments.items() if k != "request_context"}
            return next(iter(named.values())) if len(named) == 1 else named
    return {"args": list(args), **given}


def _default_output(result: Any) -> tuple[Any, Any]:
    """(output, context): ``{"output", "context"?}`` results are split as targets' are."""
    if isinstance(result, Mapping) and "output" in result:
        return result["output"], result.get("context")
    return result, None


class LiveFunction:
    """A wrapped function of the application: called as the function, scored in the background.

    Made by :meth:`LiveScoring.wrap` or the :meth:`LiveScoring.score` decorator. It keeps the
    function's name, docstring and signature (``functools.update_wrapper``), binds as a
    method, and is awaitable exactly when the function is (:class:`AsyncLiveFunction`).
    """

    def __init__(
        self,
        live: LiveScoring,
        fn: Callable[..., Any],
        entries: tuple[LiveScorer, ...],
        *,
        entity: str,
        entity_type: str,
        input_of: Callable[..., Any] | None,
        output_of: Callable[[Any], Any] | None,
        worker: LiveWorker | ProcessWorker,
        set_id: int = 0,
    ) -> None:
        functools.update_wrapper(self, fn)
        self._live = live
        self._worker = worker
        self._set_id = set_id
        self._fn = fn
        self.entries = entries
        """The attached scorers."""
        self.entity = entity
        """The entity name stored with the results (``entity_id``)."""
        self.entity_type = entity_type
        """The entity type stored with the results."""
        self._scorers = tuple(e.scorer for e in entries)
        self._keyed = any(e.sampling.rate is not None and 0 < e.sampling.rate < 1 for e in entries)
        self._scorer_ids = tuple(sorted(s.id for s in self._scorers))
        self._run_key = RunKey(live.service, date.min, self._scorer_ids)
        self._input_of = input_of
        self._output_of = output_of
        try:
            self._signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            self._signature = None

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self if instance is None else types.MethodType(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function; sample the call and queue it when it returns."""
        result = self._fn(*args, **kwargs)
        self._after(args, kwargs, result)
        return result

    def _after(self, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> None:
        """Sample the call and queue it; never raises into the application."""
        worker = self._worker
        try:
            worker.count("calls")
            ids, trace_sampled = current_span_ids()
            if not trace_sampled:
                worker.count("not_sampled")
                return
            raw = kwargs.get("request_context")
            raw = raw if raw is not None else current_request_context()
            snapshot = _snapshot(raw) if raw else {}
            # a run id is made only when it is needed: as the sampling key, or for a chosen call
            run_id = _new_run_id() if ids is None and self._keyed else None
            key = ids[0] if ids is not None else (run_id or "")
            chosen = tuple(e.scorer for e in self.entries if self._admits(e, snapshot, key))
            if not chosen:
                worker.count("not_sampled")
                return
            run_id = run_id or _new_run_id()
            day = datetime.now(timezone.utc).date()
            key_of_run = self._run_key
            if key_of_run.day != day:  # a new UTC day (or the first call): a new run key
                key_of_run = self._run_key = RunKey(self._live.service, day, self._scorer_ids)
            build = functools.partial(self._item, args, kwargs, result, snapshot, run_id, ids)
            worker.submit(LiveJob(build, chosen, key_of_run, self._scorers, self._set_id))
        except Exception:  # the application must never see scoring's failures
            worker.count("dropped")
            logger.exception("live call of %s could not be queued for scoring", self.entity)

    @staticmethod
    def _admits(entry: LiveScorer, snapshot: Mapping[str, Any], key: str) -> bool:
        if entry.filter is not None:
            try:
                if not entry.filter(snapshot):
                    return False
            except Exception:
                logger.warning(
                    "the filter of %s raised: not scored", entry.scorer.id, exc_info=True
                )
                return False
        return entry.sampling.samples(key)

    def _item(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        result: Any,
        snapshot: dict[str, Any],
        run_id: str,
        ids: tuple[str, str] | None,
    ) -> EvalItem:
        """The call's item (built off the caller's path, from what the call left)."""
        if self._input_of is not None:
            value = self._input_of(*args, **kwargs)
        else:
            value = _default_input(self._signature, args, kwargs)
        if self._output_of is not None:
            output, context = self._output_of(result), None
        else:
            output, context = _default_output(result)
        origin: dict[str, Any] = {
            "entity_id": self.entity,
            "entity_type": self.entity_type,
            "entity": {"id": self.entity, "name": self.entity},
            "call_run_id": run_id,
        }
        if ids is not None:
            origin["trace_id"], origin["span_id"] = ids
        for name, keys in (("thread_id", _THREAD_KEYS), ("resource_id", _RESOURCE_KEYS)):
            found = next((snapshot[k] for k in keys if isinstance(snapshot.get(k), str)), None)
            if found:
                origin[name] = found
        return EvalItem(
            id=run_id,
            input=value,
            output=output,
            has_output=True,
            context=None if context is None else tuple(map(str, context)),
            request_context=snapshot,
            trace=origin,
        )


class AsyncLiveFunction(LiveFunction):
    """A wrapped ``async`` function: ``await`` it as the function."""

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Await the function; sample the call and queue it when it returns."""
        result = await self._fn(*args, **kwargs)
        self._after(args, kwargs, result)
        return result


class LiveScoring:
    """Live scoring of one service's calls into a store (see the module docstring).

    Args:
        store: a :class:`~scorekit.store.Store`, a SQLAlchemy URL or a SQLite file path.
        service: the service's name; its calls are stored in one run per UTC day and set of
            scorers (:mod:`scorekit.live.runs`).
        queue_size: calls queued at most (>= 1); a sampled call that finds the queue full is
            dropped and counted (:attr:`LiveStats.dropped`).
        concurrency: calls scored at once by the worker (>= 1).
        scorer_timeout: seconds one code-scorer call may take (``None``: no limit).
        exit_timeout: seconds the interpreter's exit waits for queued calls to be scored
            (``atexit``); what is left is counted as abandoned.
        worker: where calls are scored (:data:`WorkerKind`): ``"auto"`` (default) scores a
            function whose scorers all carry a spec (built by
            :func:`~scorekit.scorers.build_scorer`) in a child process, and others in a
            thread; ``"process"`` requires specs; ``"thread"`` never starts a process.
        max_judge_calls: judge calls each UTC day may send (>= 1; ``None``: no limit), per
            process (:mod:`scorekit.live.daily_budget`).
        max_judge_tokens: prompt + completion tokens each UTC day may spend, per process.
        max_cost: US dollars each UTC day may spend, per process (its judges need a price).
        prices: price overrides, model string → ``[IN, OUT]`` dollars per million tokens
            (:class:`~scorekit.judge.prices.PriceTable`).

    Raises:
        ConfigError: an empty service name, a size or concurrency below 1, a bad timeout, an
            unknown ``worker``, a bad budget limit or price (``field`` names it).
        StoreError: the store cannot be opened.

    Example::

        live = LiveScoring("results.db", service="rag-api")

        @live.score([{"scorer": faithfulness, "sampling": {"type": "ratio", "rate": 0.1}}])
        async def answer(question: str) -> dict: ...

        live.close(timeout=30)   # or let the interpreter's exit do it
    """

    def __init__(
        self,
        store: Store | str | Path,
        *,
        service: str,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        concurrency: int = 8,
        scorer_timeout: float | None = DEFAULT_SCORER_TIMEOUT,
        exit_timeout: float = 10.0,
        worker: WorkerKind = "auto",
        max_judge_calls: int | None = None,
        max_judge_tokens: int | None = None,
        max_cost: float | None = None,
        prices: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(service, str) or not service.strip():
            raise ConfigError("service must be a non-empty name", field="service")
        for name, value in (("queue_size", queue_size), ("concurrency", concurrency)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an integer >= 1, not {value!r}", field=name)
        if isinstance(exit_timeout, bool) or not isinstance(exit_timeout, (int, float)):
            raise ConfigError("exit_timeout must be a number of seconds", field="exit_timeout")
        if worker not in ("auto", "process", "thread"):
            raise ConfigError(
                f"worker must be 'auto', 'process' or 'thread', not {worker!r}", field="worker"
            )
        timeout = check_scorer_timeout(scorer_timeout)
        limits = {"max_judge_calls": max_judge_calls, "max_judge_tokens": max_judge_tokens,
                  "max_cost": max_cost}  # fmt: skip
        budget = JudgeBudget.from_options(limits)
        self._prices = PriceTable(prices)
        self._budget = DailyBudget(budget, self._prices) if budget is not None else None
        self.service = service
        """The service's name."""
        self._owns_store = not isinstance(store, Store)
        self.store = store if isinstance(store, Store) else Store(store)
        """The store results are recorded in."""
        self._kind: WorkerKind = worker
        self._queue_size, self._concurrency, self._scorer_timeout = queue_size, concurrency, timeout
        self._thread: LiveWorker | None = None
        self._process: ProcessWorker | None = None
        self._exit_timeout = float(exit_timeout)
        self._closed = False
        atexit.register(self._at_exit)

    def wrap(
        self,
        fn: Callable[..., Any],
        scorers: Sequence[Scorer | LiveScorer | Mapping[str, Any]],
        *,
        entity: str | None = None,
        entity_type: str = "AGENT",
        input_of: Callable[..., Any] | None = None,
        output_of: Callable[[Any], Any] | None = None,
    ) -> LiveFunction:
        """Return ``fn`` wrapped: each call that returns is sampled and scored in the background.

        Args:
            fn: the application's function, sync or async (a coroutine function).
            scorers: each a :class:`~scorekit.pipeline.Scorer` (every call), a
                :class:`LiveScorer`, or ``{"scorer", "sampling"?, "filter"?}``; distinct ids.
            entity: the name stored with the results (``entity_id``); the function's
                qualified name by default.
            entity_type: stored as ``entity_type`` (Mastra's ``AGENT``, ``WORKFLOW``...).
            input_of: ``input_of(*args, **kwargs)`` → the scored input; by default the call's
                one argument, else its arguments by name (``request_context`` left out).
            output_of: ``output_of(result)`` → the scored output; by default the result, or
                its ``"output"`` (and ``"context"``, the context pieces) when it is a mapping
                holding one, as a ``run_evals`` target's.

        Returns:
            A :class:`LiveFunction` (an :class:`AsyncLiveFunction` for a coroutine function).

        Raises:
            ConfigError: ``fn`` is not callable, a scorer entry is malformed, or two scorers
                share an id (``field`` names it).
        """
        if not callable(fn):
            raise ConfigError(f"wrap needs a function, not {type(fn).__name__}", field="fn")
        if isinstance(scorers, (Scorer, Mapping)) or not isinstance(scorers, Sequence):
            raise ConfigError("scorers must be a list of scorer entries", field="scorers")
        entries = tuple(_entry(value, i) for i, value in enumerate(scorers))
        check_scorers([e.scorer for e in entries])
        name = entity or getattr(fn, "__qualname__", None) or type(fn).__name__
        worker, set_id = self._worker_for([e.scorer for e in entries])
        kind = AsyncLiveFunction if inspect.iscoroutinefunction(fn) else LiveFunction
        return kind(
            self,
            fn,
            entries,
            entity=str(name),
            entity_type=entity_type,
            input_of=input_of,
            output_of=output_of,
            worker=worker,
            set_id=set_id,
        )

    def _worker_for(self, scorers: Sequence[Scorer]) -> tuple[LiveWorker | ProcessWorker, int]:
        """The worker of a function with these scorers, and their set id in the process."""
        if self._budget is not None:  # a money budget needs every judge's price, now
            models = [model for scorer in scorers for model in scorer.judge_models]
            check_prices(self._budget.budget, self._budget.prices or PriceTable(), models)
        shared_store = not self.store.url.startswith("sqlite://") or self.store.url.startswith(
            "sqlite:///"
        )
        if self._kind == "process":
            missing = [s.id for s in scorers if s.spec is None]
            if missing or not shared_store:
                why = (
                    f"scorer(s) {', '.join(missing)} have no spec (build them with "
                    "scorekit.scorers.build_scorer)"
                    if missing
                    else "an in-memory store cannot be shared with another process"
                )
                raise ConfigError(f"worker='process' cannot score here: {why}", field="worker")
        if self._kind != "thread" and shared_store and all(s.spec is not None for s in scorers):
            process = self._process_worker()
            try:
                return process, process.register(scorers)
            except Exception as exc:  # a spec whose options do not pickle
                if self._kind == "process":
                    raise ConfigError(
                        f"worker='process' cannot score here: the scorers do not pickle: {exc}",
                        field="worker",
                    ) from exc
                logger.info("live scorers scored in a thread: they do not pickle (%s)", exc)
        return self._thread_worker(), 0

    def _thread_worker(self) -> LiveWorker:
        if self._thread is None:
            self._thread = LiveWorker(
                self.store,
                queue_size=self._queue_size,
                concurrency=self._concurrency,
                scorer_timeout=self._scorer_timeout,
                budget=self._budget,
                prices=self._prices,
            )
        return self._thread

    def _process_worker(self) -> ProcessWorker:
        if self._process is None:
            self._process = ProcessWorker(
                self.store.url,
                queue_size=self._queue_size,
                concurrency=self._concurrency,
                scorer_timeout=self._scorer_timeout,
                budget=self._budget,
                prices=self._prices,
            )
        return self._process

    @property
    def workers(self) -> tuple[LiveWorker | ProcessWorker, ...]:
        """The workers started so far: the thread worker and/or the process worker."""
        return tuple(w for w in (self._thread, self._process) if w is not None)

    def score(
        self, scorers: Sequence[Scorer | LiveScorer | Mapping[str, Any]], **options: Any
    ) -> Callable[[Callable[..., Any]], LiveFunction]:
        """The decorator form of :meth:`wrap` (same arguments after ``fn``)."""
        return lambda fn: self.wrap(fn, scorers, **options)

    def stats(self) -> LiveStats:
        """The counters: calls, queued, scored, failed, dropped, pending, abandoned, ...

        Both workers' together when functions are scored in a thread and in the process.
        """
        total = LiveStats()
        for worker in self.workers:
            total = total + worker.stats()
        return total

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued call is scored and written; the runs are then ``finished``.

        Args:
            timeout: seconds to wait at most (``None``: as long as it takes).

        Returns:
            Whether everything was scored and written in time (else scoring goes on).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        done = True
        for worker in self.workers:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            done = worker.flush(left) and done
        return done

    def close(self, timeout: float | None = None) -> LiveStats:
        """Stop scoring: flush for up to ``timeout`` seconds, then stop the worker.

        Calls made afterwards are still served, and counted as dropped. What is still queued
        when the time is up is counted as ``abandoned``. Closing twice does nothing more.

        Returns:
            The final counters.
        """
        if self._closed:
            return self.stats()
        self._closed = True
        atexit.unregister(self._at_exit)
        deadline = None if timeout is None else time.monotonic() + timeout
        for worker in self.workers:
            worker.close(None if deadline is None else max(deadline - time.monotonic(), 0.0))
        stats = self.stats()
        if self._owns_store:
            self.store.close()
        if stats.abandoned:
            logger.warning("live scoring closed with %d calls not scored", stats.abandoned)
        return stats

    def _at_exit(self) -> None:
        self.close(self._exit_timeout)

    def __enter__(self) -> LiveScoring:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
