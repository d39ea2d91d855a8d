"""PostgreSQL as the store: the driver extra, text it cannot hold, many writers, crash and resume.

The rest of tests/store runs on both backends through the ``store_db`` fixture
(tests/pgserver.py); these are the cases PostgreSQL adds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.errors import StoreError
from scorekit.evals import run_evals_sync
from scorekit.store import Store

from ..evalkit import failing_on, length_scorer
from ..pgserver import plain_query

REPO = Path(__file__).resolve().parents[2]
EXTRA = "pip install 'scorekit[postgres]'"


def test_a_postgresql_url_without_the_driver_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` now fails
    url = "postgresql://user:secret@127.0.0.1:1/db"
    for form in (url, url.replace("postgresql://", "postgresql+psycopg://")):
        with pytest.raises(StoreError) as caught:
            Store(form)
        assert str(caught.value) == (
            f"{form.replace('secret', '***')}: a PostgreSQL database needs the psycopg 3 "
            f"driver, which is not installed: {EXTRA}"
        )
        assert caught.value.url == form.replace("secret", "***")
    with pytest.raises(StoreError, match=r"pip install 'scorekit\[postgres\]'"):
        run_evals_sync([{"id": "a", "output": "x"}], [length_scorer()], store=url)
    listed = CliRunner().invoke(app, ["runs", "--db", url])
    assert listed.exit_code == 2
    assert EXTRA in listed.stderr
    assert "secret" not in listed.stderr
    from scorekit.view.database import ViewDatabase

    with pytest.raises(StoreError, match=r"pip install 'scorekit\[postgres\]'"):
        ViewDatabase(url)


def test_both_url_forms_name_the_same_database(postgres_url: str) -> None:
    assert postgres_url.startswith("postgresql://")
    result = run_evals_sync([{"id": "a", "output": "abc"}], [length_scorer()], store=postgres_url)
    with Store(postgres_url.replace("postgresql://", "postgresql+psycopg://")) as store:
        assert store.url.startswith("postgresql+psycopg://")
        (row,) = store.results(result.run_id)
    assert (row.item_id, row.score) == ("a", pytest.approx(0.3))


def test_long_ids_nul_characters_and_times_round_trip(store_db: str | Path) -> None:
    from scorekit import create_scorer

    def reason(ctx: object) -> str:
        return "before\x00after"

    scorer = (
        create_scorer("nul", description="a reason with a NUL character")
        .generate_score(lambda ctx: 1.0)
        .generate_reason(reason)
    )
    long_id = "i" * 300  # wider than the 200 characters a VARCHAR(200) would take
    item = {"id": long_id, "output": "o\x00k", "metadata": {"note": "m\x00n"}}
    result = run_evals_sync([item], [scorer], store=store_db, run_name="n" * 300)
    with Store(store_db) as store:
        (row,) = store.results(result.run_id)
        run = store.get_run(result.run_id)
    assert row.item_id == long_id
    assert row.reason == "before\\x00after"  # text columns: NUL as \x00 on both backends
    assert row.output == "o\x00k"  # JSON keeps it
    assert row.metadata == {"note": "m\x00n"}
    assert run.name == "n" * 300
    # the server's time zone is not UTC (tests/pgserver.py): times come back in UTC
    assert run.started_at.utcoffset() is not None
    assert run.started_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert row.created_at.tzinfo is not None
    assert row.created_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert run.started_at <= row.created_at <= run.finished_at  # type: ignore[operator]


WRITER = """
import sys
from scorekit.evals import run_evals_sync
from tests.evalkit import failing_on, length_scorer

n = int(sys.argv[2])
data = [{"id": f"p{n}-{i}", "output": "x" * (i % 10)} for i in range(400)]
result = run_evals_sync(
    data, [length_scorer(), failing_on({"xxx"})], store=sys.argv[1], run_name=f"writer {n}",
    concurrency=8,
)
print(result.run_id, result.total_items, flush=True)
"""


def test_three_processes_write_runs_into_one_database_at_once(
    tmp_path: Path, store_db: str | Path
) -> None:
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(WRITER))
    # a fresh database: the three also race to create the tables
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), str(store_db), str(n)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={"PYTHONPATH": str(REPO), "PATH": ""},
        )
        for n in range(3)
    ]
    printed = {}
    for n, writer in enumerate(writers):
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
        assert err == ""
        run_id, total = out.split()
        assert total == "400"
        printed[n] = run_id
    with Store(store_db) as store:
        stored = {run.name: run for run in store.list_runs()}
        assert sorted(stored) == ["writer 0", "writer 1", "writer 2"]
        for n, run_id in printed.items():
            run = stored[f"writer {n}"]
            assert (run.id, run.status, run.total_items) == (run_id, "finished", 400)
            rows = list(store.results(run_id, light=True))
            assert len(rows) == 800
            pairs = {(r.item_id, r.scorer_id) for r in rows}
            assert pairs == {(f"p{n}-{i}", sid) for i in range(400) for sid in ("length", "picky")}
            assert run.totals["picky"]["counts"] == {"ok": 360, "skipped": 0, "error": 40}
    assert plain_query(store_db, "select count(*) from results") == [(2400,)]


CRASHING = """
import os, sys
from scorekit.evals import run_evals_sync
from scorekit.scorers import build_scorer

def on_item(item, output, results):
    if item.id == "40":
        os._exit(3)

data = [{"id": str(n), "input": "night", "output": "nacht" if n % 2 else "night"}
        for n in range(100)]
run_evals_sync(data, [build_scorer("content-similarity")], store=sys.argv[1], concurrency=1,
               on_item_complete=on_item)
"""


def test_a_writer_killed_mid_run_is_resumed_from_the_command_line(
    tmp_path: Path, store_db: str | Path
) -> None:
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(CRASHING))
    crashed = subprocess.run(
        [sys.executable, str(script), str(store_db)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
    )
    assert crashed.returncode == 3, crashed.stderr
    with Store(store_db) as store:
        (run,) = store.list_runs()
        before = {r.item_id for r in store.results(run.id)}
    assert run.status == "running"
    # the items written before the kill (group commit: the batch being written may be lost)
    assert before <= {str(n) for n in range(41)}

    data = tmp_path / "data.jsonl"
    rows = [
        {"id": str(n), "input": "night", "output": "nacht" if n % 2 else "night"}
        for n in range(100)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    resumed = CliRunner().invoke(
        app,
        ["run", str(data), "-s", "content-similarity", "--db", str(store_db), "--resume", run.id],
        env={"COLUMNS": "200"},
    )
    assert resumed.exit_code == 0, resumed.output
    assert f"stored: run {run.id}" in resumed.stdout
    with Store(store_db) as store:
        (again,) = store.list_runs()
        stored = list(store.results(run.id))
        summaries = store.run_summaries(again)
    assert (again.id, again.status, again.total_items) == (run.id, "finished", 100)
    assert sorted(int(r.item_id) for r in stored) == list(range(100))  # each once
    summary = summaries["content-similarity-scorer"]
    assert summary.counts == {"ok": 100, "skipped": 0, "error": 0}
    assert summary.mean == pytest.approx(sum(r.score for r in stored if r.score is not None) / 100)
    assert {r.score for r in stored if int(r.item_id) % 2 == 0} == {1.0}


def test_the_viewer_reads_a_postgresql_database_read_only(postgres_url: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from scorekit.view.database import ViewDatabase

    result = run_evals_sync(
        [{"id": "a", "output": "abcd"}], [length_scorer(), failing_on(set())], store=postgres_url
    )
    with ViewDatabase(postgres_url) as database, database.connect() as conn:
        run = database.find_run(conn, "latest")
        assert (run.id, run.status, run.scorer_ids) == (
            result.run_id,
            "finished",
            ["length", "picky"],
        )
        with pytest.raises(DBAPIError, match="read-only transaction"):
            conn.execute(text("delete from results"))
    assert plain_query(postgres_url, "select count(*) from results") == [(2,)]
