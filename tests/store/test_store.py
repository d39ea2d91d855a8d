from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from scorekit.errors import StoreError
from scorekit.evals import run_evals_sync
from scorekit.store import Store, resolve_url

from ..evalkit import failing_on, judged_scorer, length_scorer
from ..pgserver import plain_query

ITEMS = [
    {"id": "a", "input": "q1", "output": "abcde", "ground_truth": "g", "metadata": {"k": 1}},
    {"id": "b", "input": "q2", "output": "ab", "context": ["c1", "c2"]},
    {"id": "c", "input": "q3", "output": "abcdefgh"},
]


def test_default_and_path_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_url(None) == "sqlite:///.scorekit/scorekit.db"
    assert (tmp_path / ".scorekit").is_dir()
    assert resolve_url(tmp_path / "d" / "x.db") == f"sqlite:///{tmp_path}/d/x.db"
    assert resolve_url("postgresql://u:p@h/db") == "postgresql://u:p@h/db"
    with pytest.raises(StoreError, match="not a database URL"):
        resolve_url("://nothing")


def test_password_is_masked_in_errors() -> None:
    with pytest.raises(StoreError) as caught:
        Store("postgresql+nosuchdriver://user:secret@localhost/db")
    assert "secret" not in str(caught.value)
    assert caught.value.url is not None
    assert "secret" not in caught.value.url


def test_a_run_is_stored_with_every_field(store_db: str | Path) -> None:
    db = store_db
    result = run_evals_sync(
        ITEMS,
        [length_scorer(), failing_on({"ab"})],
        store=db,
        run_name="first",
        thresholds={"length": 0.4},
        max_error_rate={"picky": 0.5},
        config={"dataset": "inline"},
    )
    # read with the plain driver: the database is a real one others can open
    assert plain_query(db, "select count(*) from results") == [(6,)]
    assert plain_query(db, "select distinct source from results") == [("TEST",)]
    with Store(db) as store:
        run = store.get_run(result.run_id)
        assert run.name == "first"
        assert run.status == "finished"
        assert run.verdict == "passed"
        assert run.total_items == 3
        assert run.config == {
            "dataset": "inline",
            "max_error_rate": {"length": 0.0, "picky": 0.5},
            "prices": {},  # code scorers: no judge model to price
        }
        assert run.thresholds == {"length": 0.4}
        assert run.scorer_ids == ["length", "picky"]
        assert run.totals["length"]["counts"] == {"ok": 3, "skipped": 0, "error": 0}
        assert run.totals["picky"]["counts"] == {"ok": 2, "skipped": 0, "error": 1}
        assert run.totals["length"]["mean"] == pytest.approx(0.5)
        assert run.started_at.tzinfo is not None
        assert run.finished_at is not None
        assert run.finished_at >= run.started_at
        rows = {(r.item_id, r.scorer_id): r for r in store.results(run.id)}
        assert len(rows) == 6
        a = rows[("a", "length")]
        assert (a.status, a.score, a.input, a.output, a.ground_truth) == (
            "ok",
            0.5,
            "q1",
            "abcde",
            "g",
        )
        assert a.metadata == {"k": 1}
        assert a.context is None
        assert rows[("b", "length")].context == ["c1", "c2"]
        failed = rows[("b", "picky")]
        assert failed.status == "error"
        assert failed.score is None
        assert failed.error == {
            "type": "RuntimeError",
            "message": "cannot score ab",
            "step": "generate_score",
            "raw_output": None,
        }
        assert a.created_at.tzinfo is not None


def test_step_results_prompts_and_usage_round_trip(store_db: str | Path) -> None:
    from ..evalkit import CachingModel

    result = run_evals_sync(ITEMS[:1], [judged_scorer(CachingModel())], store=store_db)
    with Store(store_db) as store:
        (row,) = store.results(result.run_id)
    assert row.analyze_step_result == {"verdict": "yes"}
    assert row.prompts == {"analyze": "Is this fine? abcde", "generate_reason": "Explain."}
    assert row.reason == "fine"
    assert (row.judge_usage.calls, row.judge_usage.cache_hits) == (2, 1)
    assert (row.judge_usage.input_tokens, row.judge_usage.output_tokens) == (20, 6)


def test_runs_list_newest_first_and_resolve_prefixes(store_db: str | Path) -> None:
    db = store_db
    with Store(db) as store:
        for n, run_id in enumerate(["aaaa1111", "aaaa2222", "bbbb3333"]):
            store.start_run(
                run_id,
                name=f"run{n}",
                scorers=[{"id": "length"}],
                started_at=datetime(2026, 1, 1 + n, tzinfo=timezone.utc),
            )
        assert [r.id for r in store.list_runs()] == ["bbbb3333", "aaaa2222", "aaaa1111"]
        assert [r.id for r in store.list_runs(limit=1)] == ["bbbb3333"]
        assert store.get_run("bbbb").id == "bbbb3333"
        assert store.get_run("latest").id == "bbbb3333"
        assert store.get_run("aaaa1111").name == "run0"
        with pytest.raises(StoreError, match="matches several runs"):
            store.get_run("aaaa")
        with pytest.raises(StoreError, match="no run 'zz'"):
            store.get_run("zz")
        with pytest.raises(StoreError, match="no run '%'"):
            store.get_run("%")


def test_scorer_stats_and_compare(store_db: str | Path) -> None:
    db = store_db
    first = run_evals_sync(ITEMS, [length_scorer(), failing_on(set())], store=db, concurrency=1)
    changed = [
        {**ITEMS[0], "output": "abc"},  # 0.5 -> 0.3
        {**ITEMS[1], "output": "abcd"},  # 0.2 -> 0.4
        {**ITEMS[2], "output": "a"},  # 0.8 -> 0.1
    ]
    second = run_evals_sync(changed, [length_scorer(), failing_on({"a"})], store=db, concurrency=1)
    with Store(db) as store:
        stats = store.scorer_stats(second.run_id)
        assert stats["length"].counts == {"ok": 3, "skipped": 0, "error": 0}
        assert stats["length"].mean == pytest.approx(0.8 / 3)
        assert stats["length"].median == pytest.approx(0.3)
        assert (stats["length"].minimum, stats["length"].maximum) == (0.1, 0.4)
        assert stats["picky"].counts == {"ok": 2, "skipped": 0, "error": 1}
        changes, regressions = store.compare(first.run_id, second.run_id)
    by_id = {c.scorer_id: c for c in changes}
    assert by_id["length"].mean_a == pytest.approx(0.5)
    assert by_id["length"].mean_b == pytest.approx(0.8 / 3)
    assert by_id["length"].delta == pytest.approx(0.8 / 3 - 0.5)
    assert (by_id["length"].paired, by_id["length"].newly_failed) == (3, 0)
    assert (by_id["picky"].paired, by_id["picky"].newly_failed) == (2, 1)
    assert by_id["picky"].delta == 0.0
    assert [(r.item_id, r.scorer_id) for r in regressions] == [("c", "length"), ("a", "length")]
    assert regressions[0].delta == pytest.approx(-0.7)
    assert (regressions[1].score_a, regressions[1].score_b) == (0.5, pytest.approx(0.3))


def test_a_run_is_found_by_its_name_and_an_ambiguous_reference_lists_the_runs(
    store_db: str | Path,
) -> None:
    from datetime import datetime, timezone

    from scorekit.errors import StoreError

    with Store(store_db) as store:
        for run_id, name, second in (("aa11", "nightly", 1), ("bb22", "nightly", 2)):
            store.start_run(
                run_id,
                name=name,
                scorers=[{"id": "s"}],
                started_at=datetime(2026, 1, 1, 0, 0, second, tzinfo=timezone.utc),
            )
        store.start_run("cc33", name="weekly", scorers=[{"id": "s"}])
        assert store.get_run("weekly").id == "cc33"
        assert store.get_run("aa").id == "aa11"  # prefixes as before
        with pytest.raises(StoreError) as info:
            store.get_run("nightly")
        assert str(info.value) == (
            f"'nightly' matches several runs in {store.url}: bb22 nightly started "
            "2026-01-01 00:00:02; aa11 nightly started 2026-01-01 00:00:01; give more of an id"
        )


def test_a_missing_sqlite_file_is_not_created_when_reading(tmp_path: Path) -> None:
    from scorekit.errors import StoreError

    missing = tmp_path / "nope" / "x.db"
    with pytest.raises(StoreError, match=r"no database at .*x\.db \(nothing is stored there yet\)"):
        Store(missing, create=False)
    with pytest.raises(StoreError, match="no database at"):
        Store(f"sqlite:///{missing}", create=False)
    assert not missing.parent.exists()
