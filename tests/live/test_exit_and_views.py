"""Exit flushes live scoring; the CLI lists, shows and reports live runs; old databases migrate."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.store import Store

APP = """
import asyncio
from scorekit import create_scorer
from scorekit.live import LiveScoring

async def slow(ctx):
    await asyncio.sleep(0.01)
    return len(ctx.run.output) / 10

length = create_scorer("length", description="").generate_score(slow)
live = LiveScoring({db!r}, service="exit-app", concurrency=2)

@live.score([length], entity="echo")
def echo(text):
    return text

for i in range(20):
    echo("x" * (i % 10))
print("returned")
# no flush, no close: the interpreter's exit must score and store what is queued
"""


def test_exit_scores_and_stores_what_is_queued(tmp_path: Path) -> None:
    db = tmp_path / "exit.db"
    script = tmp_path / "app.py"
    script.write_text(textwrap.dedent(APP.format(db=str(db))))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "returned"
    with Store(db) as store:
        [run] = store.list_runs(source="LIVE")
        rows = list(store.results(run.id))
    assert (run.status, run.total_items, len(rows)) == ("finished", 20, 20)
    assert sorted(r.score for r in rows) == sorted((i % 10) / 10 for i in range(20))
    assert {r.entity_id for r in rows} == {"echo"}


def make_runs(db: Path) -> str:
    from scorekit.evals import run_evals_sync
    from scorekit.live import LiveScoring
    from tests.evalkit import length_scorer

    run_evals_sync([{"input": "q", "output": "dataset"}], [length_scorer()], store=db)
    live = LiveScoring(db, service="svc")
    answer = live.wrap(lambda q: q + "!", [length_scorer()], entity="answer")
    for question in ("hello", "hi"):
        answer(question)
    live.close(10)
    with Store(db) as store:
        [run] = store.list_runs(source="LIVE")
    return run.id


def test_runs_source_show_and_report_read_live_runs(tmp_path: Path) -> None:
    db = tmp_path / "views.db"
    live_id = make_runs(db)
    runner = CliRunner()
    listed = runner.invoke(app, ["runs", "--db", str(db), "--source", "live"])
    assert listed.exit_code == 0, listed.output
    assert live_id[:8] in listed.output and "length=0.4500" in listed.output
    assert "svc" in listed.output and listed.output.count("finished") == 1
    [live_row] = [line for line in listed.output.splitlines() if live_id[:8] in line]
    with Store(db) as store:
        name = store.get_run(live_id).name
    assert [cell.strip() for cell in live_row.split("│")[1:4]] == [live_id[:8], name, "LIVE"]
    everything = runner.invoke(app, ["runs", "--db", str(db)])
    assert everything.output.count("finished") == 2
    tests_only = runner.invoke(app, ["runs", "--db", str(db), "--source", "TEST"])
    assert live_id[:8] not in tests_only.output and tests_only.output.count("finished") == 1
    bad = runner.invoke(app, ["runs", "--db", str(db), "--source", "prod"])
    assert bad.exit_code == 2 and "--source must be live, trace or test" in bad.output
    shown = runner.invoke(app, ["show", live_id[:8], "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "2 items" in shown.output and "0.4500" in shown.output
    assert "status finished · verdict — · source LIVE · started" in shown.output
    page = tmp_path / "live.html"
    reported = runner.invoke(app, ["report", live_id, "--db", str(db), "-o", str(page)])
    assert reported.exit_code == 0, reported.output
    html = page.read_text()
    assert "hello!" in html and "hi!" in html


def test_an_older_database_gets_the_origin_columns_and_indexes(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    Store(db).close()
    new = ["entity_id", "entity_type", "entity", "call_run_id", "trace_id", "span_id"]
    new += ["thread_id", "resource_id"]
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX ix_results_trace_span")
        for column in new:
            conn.execute(f"ALTER TABLE results DROP COLUMN {column}")
    Store(db).close()
    with sqlite3.connect(db) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(results)")]
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(results)")}
    assert columns[-len(new) :] == new
    assert "ix_results_trace_span" in indexes
