"""A database made by an older scorekit gains the columns it lacks when opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import inspect, text

from scorekit import create_scorer
from scorekit.evals import run_evals_sync
from scorekit.pipeline import StepContext
from scorekit.store import Store
from scorekit.store.tables import add_missing_columns


def _columns(store: Store, table: str) -> dict[str, tuple[bool, str | None]]:
    """Column name -> (nullable, default) as the database reports it."""
    found = inspect(store._engine).get_columns(table)
    return {c["name"]: (bool(c["nullable"]), c["default"]) for c in found}


def test_an_older_database_gains_the_new_columns_and_indexes(store_db: str | Path) -> None:
    with Store(store_db) as store:
        with store._engine.begin() as conn:  # what a database written before these looks like
            conn.execute(text("drop index ix_results_run_scorer_status"))
            conn.execute(text("drop index ix_results_run_id"))  # as before it existed
            conn.execute(text("alter table results drop column expected_trajectory"))
            conn.execute(text("alter table results drop column additional_context"))
            conn.execute(text("alter table runs drop column source"))
            conn.execute(
                text(
                    "insert into runs (id, status, started_at, scorers, total_items) "
                    "values ('r1', 'finished', '2026-01-01 00:00:00', '[]', 0)"
                )
            )
        assert "expected_trajectory" not in _columns(store, "results")
    with Store(store_db) as store:
        assert store.get_run("r1").source == "TEST"  # NOT NULL column added with its default
        nullable, default = _columns(store, "runs")["source"]
        assert not nullable
        assert default is not None and default.startswith("'TEST'")  # PostgreSQL: ::character
        assert {"expected_trajectory", "additional_context"} <= set(_columns(store, "results"))
        indexes = {ix["name"] for ix in inspect(store._engine).get_indexes("results")}
        assert indexes == {
            "ix_results_run_item_scorer",
            "ix_results_run_scorer_status",
            "ix_results_trace_span",
            "ix_results_run_id",
        }
    with Store(store_db) as store:  # a second open adds nothing
        assert add_missing_columns(store._engine) == []


def test_expected_trajectory_and_additional_context_reach_the_scorer_and_the_store(
    store_db: str | Path,
) -> None:
    def seen(ctx: StepContext) -> float:
        return float(len(ctx.run.expected_trajectory["steps"]) + ctx.run.additional_context["n"])

    scorer = create_scorer("seen", description="reads the run's new fields").generate_score(seen)
    item = {
        "id": "i1",
        "input": "q",
        "output": "a",
        "expected_trajectory": {"steps": [{"stepType": "tool_call", "name": "search"}]},
        "additional_context": {"n": 2},
    }
    result = run_evals_sync([item], [scorer], store=store_db)
    assert result.items[0].scorer_results["seen"].score == 3.0
    scored = result.items[0].scorer_results["seen"]
    assert scored.expected_trajectory == item["expected_trajectory"]
    assert scored.additional_context == {"n": 2}
    with Store(store_db) as store:
        (row,) = store.results(result.run_id)
        assert row.expected_trajectory == item["expected_trajectory"]
        assert row.additional_context == {"n": 2}


def test_reading_a_database_that_is_not_scorekits_writes_nothing_into_it(tmp_path: Path) -> None:
    import pytest

    from scorekit.errors import StoreError

    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("create table x (a integer)")
    with pytest.raises(StoreError, match="holds no scorekit runs"):
        Store(foreign, create=False)
    with sqlite3.connect(foreign) as conn:
        tables = [row[0] for row in conn.execute("select name from sqlite_master")]
    assert tables == ["x"]  # no runs/results tables, no indexes were added


def test_writing_into_a_database_whose_runs_table_is_somebody_elses_is_refused(
    tmp_path: Path,
) -> None:
    import pytest

    from scorekit.errors import StoreError

    foreign = tmp_path / "app.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("create table runs (x integer)")
    for create in (True, False):
        with pytest.raises(StoreError, match="a 'runs' table that is not scorekit's"):
            Store(foreign, create=create)
    with sqlite3.connect(foreign) as conn:
        tables = [row[0] for row in conn.execute("select name from sqlite_master")]
    assert tables == ["runs"]  # no results table, no indexes: nothing was written


def test_the_reading_commands_upgrade_an_older_writable_database(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from scorekit.cli import app

    db = tmp_path / "old.db"
    items = [{"id": "a", "output": "abc"}, {"id": "b", "output": "abcdef"}]
    scorer = create_scorer("length", description="d").generate_score(lambda ctx: 0.5)
    run = run_evals_sync(items, [scorer], store=db).run_id
    with sqlite3.connect(db) as conn:  # what a database made before the heartbeat looks like
        conn.execute("alter table runs drop column heartbeat_at")
    shown = CliRunner().invoke(app, ["show", run, "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "its tables gained the columns this version reads" in shown.output
    assert "0.5000" in shown.output
    again = CliRunner().invoke(app, ["show", run, "--db", str(db)])
    assert again.exit_code == 0 and "gained the columns" not in again.output
