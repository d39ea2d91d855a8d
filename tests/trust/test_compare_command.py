"""``scorekit compare`` with the paired statistics, and ``--significant`` on its gate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from scorekit import create_scorer
from scorekit.cli import app
from scorekit.evals.run import run_evals_sync
from scorekit.pipeline import Scorer
from scorekit.store import Store
from scorekit.trust import paired_comparison
from scorekit.trust.paired_runs import compare_runs


def _given() -> Scorer:
    """A scorer whose score is the output itself (a number): the test sets every score."""
    return create_scorer("given", description="the output as the score").generate_score(
        lambda ctx: float(ctx.run.output)
    )


def _run(db: Path, scores: np.ndarray, name: str) -> str:
    items = [{"id": f"i{k:03d}", "output": f"{s:.4f}"} for k, s in enumerate(scores)]
    return run_evals_sync(items, [_given()], store=db, run_name=name).run_id


def test_compare_prints_the_paired_change_and_gates_on_noise_only_when_asked(
    tmp_path: Path,
) -> None:
    db = tmp_path / "x.db"
    rng = np.random.default_rng(4)
    a = np.round(rng.random(60), 4)
    noisy = np.round(np.clip(a + rng.normal(-0.01, 0.15, 60), 0, 1), 4)  # a small, noisy drop
    better = np.round(np.clip(a + 0.2, 0, 1), 4)
    run_a = _run(db, a, "baseline")  # names that no id prefix can match (not hex)
    run_noisy, run_better = _run(db, noisy, "noisy"), _run(db, better, "improved")
    with Store(db) as store:
        found = compare_runs(store, run_a, run_better)
        noise = compare_runs(store, run_a, run_noisy)
    assert found["given"] == paired_comparison(a, better, threshold=0.5)
    assert found["given"].verdict == "B higher"
    assert noise["given"].verdict == "no detectable difference"
    runner = CliRunner()
    shown = runner.invoke(app, ["compare", "baseline", "improved", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())
    assert "paired change, B − A" in text and "B higher" in text
    drop = a.mean() - noisy.mean()
    assert drop > 0.005
    gate = ["compare", "baseline", "noisy", "--db", str(db), "--fail-on-regression", "0.005"]
    assert runner.invoke(app, gate).exit_code == 1
    calm = runner.invoke(app, [*gate, "--significant"])
    assert calm.exit_code == 0, calm.output
    assert "no detectable difference" in " ".join(calm.output.split())


def test_a_threshold_names_a_scorer_of_the_run(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    _run(db, np.array([0.2, 0.8]), "first")
    _run(db, np.array([0.6, 0.8]), "second")
    runner = CliRunner()
    bad = runner.invoke(
        app, ["compare", "first", "second", "--db", str(db), "--threshold", "nope=0.5"]
    )
    assert bad.exit_code == 2
    assert "'nope' is not a scorer of this run" in " ".join(bad.output.split())
    good = runner.invoke(
        app, ["compare", "first", "second", "--db", str(db), "--threshold", "given=0.5"]
    )
    assert good.exit_code == 0, good.output
    assert "(0↓ 1↑)" in good.output


def test_the_viewer_compare_page_shows_the_paired_change(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from scorekit.view import create_app

    db = tmp_path / "x.db"
    a = np.round(np.random.default_rng(4).random(60), 4)
    run_a, run_b = _run(db, a, "baseline"), _run(db, np.round(np.clip(a + 0.2, 0, 1), 4), "up")
    with Store(db) as store:
        expected = compare_runs(store, run_a, run_b)["given"]
    with TestClient(create_app(db), base_url="http://127.0.0.1:8088") as client:
        page = client.get("/compare", params={"a": run_a, "b": run_b}).text
    assert "Paired change, B − A" in page and '<td class="verdict">B higher</td>' in page
    assert f"{expected.p_value:.4f}" in page


def test_compare_writes_the_paired_change_as_markdown(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    a = np.round(np.random.default_rng(4).random(60), 4)
    run_a, run_b = _run(db, a, "baseline"), _run(db, np.round(np.clip(a + 0.2, 0, 1), 4), "up")
    with Store(db) as store:
        expected = compare_runs(store, run_a, run_b)["given"]
    out = tmp_path / "ci" / "compare.md"
    done = CliRunner().invoke(app, ["compare", "baseline", "up", "--db", str(db),
                                    "--markdown", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"### scorekit compare: `baseline` ({run_a[:8]}) → `up` ({run_b[:8]})")
    interval = expected.difference
    assert (
        f"| `given` | {a.mean():.4f} | {np.clip(a + 0.2, 0, 1).round(4).mean():.4f} | 60 | "
        f"{interval.value:+.4f} | [{interval.low:+.4f}, {interval.high:+.4f}] | "
        f"{expected.p_value:.4f} | {expected.mcnemar.p_value:.4f} "
        f"({expected.mcnemar.only_a}↓ {expected.mcnemar.only_b}↑) | B higher |"
    ) in text
