"""The scoring process: scorers with a spec are scored in a child process, not the app's."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorekit.errors import ConfigError
from scorekit.live import LiveScoring, request_context
from scorekit.live.process import ProcessWorker
from scorekit.live.worker import LiveWorker
from scorekit.pipeline import Scorer
from scorekit.scorers import build_scorer
from scorekit.store import Store
from tests.evalkit import length_scorer
from tests.live.child_scorers import MODULE

ROOT = Path(__file__).resolve().parents[2]


def child_scorer(factory: str, **options: Any) -> Scorer:
    return build_scorer(f"{MODULE}:{factory}", **options)


def wait_for(condition: Callable[[], bool], limit_s: float = 30.0) -> bool:
    """Poll ``condition`` until it holds (or ``limit_s`` passes: then False)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def rows_of(db: Path) -> list[Any]:
    with Store(db) as store:
        return [r for run in store.list_runs(source="LIVE") for r in store.results(run.id)]


def test_scored_and_stored_by_the_child_process(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "live.db"
    live = LiveScoring(db, service="rag-api")
    answer = live.wrap(
        lambda q: q,
        [child_scorer("create_length_scorer"), child_scorer("create_picky_scorer")],
        entity="answer",
    )
    [worker] = live.workers
    assert isinstance(worker, ProcessWorker)
    with caplog.at_level(logging.WARNING, logger="scorekit.live"):
        with request_context({"tenant": "acme", "api_key": "sk-1"}):
            assert answer("bad") == "bad"
        assert answer("good") == "good"
        assert live.flush(60)
        assert wait_for(lambda: any("picky failed" in m for m in caplog.messages))
    assert worker.pid is not None and worker.pid != os.getpid()
    stats = live.close(30)
    assert (stats.calls, stats.queued, stats.scored, stats.failed) == (2, 2, 3, 1)
    assert (stats.dropped, stats.pending, stats.abandoned, stats.lost) == (0, 0, 0, 0)
    rows = sorted(rows_of(db), key=lambda r: (r.output, r.scorer_id))
    assert [(r.output, r.scorer_id, r.status, r.score) for r in rows] == [
        ("bad", "length", "ok", 0.3),
        ("bad", "picky", "error", None),
        ("good", "length", "ok", 0.4),
        ("good", "picky", "ok", 1.0),
    ]
    assert rows[1].error["type"] == "RuntimeError"
    assert {r.source for r in rows} == {"LIVE"} and {r.entity_id for r in rows} == {"answer"}
    assert rows[0].request_context == {"tenant": "acme"}
    assert any("cannot score bad" in m for m in caplog.messages)


def test_which_worker_scores_a_function(tmp_path: Path) -> None:
    live = LiveScoring(tmp_path / "live.db", service="svc")
    live.wrap(lambda q: q, [length_scorer()])  # no spec: the thread
    assert [type(w) for w in live.workers] == [LiveWorker]
    live.wrap(lambda q: q, [child_scorer("create_length_scorer")])
    assert [type(w) for w in live.workers] == [LiveWorker, ProcessWorker]
    live.close(30)
    strict = LiveScoring(tmp_path / "strict.db", service="svc", worker="process")
    with pytest.raises(ConfigError, match="length have no spec") as caught:
        strict.wrap(lambda q: q, [length_scorer()])
    assert caught.value.field == "worker"
    strict.close(5)
    threaded = LiveScoring(tmp_path / "thread.db", service="svc", worker="thread")
    threaded.wrap(lambda q: q, [child_scorer("create_length_scorer")])
    assert [type(w) for w in threaded.workers] == [LiveWorker]
    threaded.close(5)
    with pytest.raises(ConfigError) as bad:
        LiveScoring(tmp_path / "x.db", service="svc", worker="fork")  # type: ignore[arg-type]
    assert bad.value.field == "worker"


def test_values_that_do_not_pickle_are_sent_as_stored(tmp_path: Path) -> None:
    class Answer:  # a local class: its instances do not pickle
        def __repr__(self) -> str:
            return "Answer(42)"

    db = tmp_path / "live.db"
    live = LiveScoring(db, service="svc")
    answer = live.wrap(lambda q: Answer(), [child_scorer("create_length_scorer")])
    assert isinstance(answer("q"), Answer)
    stats = live.close(30)
    assert (stats.scored, stats.failed) == (1, 0)
    [row] = rows_of(db)
    assert (row.output, row.score) == ("Answer(42)", 1.0)


def test_a_crashed_process_is_counted_and_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live = LiveScoring(tmp_path / "live.db", service="svc")
    answer = live.wrap(lambda q: q, [child_scorer("create_crashing_scorer")])
    with caplog.at_level(logging.ERROR, logger="scorekit.live"):
        assert answer("fine") == "fine"
        assert live.flush(60)
        assert answer("crash") == "crash"  # the child ends itself while scoring this call
        assert wait_for(lambda: live.stats().lost == 1)
    assert answer("after") == "after"  # the app goes on; the call is dropped and counted
    assert not live.flush(5)
    stats = live.close(5)
    assert (stats.calls, stats.queued, stats.scored, stats.lost) == (3, 2, 1, 1)
    assert (stats.dropped, stats.pending, stats.abandoned) == (1, 0, 0)
    assert any("exited unasked (code 3): 1 calls lost" in m for m in caplog.messages)


def test_close_with_a_timeout_terminates_the_child(tmp_path: Path) -> None:
    live = LiveScoring(tmp_path / "live.db", service="svc", concurrency=1, scorer_timeout=None)
    answer = live.wrap(lambda q: q, [child_scorer("create_blocking_scorer", delay_s=120.0)])
    for i in range(3):
        answer(f"q{i}")
    [worker] = live.workers
    assert isinstance(worker, ProcessWorker)
    assert wait_for(lambda: worker.pid is not None)
    child = worker._child
    assert child is not None
    assert not live.flush(1.0)  # one call blocks its thread for 120 s, two wait
    stats = live.close(0.5)
    assert child.poll() is not None  # ended, not left behind
    assert (stats.scored, stats.failed, stats.abandoned, stats.pending) == (0, 0, 3, 0)
    assert rows_of(tmp_path / "live.db") == []


EXIT_APP = """
from scorekit.live import LiveScoring
from scorekit.scorers import build_scorer

live = LiveScoring({db!r}, service="exit-app")
length = build_scorer("tests.live.child_scorers:create_length_scorer")

@live.score([length], entity="echo")
def echo(text):
    return text

for i in range(20):
    echo("x" * (i % 10))
print(type(live.workers[0]).__name__)
# no flush, no close: the interpreter's exit must have the child score and store the calls
"""


def test_exit_has_the_process_score_what_is_queued(tmp_path: Path) -> None:
    db = tmp_path / "exit.db"
    script = tmp_path / "app.py"
    script.write_text(textwrap.dedent(EXIT_APP.format(db=str(db))))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ProcessWorker"
    with Store(db) as store:
        [run] = store.list_runs(source="LIVE")
        rows = list(store.results(run.id))
    assert (run.status, run.total_items, len(rows)) == ("finished", 20, 20)
    assert sorted(r.score for r in rows) == sorted((i % 10) / 10 for i in range(20))
