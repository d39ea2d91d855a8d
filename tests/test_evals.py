from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorekit import ConfigError, create_scorer
from scorekit.evals import EvalItem, run_evals, run_evals_sync
from scorekit.pipeline import ScorerRunResult, StepContext
from scorekit.store import Store

from .evalkit import (
    CachingModel,
    context_scorer,
    failing_on,
    judged_scorer,
    length_scorer,
    slow_scorer,
)

ITEMS = [
    {"id": "a", "input": "q1", "output": "abcde"},
    {"id": "b", "input": "q2", "output": "ab"},
    {"id": "c", "input": "q3", "output": "abcdefgh"},
]


def test_means_counts_and_total_items() -> None:
    result = run_evals_sync(ITEMS, [length_scorer()])
    assert result.scores == {"length": pytest.approx((0.5 + 0.2 + 0.8) / 3)}
    assert result.summary.total_items == 3
    assert result.summary.counts == {"length": {"ok": 3, "skipped": 0, "error": 0}}
    assert sorted(i.item.id for i in result.items) == ["a", "b", "c"]  # in completion order
    assert result.verdict == "passed"
    assert result.status == "finished"


def test_failing_scorer_is_an_error_and_the_run_goes_on() -> None:
    # divergences.md row 8
    result = run_evals_sync(ITEMS, [failing_on({"ab"}), length_scorer()])
    counts = result.summary.counts
    assert counts["picky"] == {"ok": 2, "skipped": 0, "error": 1}
    assert counts["length"] == {"ok": 3, "skipped": 0, "error": 0}
    failed = next(i for i in result.items if i.item.id == "b").scorer_results["picky"]
    assert failed.status == "error"
    assert failed.score is None
    assert failed.error is not None
    assert failed.error.type == "RuntimeError"
    assert failed.error.message == "cannot score ab"
    assert failed.error.step == "generate_score"
    assert result.scores["picky"] == 1.0


def test_failing_target_is_an_error_for_every_scorer_of_the_item() -> None:
    def target(question: str) -> str:
        if question == "q2":
            raise TimeoutError("app down")
        return question * 3

    data = [{"id": d["id"], "input": d["input"]} for d in ITEMS]
    result = run_evals_sync(data, [length_scorer(), context_scorer()], target=target)
    item_b = next(i for i in result.items if i.item.id == "b")
    assert item_b.target_error is not None
    assert item_b.target_error.message == "app down"
    assert item_b.target_error.step == "target"
    assert {r.status for r in item_b.scorer_results.values()} == {"error"}
    assert result.summary.counts["length"] == {"ok": 2, "skipped": 0, "error": 1}
    assert result.scores["length"] == pytest.approx(0.6)


def test_item_context_reaches_scorers() -> None:
    data = [{"id": "x", "input": "q", "output": "o", "context": ["one", "two"]}]
    result = run_evals_sync(data, [context_scorer()])
    scored = result.items[0].scorer_results["context-count"]
    assert scored.score == 2.0
    assert scored.reason == "one|two"


def test_target_context_reaches_scorers_and_async_targets_work() -> None:
    seen: list[Any] = []

    async def target(question: str, request_context: Any) -> dict[str, Any]:
        seen.append(request_context)
        return {"output": f"answer to {question}", "context": ["p1", "p2", "p3"]}

    data = [{"id": "x", "input": "q", "request_context": {"user": "u1"}}]
    result = run_evals_sync(data, [context_scorer(), length_scorer()], target=target)
    item = result.items[0]
    assert item.output == "answer to q"
    assert item.item.context == ("p1", "p2", "p3")
    assert item.scorer_results["context-count"].score == 3.0
    assert item.scorer_results["length"].score == pytest.approx(1.1)
    assert seen == [{"user": "u1"}]


def test_target_returning_bad_context_is_an_item_error() -> None:
    result = run_evals_sync(
        [{"id": "x", "input": "q"}],
        [context_scorer()],
        target=lambda q: {"output": "o", "context": "not a list"},
    )
    error = result.items[0].scorer_results["context-count"].error
    assert error is not None
    assert error.type == "ConfigError"
    assert "list of strings" in error.message


def test_item_without_output_and_no_target_is_an_error() -> None:
    result = run_evals_sync([{"id": "x", "input": "q"}], [length_scorer()])
    error = result.items[0].scorer_results["length"].error
    assert error is not None
    assert error.message == "item 'x' has no 'output' and run_evals was given no target"


def test_thresholds_decide_the_verdict() -> None:
    assert run_evals_sync(ITEMS, [length_scorer()], thresholds={"length": 0.5}).verdict == "passed"
    assert run_evals_sync(ITEMS, [length_scorer()], thresholds={"length": 0.51}).verdict == "failed"
    with pytest.raises(ConfigError, match="thresholds: 'lenght' is not a scorer of this run"):
        run_evals_sync(ITEMS, [length_scorer()], thresholds={"lenght": 0.5})


def test_a_threshold_on_a_scorer_without_ok_results_fails() -> None:
    result = run_evals_sync(
        ITEMS, [failing_on({"ab", "abcde", "abcdefgh"})], thresholds={"picky": 0}
    )
    assert result.scores == {}
    assert result.verdict == "failed"


def test_judge_usage_totals_include_cache_hits() -> None:
    model = CachingModel()
    result = run_evals_sync(ITEMS, [judged_scorer(model)], concurrency=1)
    assert result.scores == {"judged": 1.0}
    usage = result.judge_usage
    assert usage.calls == 6
    assert usage.input_tokens == 60
    assert usage.output_tokens == 18
    assert usage.cache_hits == 3


def test_data_streams_lazily() -> None:
    pulled: list[int] = []
    finished: list[int] = []

    def data() -> Iterator[dict[str, Any]]:
        for n in range(20):
            pulled.append(n)
            # never more than `concurrency` items read ahead of those finished
            assert len(pulled) - len(finished) <= 2
            yield {"id": str(n), "output": "x" * n}

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        finished.append(int(item.id))

    result = run_evals_sync(data(), [slow_scorer(0.001)], concurrency=2, on_item_complete=on_item)
    assert result.total_items == 20
    assert sorted(finished) == list(range(20))


async def test_async_callback_and_async_iterable() -> None:
    calls: list[str] = []

    async def data() -> Any:
        for item in ITEMS:
            yield item

    async def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        calls.append(f"{item.id}:{results['length'].score}")

    result = await run_evals(data(), [length_scorer()], on_item_complete=on_item, concurrency=1)
    assert calls == ["a:0.5", "b:0.2", "c:0.8"]
    assert result.total_items == 3


def test_callback_error_ends_the_run() -> None:
    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        raise ValueError("callback bug")

    with pytest.raises(ValueError, match="callback bug"):
        run_evals_sync(ITEMS, [length_scorer()], on_item_complete=on_item)


def test_keep_items_false_keeps_only_summaries() -> None:
    result = run_evals_sync(ITEMS, [length_scorer()], keep_items=False)
    assert result.items == []
    assert result.total_items == 3


def test_bad_arguments_raise_before_any_work() -> None:
    with pytest.raises(ConfigError, match="at least one scorer"):
        run_evals_sync(ITEMS, [])
    with pytest.raises(ConfigError, match="concurrency"):
        run_evals_sync(ITEMS, [length_scorer()], concurrency=0)
    with pytest.raises(ConfigError, match="share the id"):
        run_evals_sync(ITEMS, [length_scorer(), length_scorer()])
    with pytest.raises(ConfigError, match="needs a store"):
        run_evals_sync(ITEMS, [length_scorer()], resume="abc")


def test_unreadable_item_is_recorded_and_the_run_goes_on() -> None:
    result = run_evals_sync([{"id": "x", "nonsense": 1}, ITEMS[0]], [length_scorer()])
    assert result.summary.counts["length"] == {"ok": 1, "skipped": 0, "error": 1}
    bad = next(i for i in result.items if i.item.id == "x")
    assert bad.target_error is not None
    assert bad.target_error.step == "load"


def test_run_evals_sync_works_inside_a_running_loop(tmp_path: Path) -> None:
    async def inside() -> float:
        result = run_evals_sync(ITEMS, [length_scorer()], store=tmp_path / "x.db")
        return result.scores["length"]

    assert asyncio.run(inside()) == pytest.approx(0.5)
    with Store(tmp_path / "x.db") as store:
        assert store.list_runs()[0].status == "finished"


def test_item_context_scorers_judge_each_items_own_context() -> None:
    from scorekit.inputs.retrieval_context import ContextSource, item_context

    source = ContextSource.of(None, item_context, scorer="test")

    async def score(ctx: StepContext) -> float:
        await asyncio.sleep(0.001)  # let other items' scorers interleave
        pieces = (await source.resolve(ctx.run)).texts
        assert pieces == (ctx.run.context or ())
        return float(len(pieces))

    scorer = create_scorer("ctx", description="d").generate_score(score)
    data = [
        {"id": str(n), "output": "o", **({"context": ["p"] * n} if n % 3 else {})}
        for n in range(30)
    ]
    result = run_evals_sync(data, [scorer], concurrency=8)
    scores = {i.item.id: i.scorer_results["ctx"].score for i in result.items}
    assert scores == {str(n): float(n if n % 3 else 0) for n in range(30)}
    with pytest.raises(ConfigError, match="marker"):
        item_context("in", "out")


def test_scorer_run_takes_context() -> None:
    from scorekit import create_scorer

    scorer = create_scorer("n", description="d").generate_score(
        lambda ctx: float(len(ctx.run.context or ()))
    )
    assert scorer.run_sync(output="o", context=["a", "b"]).score == 2.0
    assert scorer.run_sync(output="o").score == 0.0
    with pytest.raises(ConfigError, match="context must be a list of strings"):
        scorer.run_sync(output="o", context="ab")


def test_sync_targets_run_concurrently() -> None:
    import threading

    barrier = threading.Barrier(4, timeout=10)

    def target(question: str) -> str:
        barrier.wait()  # passes only when four targets are in flight at once
        return question * 2

    data = [{"id": str(n), "input": "ab"} for n in range(4)]
    result = run_evals_sync(data, [length_scorer()], target=target, concurrency=4)
    assert result.summary.counts["length"] == {"ok": 4, "skipped": 0, "error": 0}
    assert result.scores == {"length": 0.4}


def test_a_broken_data_source_keeps_what_was_scored(tmp_path: Path) -> None:
    from scorekit.evals import DataSourceError

    def data() -> Iterator[dict[str, Any]]:
        yield from ITEMS
        raise ValueError("source broke")

    with pytest.raises(DataSourceError, match="after 3 items") as info:
        run_evals_sync(data(), [length_scorer()], store=tmp_path / "x.db", concurrency=1)
    assert isinstance(info.value.__cause__, ValueError)
    assert info.value.partial is not None
    assert info.value.partial.total_items == 3
    with Store(tmp_path / "x.db") as store:
        [run] = store.list_runs()
        assert run.status == "failed"
        assert len(list(store.results(run.id))) == 3


def test_string_data_is_refused() -> None:
    with pytest.raises(ConfigError) as info:
        run_evals_sync("items", [length_scorer()])  # type: ignore[arg-type]
    assert info.value.field == "data"


def test_resume_with_other_data_summarises_the_whole_run(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    first = run_evals_sync(ITEMS, [length_scorer()], store=db)
    more = [ITEMS[0], {"id": "d", "input": "q4", "output": "abcd"}]
    second = run_evals_sync(more, [length_scorer()], store=db, resume=first.run_id)
    assert second.total_items == 4
    assert second.scores == {"length": pytest.approx((0.5 + 0.2 + 0.8 + 0.4) / 4)}
    with Store(db) as store:
        assert store.get_run(first.run_id).total_items == 4


def test_odd_values_never_stop_the_store(tmp_path: Path) -> None:
    scorer = (
        create_scorer("odd", description="d")
        .preprocess(lambda ctx: {"blob": b"\xff\xfe", "inf": float("inf")})
        .generate_score(lambda ctx: 0.5)
        .generate_reason(lambda ctx: "bad \udc80 reason")
    )
    data = [{"id": "bad\ud800", "output": "o", "metadata": {"b": b"\xff"}}]
    result = run_evals_sync(data, [scorer], store=tmp_path / "x.db")
    with Store(tmp_path / "x.db") as store:
        [row] = store.results(result.run_id)
    assert row.item_id == "bad\\ud800"
    assert row.reason == "bad \\udc80 reason"
    assert row.preprocess_step_result == {"blob": "__4=", "inf": None}
    assert row.metadata == {"b": "_w=="}


def test_repeated_item_ids_are_recorded_as_errors() -> None:
    data = [ITEMS[0], {**ITEMS[1], "id": "a"}, {**ITEMS[2], "id": "a"}]
    result = run_evals_sync(data, [length_scorer()], concurrency=1)
    by_id = {i.item.id: i.scorer_results["length"] for i in result.items}
    assert set(by_id) == {"a", "a#2", "a#3"}
    assert by_id["a"].score == 0.5
    assert by_id["a#2"].status == "error"
    assert "duplicate item id 'a'" in by_id["a#2"].error.message
