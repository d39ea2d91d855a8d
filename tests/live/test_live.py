"""Live scoring end to end: the wrapped call, sampling, the queue, the worker, the store."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

from scorekit import create_scorer
from scorekit.errors import ConfigError
from scorekit.live import LiveScorer, LiveScoring, Sampling, live_run_id, request_context
from scorekit.live.runs import RunKey
from scorekit.pipeline import Scorer, StepContext
from scorekit.store import Store
from tests.evalkit import failing_on, length_scorer


class FixedTraceIds(IdGenerator):
    """Every trace gets one given id (so its sampling fraction is known)."""

    def __init__(self, trace_id: int) -> None:
        self.trace_id = trace_id
        self.next_span = 0x1000

    def generate_trace_id(self) -> int:
        return self.trace_id

    def generate_span_id(self) -> int:
        self.next_span += 1
        return self.next_span


def gated_scorer(started: threading.Event, release: threading.Event) -> Scorer:
    async def score(ctx: StepContext) -> float:
        started.set()
        while not release.is_set():
            await asyncio.sleep(0.005)
        return 1.0

    return create_scorer("gated", description="waits for release").generate_score(score)


@pytest.fixture
def live(tmp_path: Path) -> Any:
    scoring = LiveScoring(tmp_path / "live.db", service="rag-api")
    yield scoring
    scoring.close(10)


def stored(path: Path) -> list[Any]:
    with Store(path) as store:
        return [(run, list(store.results(run.id))) for run in store.list_runs(None, source="LIVE")]


def test_results_and_exceptions_are_untouched(live: LiveScoring) -> None:
    marker = object()
    boom = ValueError("the app's own error")

    @live.score([length_scorer()])
    def answer(question: str) -> Any:
        """Answer a question."""
        if question == "fail":
            raise boom
        return marker

    @live.score([length_scorer()])
    async def answer_async(question: str) -> str:
        if question == "fail":
            raise boom
        return question.upper()

    class Agent:
        prefix = "agent:"

        @live.score([length_scorer()])
        def reply(self, text: str) -> str:
            return self.prefix + text

    assert answer("q") is marker
    with pytest.raises(ValueError, match="the app's own error") as caught:
        answer("fail")
    assert caught.value is boom
    assert asyncio.run(answer_async("abc")) == "ABC"
    with pytest.raises(ValueError, match="the app's own error") as caught_async:
        asyncio.run(answer_async("fail"))
    assert caught_async.value is boom
    assert Agent().reply("hi") == "agent:hi"
    assert answer.__name__ == "answer" and answer.__doc__ == "Answer a question."
    assert live.flush(10)
    # the calls that raised are not scored; `marker` has no len(): an error result, not an app error
    stats = live.stats()
    assert (stats.calls, stats.queued, stats.scored, stats.failed, stats.dropped) == (3, 3, 2, 1, 0)


def test_live_results_are_stored_with_their_origin(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    live = LiveScoring(db, service="rag-api")
    answer = live.wrap(
        lambda question, request_context=None: question * 2, [length_scorer()], entity="answer"
    )
    with request_context({"user": {"id": "u7"}, "api_key": "sk-secret", "threadId": "t1"}):
        assert answer("abcd") == "abcdabcd"
    tracer = TracerProvider(id_generator=FixedTraceIds(0xABC)).get_tracer("app")
    with tracer.start_as_current_span("request"):
        answer("xy", request_context={"tenant": "acme"})
    stats = live.close(10)
    assert (stats.scored, stats.failed, stats.pending, stats.abandoned) == (2, 0, 0, 0)
    [(run, rows)] = stored(db)
    day = rows[0].created_at.date()
    assert run.name == f"rag-api {day.isoformat()}"
    assert run.id == live_run_id(RunKey("rag-api", day, ("length",)))
    assert (run.source, run.status, run.total_items, run.verdict) == ("LIVE", "finished", 2, None)
    assert run.config == {
        "service": "rag-api",
        "day": day.isoformat(),
        "live": True,
        "prices": {},  # a code scorer: no judge to price (docs/cost.md)
    }
    first, second = rows
    assert (first.input, first.output, first.score, first.source) == (
        "abcd",
        "abcdabcd",
        0.8,
        "LIVE",
    )
    assert first.request_context == {"user.id": "u7", "threadId": "t1"}
    assert (first.entity_id, first.entity_type, first.entity) == (
        "answer",
        "AGENT",
        {"id": "answer", "name": "answer"},
    )
    assert first.thread_id == "t1" and first.trace_id is None and first.span_id is None
    assert first.call_run_id == first.item_id and len(first.call_run_id) == 36
    assert second.request_context == {"tenant": "acme"}
    assert second.trace_id == f"{0xABC:032x}" and second.span_id == f"{0x1001:016x}"
    with Store(db) as store:
        assert store.list_runs(source="TEST") == []


def test_a_failing_scorer_is_stored_as_an_error_and_logged(
    live: LiveScoring, caplog: pytest.LogCaptureFixture
) -> None:
    answer = live.wrap(lambda q: q, [length_scorer(), failing_on({"bad"})])
    with caplog.at_level(logging.WARNING, logger="scorekit.live"):
        assert answer("bad") == "bad"
        assert answer("good") == "good"
        assert live.flush(10)
    stats = live.stats()
    assert (stats.scored, stats.failed) == (3, 1)
    db = Path(live.store.url.removeprefix("sqlite:///"))
    errors = [r for _, rows in stored(db) for r in rows if r.status == "error"]
    assert [(r.scorer_id, r.output, r.error["type"]) for r in errors] == [
        ("picky", "bad", "RuntimeError")
    ]
    assert any("picky failed" in m and "cannot score bad" in m for m in caplog.messages)


def test_a_full_queue_drops_and_counts(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()
    live = LiveScoring(tmp_path / "live.db", service="svc", queue_size=1, concurrency=1)
    answer = live.wrap(lambda q: q, [gated_scorer(started, release)])
    answer("first")  # taken by the worker, which then waits for `release`
    assert started.wait(10)
    results = [answer(f"call {i}") for i in range(4)]  # one fits in the queue, three do not
    assert results == [f"call {i}" for i in range(4)]
    assert (live.stats().queued, live.stats().dropped, live.stats().pending) == (2, 3, 2)
    release.set()
    stats = live.close(10)
    assert (stats.scored, stats.dropped, stats.pending, stats.abandoned) == (2, 3, 0, 0)
    [(_, rows)] = stored(tmp_path / "live.db")
    assert sorted(r.input for r in rows) == ["call 0", "first"]


def test_close_counts_what_it_could_not_finish(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()
    live = LiveScoring(tmp_path / "live.db", service="svc", concurrency=1)
    answer = live.wrap(lambda q: q, [gated_scorer(started, release)])
    for i in range(3):
        answer(f"q{i}")
    assert started.wait(10)
    stats = live.close(0.2)  # the scorer never finishes: one in flight, two queued
    assert (stats.scored, stats.abandoned, stats.pending) == (0, 3, 0)
    assert answer("after close") == "after close"
    assert live.stats().dropped == 1
    release.set()
    assert stored(tmp_path / "live.db") == []  # nothing scored: no run was opened


def test_sampling_filter_and_sampled_out_traces(live: LiveScoring) -> None:
    def tenant_is_acme(context: Any) -> bool:
        return context.get("tenant") == "acme"

    def broken(context: Any) -> bool:
        raise KeyError("tenant")

    never = create_scorer("never", description="").generate_score(lambda ctx: 1.0)
    answer = live.wrap(
        lambda q, request_context: q,
        [
            {"scorer": length_scorer(), "filter": tenant_is_acme},
            LiveScorer(never, Sampling(0.0)),
            {"scorer": failing_on(set(), "broken-filter"), "filter": broken},
        ],
    )
    answer("one", request_context={"tenant": "acme"})
    answer("two", request_context={"tenant": "other"})
    off = TracerProvider(sampler=ALWAYS_OFF).get_tracer("app")
    with off.start_as_current_span("sampled out"):
        answer("three", request_context={"tenant": "acme"})
    assert live.flush(10)
    stats = live.stats()
    assert (stats.calls, stats.queued, stats.not_sampled, stats.scored) == (3, 1, 2, 1)


@pytest.mark.parametrize(
    ("trace_id", "scored"),
    [(0x0AF7651916CD43DD8448EB211C80319C, 1), (0x4BF92F3577B34DA6A3CE929D0E0E4736, 0)],
)
def test_the_sampling_key_is_the_trace_id(live: LiveScoring, trace_id: int, scored: int) -> None:
    # fractions 0.0858 and 0.2248 (tests/live/test_sampling.py): rate 0.1 takes only the first
    answer = live.wrap(
        lambda q: q, [{"scorer": length_scorer(), "sampling": {"type": "ratio", "rate": 0.1}}]
    )
    tracer = TracerProvider(id_generator=FixedTraceIds(trace_id)).get_tracer("app")
    for _ in range(5):  # every call of the trace is sampled the same way
        with tracer.start_as_current_span("call"):
            answer("q")
    assert live.flush(10)
    assert live.stats().scored == 5 * scored


def test_threads_and_asyncio_tasks(live: LiveScoring) -> None:
    answer = live.wrap(lambda q: q, [length_scorer()])

    @live.score([length_scorer()], entity="handler")
    async def handler(q: str) -> str:
        await asyncio.sleep(0)
        return q

    def calls() -> None:
        for i in range(50):
            answer(f"t{i}")

    threads = [threading.Thread(target=calls) for _ in range(4)]
    for thread in threads:
        thread.start()

    async def requests() -> list[str]:
        return await asyncio.gather(*(handler(f"r{i}") for i in range(100)))

    assert asyncio.run(requests()) == [f"r{i}" for i in range(100)]
    for thread in threads:
        thread.join()
    assert live.flush(30)
    stats = live.stats()
    assert (stats.calls, stats.scored, stats.dropped, stats.failed) == (300, 300, 0, 0)


def test_bad_arguments_name_the_field(tmp_path: Path, live: LiveScoring) -> None:
    with pytest.raises(ConfigError) as caught:
        LiveScoring(tmp_path / "x.db", service=" ")
    assert caught.value.field == "service"
    with pytest.raises(ConfigError) as caught:
        LiveScoring(tmp_path / "x.db", service="s", queue_size=0)
    assert caught.value.field == "queue_size"
    with pytest.raises(ConfigError) as caught:
        live.wrap(lambda q: q, [{"scorer": length_scorer(), "sampling": {"type": "ratio"}}])
    assert caught.value.field == "scorers[0].sampling.rate"
    with pytest.raises(ConfigError) as caught:
        live.wrap(lambda q: q, [length_scorer(), length_scorer()])
    assert caught.value.field == "scorers"
    with pytest.raises(ConfigError) as caught:
        live.wrap(lambda q: q, ["length"])  # type: ignore[list-item]
    assert caught.value.field == "scorers[0]"
