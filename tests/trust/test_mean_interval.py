"""Every summary's mean carries a 95 % bootstrap interval over items, labels or not."""

from __future__ import annotations

import math
import random
from pathlib import Path

from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.evals import run_evals_sync
from scorekit.report.render import render_report
from scorekit.store import Store
from scorekit.summary import ScoreSummary
from scorekit.trust.estimates import bootstrap_mean, with_mean_interval

from ..evalkit import length_scorer


def test_the_interval_covers_the_population_mean_at_its_nominal_rate() -> None:
    # known truth: scores drawn from Beta(2, 3) (mean 0.4); 400 seeded samples of 60 items
    rng = random.Random(7)
    covered = 0
    for _ in range(400):
        summary = ScoreSummary("s", {"ok": 60}, [rng.betavariate(2, 3) for _ in range(60)])
        low, high = with_mean_interval(summary, resamples=500).mean_interval or (1.0, 0.0)
        covered += low <= 0.4 <= high
    assert 356 <= covered <= 392  # 95 % of 400 is 380; a percentile interval runs a bit short


def test_a_summary_gets_the_bootstrap_means_interval_and_loses_it_when_it_changes() -> None:
    scores = [0.1, 0.4, 0.4, 0.9, 1.0]
    summary = with_mean_interval(ScoreSummary("s", {"ok": 5}, scores))
    expected = bootstrap_mean(scores)
    assert summary.mean_interval == (expected.low, expected.high)
    assert ScoreSummary.from_dict("s", summary.to_dict()).mean_interval == summary.mean_interval
    summary.add_score("ok", 0.5)
    assert summary.mean_interval is None  # the scores changed: measured again on demand
    one = with_mean_interval(ScoreSummary("s", {"ok": 1}, [0.5]))
    assert one.mean_interval is None  # one score: no interval to speak of
    assert "mean_interval" not in one.to_dict()


ITEMS = [{"id": f"i{n}", "output": "x" * (n % 9)} for n in range(30)]


def test_the_run_the_store_and_every_view_show_the_same_interval(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    result = run_evals_sync(ITEMS, [length_scorer()], store=db)
    scores = [len(str(item["output"])) / 10 for item in ITEMS]
    expected = bootstrap_mean(scores)
    text = f"[{expected.low:.4f}, {expected.high:.4f}]"
    with Store(db) as store:
        run = store.get_run(result.run_id)
        assert run.totals["length"]["mean_interval"] == [expected.low, expected.high]
        stored = store.run_summaries(run)["length"]
        assert not stored.has_scores and stored.mean_interval == (expected.low, expected.high)
        page = render_report(store, run.id)
    assert f"[{expected.low:.4f}, {expected.high:.4f}]" in page
    shown = CliRunner().invoke(app, ["show", run.id, "--db", str(db)])
    row = next(line for line in shown.stdout.splitlines() if "length" in line)
    assert [c.strip() for c in row.split("│")][7] == text  # after the mean


def test_scores_near_the_float_maximum_get_no_infinite_interval() -> None:
    summary = with_mean_interval(ScoreSummary("s", {"ok": 3}, [1e308, 1e308, 5e307]))
    assert summary.mean_interval is None or all(map(math.isfinite, summary.mean_interval))
