"""Store.run_summaries: the one source of every view, and the rule that picks totals or rows."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from scorekit.errors import StoreError
from scorekit.evals import run_evals_sync
from scorekit.store import Store
from scorekit.store.tables import runs
from scorekit.summary import ScoreSummary

from ..evalkit import failing_on, length_scorer

ITEMS = [
    {"id": "a", "output": "abcde"},
    {"id": "b", "output": "ab"},
    {"id": "c", "output": "abcdefgh"},
]


def rows(run_id: str, scored: list[tuple[str, str, str, float | None]]) -> list[dict[str, Any]]:
    now = datetime.now(timezone.utc)
    return [
        {
            "run_id": run_id,
            "item_id": item_id,
            "scorer_id": scorer_id,
            "scorer_run_id": f"{run_id}-{item_id}-{scorer_id}",
            "status": status,
            "score": score,
            "created_at": now,
        }
        for item_id, scorer_id, status, score in scored
    ]


def same_statistics(a: ScoreSummary, b: ScoreSummary) -> None:
    assert a.scorer_id == b.scorer_id
    assert a.counts == b.counts
    assert (a.mean, a.median, a.minimum, a.maximum) == (b.mean, b.median, b.minimum, b.maximum)
    assert a.histogram() == b.histogram()
    assert a.mean_interval == b.mean_interval


def test_an_ended_run_reads_its_totals_which_are_its_rows(store_db: str | Path) -> None:
    db = store_db
    result = run_evals_sync(ITEMS, [length_scorer(), failing_on({"ab"})], store=db)
    with Store(db) as store:
        run = store.get_run(result.run_id)
        summaries = store.run_summaries(run)
        from_rows = store.scorer_stats(run.id)
        assert store.run_summaries(run.id[:6]) == summaries
    assert list(summaries) == ["length", "picky"]
    assert not any(s.has_scores for s in summaries.values())  # read from the totals
    assert all(s.has_scores for s in from_rows.values())
    for sid in summaries:
        same_statistics(summaries[sid], from_rows[sid])
        assert run.totals[sid] == from_rows[sid].to_dict()
    assert summaries["picky"].counts == {"ok": 2, "skipped": 0, "error": 1}
    assert summaries["length"].mean == pytest.approx(0.5)


def test_a_running_run_is_read_from_its_rows(store_db: str | Path) -> None:
    with Store(store_db) as store:
        store.start_run("run1", name="live", scorers=[{"id": "s"}, {"id": "t"}])
        store.write_results(rows("run1", [("a", "s", "ok", 0.25), ("b", "s", "error", None)]))
        first = store.run_summaries("run1")
        store.write_results(rows("run1", [("c", "s", "ok", 0.75), ("a", "x", "ok", 1.0)]))
        second = store.run_summaries("run1")
        assert store.get_run("run1").totals == {}
    assert first["s"].has_scores
    assert first["s"].counts == {"ok": 1, "skipped": 0, "error": 1}
    assert first["t"].total == 0 and first["t"].mean is None
    assert list(second) == ["s", "t", "x"]  # a scorer only the rows know comes last
    assert second["s"].scores.tolist() == [0.25, 0.75]
    assert second["s"].mean == 0.5


def test_totals_are_computed_from_the_rows_when_the_run_ends(store_db: str | Path) -> None:
    with Store(store_db) as store:
        store.start_run("run1", name=None, scorers=[{"id": "s"}])
        store.write_results(rows("run1", [("a", "s", "ok", 0.25), ("b", "s", "skipped", None)]))
        store.finish_run(
            "run1",
            status="interrupted",
            total_items=2,
            judge_usage={},
            verdict=None,
        )
        run = store.get_run("run1")
        summaries = store.run_summaries(run)
    assert run.totals["s"]["counts"] == {"ok": 1, "skipped": 1, "error": 0}
    assert not summaries["s"].has_scores
    assert (summaries["s"].mean, summaries["s"].maximum) == (0.25, 0.25)


def test_a_resumed_run_counts_rows_its_data_no_longer_holds(store_db: str | Path) -> None:
    db = store_db
    first = run_evals_sync(ITEMS, [length_scorer(), failing_on({"ab"})], store=db)
    # resumed with only item a: item b's error row stays stored, and the totals count it (the
    # run loop's in-memory count does not: it only re-counts stored ok and skipped pairs)
    run_evals_sync(ITEMS[:1], [length_scorer(), failing_on({"ab"})], store=db, resume=first.run_id)
    with Store(db) as store:
        run = store.get_run(first.run_id)
        summaries = store.run_summaries(run)
        from_rows = store.scorer_stats(run.id)
    assert run.status == "finished"
    assert summaries["picky"].counts == from_rows["picky"].counts
    assert summaries["picky"].counts == {"ok": 2, "skipped": 0, "error": 1}


def test_reopening_a_run_clears_its_totals(store_db: str | Path) -> None:
    db = store_db
    result = run_evals_sync(ITEMS, [length_scorer()], store=db)
    with Store(db) as store:
        store.reopen_run(result.run_id)
        run = store.get_run(result.run_id)
        assert (run.status, run.totals) == ("running", {})
        summaries = store.run_summaries(run)
    assert summaries["length"].has_scores
    assert summaries["length"].counts["ok"] == 3


@pytest.mark.parametrize(
    "totals",
    [
        # an older row: the keys of before, no histogram
        {"length": {"counts": {"ok": 9}, "mean": 0.9, "median": 0.9, "min": 0.9, "max": 0.9}},
        {},  # no totals at all
        {"other": {"counts": {"ok": 0}, "histogram": {}}},  # a scorer of the run missing
        {"length": {"counts": "bad", "histogram": {}}},  # malformed
        # written before the mean's interval was kept
        {
            "length": {
                "counts": {"ok": 9},
                "mean": 0.9,
                "median": 0.9,
                "min": 0.9,
                "max": 0.9,
                "histogram": {"edges": [0.0, 1.0], "counts": [9]},
            }
        },
        # an interval that is not one
        {
            "length": {
                "counts": {"ok": 9},
                "mean": 0.9,
                "median": 0.9,
                "min": 0.9,
                "max": 0.9,
                "histogram": {"edges": [0.0, 1.0], "counts": [9]},
                "mean_interval": [1.0, 0.5],
            }
        },
    ],
)
def test_totals_the_rule_cannot_trust_give_way_to_the_rows(
    store_db: str | Path, totals: dict[str, Any]
) -> None:
    db = store_db
    result = run_evals_sync(ITEMS, [length_scorer()], store=db)
    with Store(db) as store:
        with store._engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == result.run_id).values(totals=totals))
        summaries = store.run_summaries(result.run_id)
    assert list(summaries) == ["length"]
    assert summaries["length"].has_scores
    assert summaries["length"].counts == {"ok": 3, "skipped": 0, "error": 0}
    assert summaries["length"].mean_interval is not None  # measured again from the rows


def test_compare_reads_the_same_summaries(store_db: str | Path) -> None:
    db = store_db
    first = run_evals_sync(ITEMS, [length_scorer()], store=db)
    with Store(db) as store:
        store.start_run("live", name=None, scorers=[{"id": "length"}])
        store.write_results(rows("live", [("a", "length", "ok", 0.125)]))
        changes, _ = store.compare(first.run_id, "live")
        means = (
            store.run_summaries(first.run_id)["length"].mean,
            store.run_summaries("live")["length"].mean,
        )
    assert (changes[0].mean_a, changes[0].mean_b) == means
    assert changes[0].mean_b == 0.125


def test_unknown_runs_and_damaged_rows_raise_store_errors(store_db: str | Path) -> None:
    with Store(store_db) as store:
        with pytest.raises(StoreError, match="no run 'nope'"):
            store.run_summaries("nope")
        store.start_run("run1", name=None, scorers=[{"id": "s"}])
        store.write_results(rows("run1", [("a", "s", "ok", None)]))
        with pytest.raises(StoreError, match="has no finite score"):
            store.run_summaries("run1")
