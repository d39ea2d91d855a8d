"""The seams of ``scorekit.evals``: the per-item function, the executor protocol, the recorder."""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from scorekit import ConfigError
from scorekit.evals import (
    Executor,
    ItemJob,
    ItemTask,
    LocalExecutor,
    RunRecorder,
    run_evals,
    run_evals_sync,
    score_item,
)
from scorekit.evals.executor import Emit
from scorekit.items import EvalItem, ItemResult
from scorekit.scorers import build_scorer
from scorekit.store import Store
from scorekit.summary import ScoreSummary

from ..evalkit import failing_on, length_scorer

ITEMS = [
    {"id": "a", "input": "q1", "output": "abcde"},
    {"id": "b", "input": "q2", "output": "ab"},
    {"id": "c", "input": "q3", "output": "abcdefgh"},
]


class InOrderExecutor:
    """A real alternative executor: one item at a time, in data order, logging what it does."""

    def __init__(self) -> None:
        self.log: list[str] = []

    async def run(self, job: ItemJob, tasks: AsyncIterator[ItemTask], emit: Emit) -> None:
        async for task in tasks:
            self.log.append(f"score {task.item.id}")
            await emit(await job(task.item, task.done))
            self.log.append(f"emitted {task.item.id}")


async def test_score_item_runs_every_scorer_and_never_raises_for_the_item() -> None:
    item = EvalItem(id="x", input="q", output="ab", has_output=True)
    outcome = await score_item(item, [length_scorer(), failing_on({"ab"})])
    assert list(outcome.scorer_results) == ["length", "picky"]
    assert outcome.scorer_results["length"].score == 0.2
    assert outcome.scorer_results["picky"].status == "error"
    assert outcome.scorer_results["picky"].error is not None
    assert outcome.scorer_results["picky"].error.message == "cannot score ab"
    assert outcome.stored == frozenset()


async def test_score_item_keeps_stored_results_and_names_them() -> None:
    first = await score_item(EvalItem(id="x", output="abc", has_output=True), [length_scorer()])
    stored = first.scorer_results["length"]
    again = await score_item(
        EvalItem(id="x", output="abcdef", has_output=True),
        [length_scorer(), length_scorer("twin")],
        done={"length": stored},
    )
    assert again.scorer_results["length"] is stored
    assert again.scorer_results["twin"].score == 0.6
    assert again.stored == frozenset({"length"})
    assert [r.scorer_id for r in again.new_results] == ["twin"]


async def test_a_target_answers_items_without_output() -> None:
    job = ItemJob((length_scorer(),), target=lambda question: question * 3)
    outcome = await job(EvalItem(id="x", input="ab"))
    assert outcome.output == "ababab"
    assert outcome.scorer_results["length"].score == 0.6


def test_run_evals_takes_another_executor() -> None:
    executor = InOrderExecutor()
    assert isinstance(executor, Executor)
    result = run_evals_sync(ITEMS, [length_scorer()], executor=executor)
    assert executor.log == [
        "score a",
        "emitted a",
        "score b",
        "emitted b",
        "score c",
        "emitted c",
    ]
    assert result.summaries["length"].counts == {"ok": 3, "skipped": 0, "error": 0}
    assert result.scores["length"] == pytest.approx(0.5)


def test_concurrency_goes_to_the_executor_not_to_run_evals() -> None:
    with pytest.raises(ConfigError) as info:
        run_evals_sync(ITEMS, [length_scorer()], executor=LocalExecutor(2), concurrency=2)
    assert info.value.field == "concurrency"
    with pytest.raises(ConfigError) as info:
        run_evals_sync(ITEMS, [length_scorer()], executor=object())  # type: ignore[arg-type]
    assert info.value.field == "executor"
    with pytest.raises(ConfigError, match="concurrency must be an integer >= 1, got 0"):
        LocalExecutor(0)


async def test_an_error_in_emit_stops_the_local_executor() -> None:
    emitted: list[str] = []

    async def emit(outcome: object) -> None:
        emitted.append("x")
        raise RuntimeError("caller broke")

    async def tasks() -> AsyncIterator[ItemTask]:
        for n in range(100):
            yield ItemTask(EvalItem(id=str(n), output="ab", has_output=True))

    with pytest.raises(RuntimeError, match="caller broke"):
        await LocalExecutor(4).run(ItemJob((length_scorer(),)), tasks(), emit)  # type: ignore[arg-type]
    assert 1 <= len(emitted) <= 4


def test_the_verdict_fails_when_a_scorer_got_no_ok_result() -> None:
    result = run_evals_sync(ITEMS[1:2], [failing_on({"ab"}), length_scorer()])
    assert result.unmeasured == ["picky"]
    assert result.verdict == "failed"
    empty = run_evals_sync([], [length_scorer()])
    assert empty.total_items == 0
    assert empty.verdict == "failed"


async def test_a_recorder_stores_a_live_run_with_its_source(tmp_path: Path) -> None:
    scorer = length_scorer()
    summary = ScoreSummary(scorer.id)
    with RunRecorder(tmp_path / "live.db", source="LIVE") as recorder:
        recorder.start("00000000-0000-4000-8000-000000000001", scorers=[scorer], name="svc")
        for n, text in enumerate(["abcd", "ab"]):
            outcome = await score_item(
                EvalItem(id=f"call-{n}", output=text, has_output=True), [scorer]
            )
            summary.add(outcome.scorer_results[scorer.id])
            await recorder.record(outcome)
        status = recorder.finish("finished", total_items=2)
    assert status == "finished"
    with Store(tmp_path / "live.db") as store:
        [run] = store.list_runs()
        assert run.source == "LIVE"
        assert run.name == "svc"
        rows = list(store.results(run.id))
        assert [(r.item_id, r.score, r.source) for r in rows] == [
            ("call-0", 0.4, "LIVE"),
            ("call-1", 0.2, "LIVE"),
        ]
        stored = store.run_summaries(run)[scorer.id]
        assert (stored.counts, stored.mean) == (summary.counts, summary.mean)
        assert stored.mean == pytest.approx(0.3)


def test_a_recorder_refuses_an_unknown_source_and_recording_before_start(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        RunRecorder(tmp_path / "x.db", source="PROD")  # type: ignore[arg-type]
    assert info.value.field == "source"
    outcome = asyncio.run(
        score_item(EvalItem(id="a", output="ab", has_output=True), [length_scorer()])
    )
    with RunRecorder(tmp_path / "x.db") as recorder, pytest.raises(ConfigError, match="start"):
        asyncio.run(recorder.record(outcome))


async def test_run_evals_records_through_the_recorder_with_source_test(tmp_path: Path) -> None:
    result = await run_evals(ITEMS, [length_scorer()], store=tmp_path / "r.db")
    with Store(tmp_path / "r.db") as store:
        run = store.get_run(result.run_id)
        assert run.source == "TEST"
        assert {r.source for r in store.results(run.id)} == {"TEST"}


def test_a_partial_resume_summarises_what_the_store_holds(tmp_path: Path) -> None:
    # item b fails the first time; the resumed run is given only item c: b's error row stays
    db = tmp_path / "resume.db"
    first = run_evals_sync(ITEMS, [failing_on({"ab"})], store=db)
    assert first.summaries["picky"].counts == {"ok": 2, "skipped": 0, "error": 1}
    again = run_evals_sync(ITEMS[2:], [failing_on({"ab"})], store=db, resume=first.run_id)
    with Store(db) as store:
        stored = store.run_summaries(store.get_run(first.run_id))["picky"]
    assert again.summaries["picky"].counts == stored.counts == {"ok": 2, "skipped": 0, "error": 1}
    assert again.summaries["picky"].mean == stored.mean == 1.0
    assert again.total_items == 3


_JOB: ItemJob | None = None


def _install(job_bytes: bytes) -> None:
    global _JOB
    _JOB = pickle.loads(job_bytes)


def _score_in_worker(task: ItemTask) -> ItemResult:
    assert _JOB is not None
    return asyncio.run(_JOB(task.item, task.done))


class ProcessExecutor:
    """Scores items in a worker process: the job crosses once, then each item."""

    async def run(self, job: ItemJob, tasks: AsyncIterator[ItemTask], emit: Emit) -> None:
        context = multiprocessing.get_context("spawn")
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor(
            1, mp_context=context, initializer=_install, initargs=(pickle.dumps(job),)
        ) as pool:
            async for task in tasks:
                await emit(await loop.run_in_executor(pool, _score_in_worker, task))


def test_an_executor_can_score_items_in_another_process(tmp_path: Path) -> None:
    scorers = [build_scorer("content-similarity"), build_scorer("faithfulness", model="test/j")]
    data = [
        {"id": "a", "input": "q", "output": "the cat sat", "ground_truth": "the cat sat down",
         "context": ["the cat sat down"]},
        {"id": "b", "input": "q", "output": "dogs bark", "ground_truth": "a cat sat",
         "context": ["a cat sat"]},
    ]  # fmt: skip
    here = run_evals_sync(data, scorers)
    there = run_evals_sync(data, scorers, executor=ProcessExecutor(), store=tmp_path / "p.db")
    for sid in here.summaries:
        assert there.summaries[sid].counts == here.summaries[sid].counts
        # scores are kept in completion order, which threads and processes do not fix
        assert sorted(there.summaries[sid].scores) == sorted(here.summaries[sid].scores)
    with Store(tmp_path / "p.db") as store:
        assert len(list(store.results(there.run_id))) == 4


def test_a_huge_concurrency_costs_nothing_until_items_are_in_flight() -> None:
    # one task per item in flight, never one per unit of concurrency
    alive: list[int] = []

    def on_item(item: object, output: object, results: object) -> None:
        alive.append(len(asyncio.all_tasks()))

    result = run_evals_sync(ITEMS, [length_scorer()], concurrency=10**9, on_item_complete=on_item)
    assert result.summaries["length"].counts["ok"] == 3
    assert max(alive) <= len(ITEMS) + 2  # the items, the run itself, and the loop's own


def test_scorers_given_as_a_generator_are_kept_and_odd_types_refused() -> None:
    result = run_evals_sync(ITEMS, (s for s in [length_scorer()]))
    assert result.summaries["length"].counts["ok"] == 3
    for bad in (5, "length", {"length": length_scorer()}):
        with pytest.raises(ConfigError) as info:
            run_evals_sync(ITEMS, bad)  # type: ignore[arg-type]
        assert info.value.field == "scorers"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"thresholds": [("length", 0.5)]}, "thresholds"),
        ({"on_item_complete": "print"}, "on_item_complete"),
        ({"config": "abc"}, "config"),
        ({"store": 5}, "store"),
        ({"executor": LocalExecutor}, "executor"),
    ],
)
def test_bad_run_options_name_the_field(options: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        run_evals_sync(ITEMS, [length_scorer()], **options)
    assert info.value.field == field


def test_the_item_record_checks_its_fields_and_sees_its_output(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        EvalItem(id=5, output="x")  # type: ignore[arg-type]
    assert info.value.field == "id"
    assert EvalItem(id="x", output="abc").has_output
    outcome = asyncio.run(score_item(EvalItem(id="x", output="abc"), [length_scorer()]))
    assert outcome.scorer_results["length"].score == pytest.approx(0.3)
    data = [{"id": "a", "output": "ab", "metadata": "not a mapping"}, *ITEMS[1:]]
    result = run_evals_sync(data, [length_scorer()], store=tmp_path / "m.db")
    assert result.summaries["length"].counts == {"ok": 2, "skipped": 0, "error": 1}
    with Store(tmp_path / "m.db") as store:
        [bad] = store.results(result.run_id, statuses=("error",))
    assert bad.error is not None
    assert "metadata must be a mapping" in bad.error["message"]


def test_a_resume_keeps_the_stored_options_and_thresholds(tmp_path: Path) -> None:
    db = tmp_path / "resume.db"
    data = [{"id": "a", "input": "night", "output": "nacht"}]
    limit = {"content-similarity-scorer": 0.9}
    first = run_evals_sync(data, [build_scorer("content-similarity")], store=db, thresholds=limit)
    assert first.verdict == "failed"
    with pytest.raises(ConfigError) as info:
        run_evals_sync(
            data, [build_scorer("content-similarity", scale=10)], store=db, resume=first.run_id
        )
    assert info.value.field == "resume"
    assert "scale" in str(info.value)
    with pytest.raises(ConfigError) as info:
        run_evals_sync(
            data, [build_scorer("content-similarity")], store=db, resume=first.run_id,
            thresholds={"content-similarity-scorer": 0.1},
        )  # fmt: skip
    assert info.value.field == "thresholds"
    again = run_evals_sync(
        data, [build_scorer("content-similarity")], store=db, resume=first.run_id
    )
    assert again.thresholds == {"content-similarity-scorer": 0.9}
    assert again.verdict == "failed"


async def test_a_recorder_finishes_once_with_a_real_status(tmp_path: Path) -> None:
    scorer = length_scorer()
    with RunRecorder(tmp_path / "f.db") as recorder:
        recorder.start("00000000-0000-4000-8000-000000000002", scorers=[scorer])
        stranger = await score_item(EvalItem(id="a", output="ab"), [length_scorer("other")])
        with pytest.raises(ConfigError) as info:
            await recorder.record(stranger)
        assert info.value.field == "scorer_results"
        for status, total in (("bogus", 1), ("running", 1), ("finished", -5)):
            with pytest.raises(ConfigError):
                recorder.finish(status, total_items=total)  # type: ignore[arg-type]
        assert recorder.finish("finished", total_items=0) == "finished"
        with pytest.raises(ConfigError, match="already finished"):
            recorder.finish("failed", total_items=0)
