"""run_evals with a store: streaming writes, resume, Ctrl-C / cancellation and crashes."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from scorekit import ConfigError, create_scorer
from scorekit.evals import EvalItem, run_evals, run_evals_sync
from scorekit.pipeline import Scorer, ScorerRunResult, StepContext
from scorekit.store import Store

from ..evalkit import failing_on, length_scorer, slow_scorer

REPO = Path(__file__).resolve().parents[2]
ITEMS = [{"id": n, "input": f"q{n}", "output": "x" * len(n)} for n in ("a", "bb", "ccc")]


def counting(scorer_id: str, calls: list[str], fail: frozenset[str] = frozenset()) -> Scorer:
    def score(ctx: StepContext) -> float:
        calls.append(ctx.run.output)
        if ctx.run.output in fail:
            raise RuntimeError("flaky")
        return 1.0

    return create_scorer(scorer_id, description="counts its calls").generate_score(score)


def test_resume_reruns_only_failed_pairs(store_db: str | Path) -> None:
    db = store_db
    first_calls: list[str] = []
    first = run_evals_sync(
        ITEMS,
        [length_scorer(), counting("flaky", first_calls, frozenset({"xx"}))],
        store=db,
        run_name="n",
    )
    assert first.summary.counts["flaky"] == {"ok": 2, "skipped": 0, "error": 1}
    assert sorted(first_calls) == ["x", "xx", "xxx"]

    calls: list[str] = []
    second = run_evals_sync(
        ITEMS,
        [length_scorer(), counting("flaky", calls)],
        store=db,
        resume=first.run_id[:8],
    )
    assert calls == ["xx"]
    assert second.run_id == first.run_id
    assert second.run_name == "n"
    assert second.resumed
    assert second.total_items == 3
    assert second.summary.counts["flaky"] == {"ok": 3, "skipped": 0, "error": 0}
    assert second.scores["length"] == pytest.approx(0.2)
    with Store(db) as store:
        rows = list(store.results(first.run_id))
        assert len(rows) == 6
        assert {r.status for r in rows} == {"ok"}
        run = store.get_run(first.run_id)
        assert run.status == "finished"
        assert run.totals["flaky"]["counts"] == {"ok": 3, "skipped": 0, "error": 0}


def test_resume_continues_items_never_reached_without_calling_the_target(
    store_db: str | Path,
) -> None:
    db = store_db
    asked: list[str] = []

    def target(question: str) -> str:
        asked.append(question)
        return question.upper()

    data = [{"id": d["id"], "input": d["input"]} for d in ITEMS]
    first = run_evals_sync(data[:2], [length_scorer()], target=target, store=db)
    assert asked == ["qa", "qbb"]
    asked.clear()
    resumed = run_evals_sync(data, [length_scorer()], target=target, store=db, resume=first.run_id)
    assert asked == ["qccc"]
    assert resumed.total_items == 3
    assert resumed.scores["length"] == pytest.approx((0.2 + 0.3 + 0.4) / 3)


def test_resume_needs_the_same_scorers(store_db: str | Path) -> None:
    db = store_db
    first = run_evals_sync(ITEMS, [length_scorer()], store=db)
    with pytest.raises(ConfigError, match="resume it with the same scorers"):
        run_evals_sync(ITEMS, [length_scorer("other")], store=db, resume=first.run_id)


async def test_cancelling_stores_what_finished(store_db: str | Path) -> None:
    db = store_db
    finished: list[str] = []
    enough = asyncio.Event()

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        finished.append(item.id)
        if len(finished) >= 6:
            enough.set()

    data = [{"id": str(n), "output": "o"} for n in range(200)]
    task = asyncio.create_task(
        run_evals(data, [slow_scorer(0.01)], store=db, concurrency=2, on_item_complete=on_item)
    )
    await enough.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with Store(db) as store:
        (run,) = store.list_runs()
        rows = list(store.results(run.id))
    assert run.status == "interrupted"
    assert run.verdict is None
    assert run.total_items == len(finished)
    assert sorted(r.item_id for r in rows) == sorted(finished)
    assert 6 <= len(rows) < 200


SCRIPT = """
import os, sys
from scorekit.evals import EvalInterrupted, run_evals_sync
from tests.evalkit import slow_scorer

def on_item(item, output, results):
    if item.id == "{signal_at}":
        print("ready", flush=True)
    if item.id == "{crash_at}":
        os._exit(3)

data = [{{"id": str(n), "output": "o"}} for n in range(2000)]
try:
    result = run_evals_sync(
        data, [slow_scorer(0.01)], store=sys.argv[1], concurrency={concurrency},
        on_item_complete=on_item,
    )
except EvalInterrupted as stopped:
    print("interrupted", stopped.result.total_items, stopped.result.status, flush=True)
    sys.exit(130)
print("done", result.total_items)
"""


def _script(tmp_path: Path, db: str | Path, **values: Any) -> list[str]:
    path = tmp_path / "job.py"
    defaults = {"signal_at": "none", "crash_at": "none", "concurrency": 4}
    path.write_text(textwrap.dedent(SCRIPT.format(**{**defaults, **values})))
    return [sys.executable, str(path), str(db)]


def test_ctrl_c_stops_cleanly_with_finished_items_stored(
    tmp_path: Path, store_db: str | Path
) -> None:
    process = subprocess.Popen(
        _script(tmp_path, store_db, signal_at="20"),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    word, total, status = out.split()
    assert (word, status) == ("interrupted", "interrupted")
    with Store(store_db) as store:
        (run,) = store.list_runs()
        stored = len(list(store.results(run.id)))
    assert run.status == "interrupted"
    assert run.total_items == int(total) == stored
    assert 20 <= stored < 2000


def test_a_crash_loses_at_most_the_items_in_flight(tmp_path: Path, store_db: str | Path) -> None:
    process = subprocess.run(
        _script(tmp_path, store_db, crash_at="30", concurrency=1),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
    )
    assert process.returncode == 3, process.stderr
    with Store(store_db) as store:
        (run,) = store.list_runs()
        stored = {r.item_id for r in store.results(run.id)}
    assert run.status == "running"  # nobody could mark it: resume it
    # items 0..29 finished well before the crash (10 ms each); item 30 was being written
    assert {str(n) for n in range(30)} <= stored <= {str(n) for n in range(31)}


def test_store_write_failure_stops_the_run(store_db: str | Path) -> None:
    from scorekit.errors import StoreError

    db = store_db
    store = Store(db)

    def broken(rows: Any, *, replace: bool = False) -> None:
        raise StoreError("disk full")

    store.write_results = broken  # type: ignore[method-assign]
    data = [{"id": str(n), "output": "o"} for n in range(50)]
    with pytest.raises(StoreError, match="disk full"):
        run_evals_sync(data, [slow_scorer(0.002)], store=store, concurrency=1)
    (run,) = store.list_runs()
    assert run.status == "failed"
    store.close()


def test_failing_scorer_rows_keep_the_cause(store_db: str | Path) -> None:
    db = store_db
    result = run_evals_sync(ITEMS, [failing_on({"xx"})], store=db)
    with Store(db) as store:
        errors = [r for r in store.results(result.run_id) if r.status == "error"]
    assert [(r.item_id, r.error["message"] if r.error else None) for r in errors] == [
        ("bb", "cannot score xx")
    ]
