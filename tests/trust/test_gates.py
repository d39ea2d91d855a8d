"""Agreement gates (min_agreement) through run_evals, the store, show, the report and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.errors import ConfigError
from scorekit.evals.run import run_evals_sync
from scorekit.report import write_report
from scorekit.scorers import create_content_similarity_scorer
from scorekit.store import Store
from scorekit.trust import agreement
from scorekit.trust.min_agreement import stored_agreement_failures
from tests.trust.test_labels_and_align import SCORER, _expected_pairs, _items


def _run(gates: dict[str, dict[str, object]], **options: object) -> object:
    return run_evals_sync(_items(), [create_content_similarity_scorer()],
                          min_agreement=gates, **options)  # fmt: skip


def test_a_judge_below_the_minimum_fails_the_verdict_and_one_above_passes() -> None:
    failed = _run({"content-similarity": {"auroc": 0.9}})
    assert failed.verdict == "failed"  # type: ignore[attr-defined]
    assert failed.failures == {SCORER: ["auroc 0.800 < 0.9"]}  # type: ignore[attr-defined]
    passed = _run({SCORER: {"auroc": 0.7, "kappa": 0.5}})
    assert passed.verdict == "passed"  # type: ignore[attr-defined]


def test_the_lower_bound_and_too_few_labels() -> None:
    scores, labels = _expected_pairs()
    low = agreement(scores, labels).kappa
    assert low is not None
    bounded = _run({SCORER: {"kappa": 0.5, "bound": "low"}})
    assert bounded.failures == {  # type: ignore[attr-defined]
        SCORER: [f"kappa lower bound {low.low:.3f} < 0.5"]
    }
    few = run_evals_sync(_items(labelled=7), [create_content_similarity_scorer()],
                         min_agreement={SCORER: {"auroc": 0.5}})  # fmt: skip
    assert few.failures == {SCORER: ["min_agreement: not enough labels (n = 7, need 20)"]}
    none = run_evals_sync(_items(labelled=0), [create_content_similarity_scorer()],
                          min_agreement={SCORER: {"auroc": 0.5}})  # fmt: skip
    assert none.failures == {SCORER: ["min_agreement: no labelled item scored ok"]}


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ({"faithfulness": {"auroc": 0.7}}, "'faithfulness' is not a scorer of this run"),
        ({SCORER: {"accuracy": 0.7}}, "'accuracy' is not a figure"),
        ({SCORER: {"auroc": "high"}}, r"auroc needs a number in \[0, 1\], not 'high'"),
        ({SCORER: {"auroc": 1.5}}, r"auroc needs a number in \[0, 1\]"),
        ({SCORER: {"kappa.high": 0.5}}, "'kappa.high' is not a figure"),
        ({SCORER: {"auroc": 0.7, "bound": "lowest"}}, "bound is 'value' or 'low'"),
        ({SCORER: {}}, "give {figure: minimum}"),
    ],
)
def test_a_bad_setting_is_refused_before_scoring(gates: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        run_evals_sync(_items(count=2, labelled=0), [create_content_similarity_scorer()],
                       min_agreement=gates)  # fmt: skip
    assert caught.value.field == "min_agreement"


def test_the_stored_run_gives_the_same_verdict_everywhere(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    result = _run({SCORER: {"auroc": 0.9}}, store=db)
    with Store(db) as store:
        record = store.get_run(result.run_id)  # type: ignore[attr-defined]
        assert record.verdict == "failed"
        assert record.config["min_agreement"] == {SCORER: {"auroc": 0.9}}
        assert stored_agreement_failures(record.config) == {SCORER: ["auroc 0.800 < 0.9"]}
        page = write_report(store, record.id, tmp_path / "r.html").read_text()
    assert "auroc 0.800 &lt; 0.9" in page or "auroc 0.800 < 0.9" in page
    shown = CliRunner().invoke(app, ["show", record.id, "--db", str(db)])
    assert "auroc 0.800 < 0.9" in " ".join(shown.output.split())


def test_resuming_keeps_the_stored_gates(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    first = _run({SCORER: {"auroc": 0.9}}, store=db)
    run_id = first.run_id  # type: ignore[attr-defined]
    again = run_evals_sync(_items(), [create_content_similarity_scorer()], store=db,
                           resume=run_id)  # fmt: skip
    assert again.failures == {SCORER: ["auroc 0.800 < 0.9"]}
    with pytest.raises(ConfigError, match="resume with the same or none"):
        run_evals_sync(_items(), [create_content_similarity_scorer()], store=db, resume=run_id,
                       min_agreement={SCORER: {"auroc": 0.5}})  # fmt: skip


def test_the_command_line_flag_and_the_config(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(x) for x in _items()) + "\n", encoding="utf-8")
    db = tmp_path / "x.db"
    runner = CliRunner()
    done = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--db", str(db),
                               "--min-agreement", "content-similarity:auroc=0.9"])  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "auroc 0.800 < 0.9" in " ".join(done.output.split())
    config = tmp_path / "run.yaml"
    config.write_text(
        f"data: {{path: {data}}}\nscorers: [content-similarity]\n"
        "min_agreement: {content-similarity: {kappa: 0.5, bound: low}}\n",
        encoding="utf-8",
    )
    by_config = runner.invoke(app, ["run", str(config), "--db", str(db)])
    assert by_config.exit_code == 1, by_config.output
    assert "kappa lower bound" in by_config.output
    flag_wins = runner.invoke(app, ["run", str(config), "--db", str(db),
                                    "--min-agreement", "content-similarity:auroc=0.7"])  # fmt: skip
    assert flag_wins.exit_code == 0, flag_wins.output
    bad = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--db", str(db),
                              "--min-agreement", "auroc=0.9"])  # fmt: skip
    assert bad.exit_code == 2
    assert "expected scorer:figure=minimum" in " ".join(bad.output.split())
