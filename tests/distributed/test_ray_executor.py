"""run_evals on a real local Ray cluster (tests/distributed/conftest.py starts it).

What a Ray run must match, item by item, is the local executor's run of the same scorers on
the same data. The judge tests use the scripted server on 127.0.0.1 (in this process, its
own threads), the stores real SQLite files.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections import Counter
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scorekit import create_scorer
from scorekit.errors import ConfigError
from scorekit.evals import EvalRunResult, LocalExecutor, run_evals
from scorekit.judge.spec import JudgeSpec
from scorekit.pipeline import Scorer
from scorekit.scorers import build_scorer
from scorekit.scorers.registry import ScorerSpec
from scorekit.store import Store
from tests.distributed.factories import CallLog, echo_target, judge_reply
from tests.servers.scripted_openai import ScriptedServer

ray_module = pytest.importorskip("ray", reason="Ray is not installed: pip install 'scorekit[ray]'")

from scorekit.distributed import RayExecutor  # noqa: E402

CODE_SCORERS = ("content-similarity", "textual-difference", "keyword-coverage")
JUDGED = "tests.distributed.factories:create_judged_scorer"
KEY_ENV = {"env_vars": {"OPENAI_API_KEY": "test-key"}}


def _items(count: int, *, with_output: bool = True) -> list[dict[str, Any]]:
    rows = []
    for n in range(count):
        row: dict[str, Any] = {
            "id": f"item-{n}",
            "input": f"question {n} about cats",
            "ground_truth": f"the cat sat on mat {n % 7}",
        }
        if with_output and n % 5:
            row["output"] = f"answer {n}: a cat sat on the mat {n % 3}"
        rows.append(row)
    return rows


def _by_item(result: EvalRunResult) -> dict[str, dict[str, tuple[Any, ...]]]:
    """item id → scorer id → (status, score, reason, output); asserting no item twice."""
    seen = Counter(outcome.item.id for outcome in result.items)
    assert [item for item, n in seen.items() if n > 1] == []
    return {
        outcome.item.id: {
            sid: (r.status, r.score, r.reason, r.output)
            for sid, r in outcome.scorer_results.items()
        }
        for outcome in result.items
    }


def _stored_pairs(db: Path, run_id: str) -> Counter[tuple[str, str]]:
    store = Store(db)
    try:
        return Counter((r.item_id, r.scorer_id) for r in store.results(run_id, light=True))
    finally:
        store.close()


@pytest.fixture
def judge_server() -> Iterator[ScriptedServer]:
    with ScriptedServer(judge_reply, latency=0.05) as server:
        yield server


def _judged(server: ScriptedServer, *, concurrency: int, reason: bool = True) -> Scorer:
    """The judged scorer on the scripted server (spec: base URL, concurrency, no cache)."""
    os.environ.setdefault("OPENAI_API_KEY", "test-key")  # the driver's own judge (local runs)
    judge = JudgeSpec(
        "openai/scripted",
        None,
        {"base_url": server.base_url, "concurrency": concurrency, "cache": False},
    )
    return ScorerSpec(JUDGED, {"reason": reason}, judge).build()


def _run(coroutine: Coroutine[Any, Any, EvalRunResult], timeout: float = 90) -> EvalRunResult:
    """Run ``coroutine`` to its end, failing (not hanging) past ``timeout`` seconds."""

    async def bounded() -> EvalRunResult:
        return await asyncio.wait_for(coroutine, timeout)

    return asyncio.run(bounded())


# -- refused before anything starts --------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"workers": 0}, "workers"),
        ({"concurrency": True}, "concurrency"),
        ({"batch_size": 0}, "batch_size"),
        ({"judge_concurrency": 0}, "judge_concurrency"),
        ({"num_cpus": 0}, "num_cpus"),
        ({"max_retries": -1}, "max_retries"),
        ({"address": " "}, "ray_address"),
    ],
)
def test_bad_options_name_their_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        RayExecutor(**options)
    assert caught.value.field == field


def test_a_scorer_without_a_spec_is_refused_before_anything_starts() -> None:
    bare = create_scorer("bare-length", description="d").generate_score(lambda ctx: 1.0)
    executor = RayExecutor(workers=1)
    with pytest.raises(ConfigError, match="scorer 'bare-length' has no spec") as caught:
        _run(run_evals(_items(3), [build_scorer("content-similarity"), bare], executor=executor))
    assert caught.value.field == "scorers"
    assert executor.stats.workers == 0  # no worker was started


def test_a_target_that_does_not_pickle_is_refused(ray_cluster: Any) -> None:
    import threading

    lock = threading.Lock()

    def target(question: str) -> str:
        with lock:
            return question

    with pytest.raises(ConfigError, match="the target cannot be sent to Ray workers") as caught:
        asyncio.run(
            run_evals(
                _items(2, with_output=False),
                [build_scorer("content-similarity")],
                target=target,
                executor=RayExecutor(workers=1),
            )
        )
    assert caught.value.field == "target"


def test_a_worker_that_cannot_build_the_scorers_is_a_config_error(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a factory in a module only the driver can import (its folder is on this process's path,
    # not on the workers'): they say so before any item is sent
    (tmp_path / "driver_only_scorers.py").write_text(
        "from tests.distributed.factories import create_length_scorer\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    scorer = build_scorer("driver_only_scorers:create_length_scorer")
    executor = RayExecutor(workers=1)
    with pytest.raises(
        ConfigError, match="a Ray worker could not build the run's scorers"
    ) as caught:
        _run(run_evals(_items(2), [scorer], executor=executor))
    assert "driver_only_scorers" in str(caught.value)
    assert caught.value.field == "scorers"
    assert executor.worker_pids == []  # the worker that failed was not kept


# -- a Ray run equals the local one --------------------------------------------------------


def test_code_scorers_and_a_target_equal_the_local_run(ray_cluster: Any, tmp_path: Path) -> None:
    scorers = [build_scorer(name) for name in CODE_SCORERS]
    data = _items(300)  # every fifth item has no output: the target answers it
    local = _run(run_evals(data, scorers, target=echo_target, executor=LocalExecutor(4)))
    executor = RayExecutor(workers=2, concurrency=4, batch_size=16)
    db = tmp_path / "ray.db"
    distributed = _run(run_evals(data, scorers, target=echo_target, executor=executor, store=db))
    assert len(distributed.items) == 300
    assert _by_item(distributed) == _by_item(local)
    assert distributed.scores == local.scores
    assert executor.stats.workers == 2 and executor.stats.replaced == 0
    assert executor.stats.judge_slots is None  # no judge: no slot coordinator
    stored = _stored_pairs(db, distributed.run_id)
    assert len(stored) == 900 and set(stored.values()) == {1}


def test_a_judge_scorer_equals_the_local_run_and_the_cluster_limit_holds(
    ray_cluster: Any, judge_server: ScriptedServer
) -> None:
    # each worker's judges allow 16 in flight: without the cluster's slots, 2 workers would
    # send up to 32 at once; the cluster limit is 3
    scorer = _judged(judge_server, concurrency=16)
    data = _items(60)
    local = _run(run_evals(data, [scorer], executor=LocalExecutor(16)))
    assert judge_server.max_in_flight == 16
    judge_server.reset()  # counts from zero; reset() also drops the replies and latency
    judge_server.default, judge_server.latency = judge_reply, 0.05
    executor = RayExecutor(
        workers=2, concurrency=16, batch_size=8, judge_concurrency=3, runtime_env=KEY_ENV
    )
    distributed = _run(run_evals(data, [scorer], executor=executor))
    assert _by_item(distributed) == _by_item(local)
    # every fifth item has no output (an error, as locally); the others a score and a reason
    assert distributed.summary.counts[scorer.id] == local.summary.counts[scorer.id]
    assert (distributed.summary.counts[scorer.id]["ok"], len(judge_server.requests)) == (48, 96)
    assert judge_server.max_in_flight <= 3
    slots = executor.stats.judge_slots
    assert slots is not None
    [model] = slots["models"].values()
    assert (model["mode"], model["ceiling"], model["quotas"]) == ("quotas", 3, [2, 1])


def test_without_judge_concurrency_the_judges_own_limit_holds_for_the_cluster(
    ray_cluster: Any, judge_server: ScriptedServer
) -> None:
    scorer = _judged(judge_server, concurrency=2, reason=False)
    executor = RayExecutor(workers=2, concurrency=8, batch_size=4, runtime_env=KEY_ENV)
    result = _run(run_evals(_items(30), [scorer], executor=executor))
    assert result.summary.counts[scorer.id]["ok"] == 24
    assert judge_server.max_in_flight <= 2
    slots = executor.stats.judge_slots
    assert slots is not None
    [model] = slots["models"].values()
    assert (model["mode"], model["ceiling"], model["quotas"]) == ("quotas", 2, [1, 1])


def test_fewer_judge_slots_than_workers_are_leased_per_request(
    ray_cluster: Any, judge_server: ScriptedServer
) -> None:
    scorer = _judged(judge_server, concurrency=8, reason=False)
    executor = RayExecutor(
        workers=2, concurrency=8, batch_size=4, judge_concurrency=1, runtime_env=KEY_ENV
    )
    result = _run(run_evals(_items(20), [scorer], executor=executor))
    assert result.summary.counts[scorer.id]["ok"] == 16
    assert judge_server.max_in_flight == 1
    slots = executor.stats.judge_slots
    assert slots is not None
    assert (slots["leases_granted"], slots["most_leased"], slots["leased"]) == (16, 1, 0)
    assert [m["mode"] for m in slots["models"].values()] == ["leases"]


# -- faults --------------------------------------------------------------------------------


def test_a_killed_worker_loses_nothing_and_duplicates_nothing(
    ray_cluster: Any, tmp_path: Path
) -> None:
    log = CallLog(tmp_path / "calls.jsonl", delay=0.03)
    scorers = [build_scorer(name) for name in CODE_SCORERS]
    data = _items(160, with_output=False)  # every item goes through the (slow) target
    killed: list[int] = []

    def kill_one(item: Any, output: Any, results: Any) -> None:
        if not killed and len(log.calls()) >= 20:
            victim = log.calls()[-1]["pid"]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    executor = RayExecutor(workers=2, concurrency=4, batch_size=8)
    db = tmp_path / "killed.db"
    result = _run(
        run_evals(data, scorers, target=log, executor=executor, store=db, on_item_complete=kill_one)
    )
    assert len(killed) == 1
    assert executor.stats.replaced == 1 and executor.stats.retried_batches >= 1
    expected = _run(run_evals(data, scorers, target=echo_target))
    assert _by_item(result) == _by_item(expected)  # every item once, the same results
    stored = _stored_pairs(db, result.run_id)
    assert len(stored) == 480 and set(stored.values()) == {1}
    assert result.status == "finished"


def test_a_killed_worker_gives_its_judge_slots_back(
    ray_cluster: Any, judge_server: ScriptedServer
) -> None:
    # the limit is 2 and the killed worker held slots: were they not freed, the run would
    # hang, with both slots held by a dead process
    scorer = _judged(judge_server, concurrency=8, reason=False)
    killed: list[int] = []
    executor = RayExecutor(
        workers=2, concurrency=8, batch_size=4, judge_concurrency=2, runtime_env=KEY_ENV
    )

    def kill_one(item: Any, output: Any, results: Any) -> None:
        if not killed:
            killed.append(executor.worker_pids[0])
            os.kill(killed[0], signal.SIGKILL)

    result = _run(run_evals(_items(40), [scorer], executor=executor, on_item_complete=kill_one))
    assert len(killed) == 1
    assert result.summary.counts[scorer.id]["ok"] == 32
    assert executor.stats.replaced == 1
    assert judge_server.max_in_flight <= 2
    slots = executor.stats.judge_slots
    assert slots is not None
    [model] = slots["models"].values()
    assert model["quotas"] == [1, 1]  # the new worker took the lost one's quota


def test_cancel_stops_the_cluster_stores_what_finished_and_resume_completes(
    ray_cluster: Any, tmp_path: Path
) -> None:
    log = CallLog(tmp_path / "calls.jsonl", delay=0.2)
    scorer = build_scorer("content-similarity")
    data = _items(40, with_output=False)
    db = tmp_path / "cancel.db"
    executor = RayExecutor(workers=2, concurrency=2, batch_size=4)
    emitted: list[Any] = []
    pids: list[int] = []

    async def run_then_cancel() -> None:
        six = asyncio.Event()

        def count(item: Any, output: Any, results: Any) -> None:
            emitted.append(item)
            if len(emitted) == 6:
                pids.extend(executor.worker_pids)
                six.set()

        task = asyncio.ensure_future(
            run_evals(
                data,
                [scorer],
                target=log,
                executor=executor,
                store=db,
                on_item_complete=count,
                run_id="r-cancel",
            )
        )
        await asyncio.wait_for(six.wait(), 90)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run_then_cancel())
    assert len(pids) == 2
    store = Store(db)
    try:
        run = store.get_run("r-cancel")
        stored = store.item_count("r-cancel")
    finally:
        store.close()
    assert run.status == "interrupted"
    assert stored == len(emitted)  # what arrived before the cancel is stored, nothing lost
    assert 6 <= stored < 40
    deadline = time.monotonic() + 20
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(pids) == []  # the workers were killed: the cluster stopped scoring
    called_before = {c["input"] for c in log.calls()}
    assert len(called_before) < 40

    Path(log.path).unlink()
    again_executor = RayExecutor(workers=2, concurrency=2, batch_size=4)
    resumed = _run(
        run_evals(data, [scorer], target=log, executor=again_executor, store=db, resume="r-cancel")
    )
    assert resumed.status == "finished" and resumed.total_items == 40
    first = {item.input for item in emitted}
    again = [c["input"] for c in log.calls()]
    assert sorted(again) == sorted(row["input"] for row in data if row["input"] not in first)
    pairs = _stored_pairs(db, "r-cancel")
    assert len(pairs) == 40 and set(pairs.values()) == {1}


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 0)
            alive.append(pid)
    return alive


# -- the command line ----------------------------------------------------------------------


def test_the_run_command_runs_on_ray(ray_cluster: Any, tmp_path: Path) -> None:
    from scorekit.cli import app

    data = tmp_path / "data.jsonl"
    rows = _items(50)
    data.write_text(
        "\n".join(json.dumps({**r, "output": r.get("output", "none")}) for r in rows),
        encoding="utf-8",
    )
    db = tmp_path / "cli.db"
    outcome = CliRunner().invoke(
        app,
        [
            "run",
            str(data),
            "-s",
            "content-similarity",
            "--db",
            str(db),
            "--executor",
            "ray",
            "--workers",
            "2",
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    assert "50 items" in outcome.output
    store = Store(db)
    try:
        run = store.list_runs()[0]
        assert store.item_count(run.id) == 50
    finally:
        store.close()
