"""Stored alignments: saved by ``scorekit align``, shown for other runs, stale when changed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.evals.run import run_evals_sync
from scorekit.scorers import build_scorer
from scorekit.store import Store
from scorekit.store.alignments import latest_alignments, scorer_identity
from tests.trust.test_labels_and_align import SCORER, _items


def test_an_agreement_is_saved_and_shown_for_the_same_scorer_elsewhere(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    labelled = run_evals_sync(_items(), [build_scorer("content-similarity")], store=db)
    unlabelled = run_evals_sync(_items(labelled=0), [build_scorer("content-similarity")],
                                store=db)  # fmt: skip
    other = run_evals_sync(_items(labelled=0), [build_scorer("content-similarity",
                           ignore_case=False)], store=db)  # fmt: skip
    runner = CliRunner()
    aligned = runner.invoke(app, ["align", labelled.run_id, "--db", str(db)])
    assert aligned.exit_code == 0, aligned.output
    assert f"stored the agreement of {SCORER}" in aligned.output
    shown = " ".join(
        runner.invoke(app, ["show", unlabelled.run_id, "--db", str(db)]).output.split()
    )
    assert f"{SCORER}: agreement balanced_accuracy 0.80 [" in shown
    assert f"measured on run {labelled.run_id[:8]} (30 labels), same judge and prompts" in shown
    stale = " ".join(runner.invoke(app, ["show", other.run_id, "--db", str(db)]).output.split())
    assert f"{SCORER}: stale agreement (the scorer's options), measured on run" in stale
    with Store(db) as store:
        record = store.get_run(unlabelled.run_id)
        assert scorer_identity(record, SCORER) == {  # the options with their defaults
            "spec": {
                "id": SCORER,
                "options": {
                    "compare_to": "auto",
                    "ignore_case": True,
                    "ignore_whitespace": True,
                    "scale": 1.0,
                },
            },
            "judge": None,
            "prompt_version": None,
        }
        judged = dataclasses.replace(
            record,
            scorers=[{**record.scorers[0], "judge": "openai/gpt-4o-mini", "prompt_version": 5}],
        )
        found = latest_alignments(store, judged)[SCORER]
    assert found.stale and found.measured_on == labelled.run_id
    assert found.differences == ("judge None → openai/gpt-4o-mini", "prompt version None → 5")
    assert found.figures["labelled"] == 30


def test_too_few_labels_are_not_saved_and_no_save_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    few = run_evals_sync(_items(labelled=7), [build_scorer("content-similarity")], store=db)
    runner = CliRunner()
    done = runner.invoke(app, ["align", few.run_id, "--db", str(db)])
    assert done.exit_code == 0 and "stored the agreement" not in done.output
    many = run_evals_sync(_items(), [build_scorer("content-similarity")], store=db)
    out = tmp_path / "a.json"
    quiet = runner.invoke(app, ["align", many.run_id, "--db", str(db), "--no-save",
                                "--json", str(out)])  # fmt: skip
    assert quiet.exit_code == 0 and "stored the agreement" not in quiet.output
    assert json.loads(out.read_text())["scorers"][0]["labelled"] == 30
    with Store(db) as store:
        assert latest_alignments(store, store.get_run(many.run_id)) == {}


def test_an_llm_scorer_records_its_judge_and_prompt_version(tmp_path: Path) -> None:
    from scorekit.judge.cache import PROMPT_VERSION
    from scorekit.judge.scripted import ScriptedJudge
    from scorekit.scorers import create_toxicity_scorer

    judge = ScriptedJudge([{"verdicts": [{"opinion": "x", "verdict": "no", "reason": "fine"}]},
                           "The score is 0 because nothing is toxic."])  # fmt: skip
    db = tmp_path / "x.db"
    result = run_evals_sync([{"input": "hi", "output": "x"}], [create_toxicity_scorer(model=judge)],
                            store=db)  # fmt: skip
    with Store(db) as store:
        row = store.get_run(result.run_id).scorers[0]
    assert row["judge"] == judge_model_id(judge) and row["prompt_version"] == PROMPT_VERSION


def judge_model_id(judge: object) -> str:
    from scorekit.judge.judge import Judge

    return Judge(judge).model_id  # type: ignore[arg-type]


def test_the_report_shows_the_trust_table_and_the_stored_agreement(tmp_path: Path) -> None:
    from scorekit.report import write_report

    db = tmp_path / "x.db"
    labelled = run_evals_sync(_items(), [build_scorer("content-similarity")], store=db)
    unlabelled = run_evals_sync(_items(labelled=0), [build_scorer("content-similarity")],
                                store=db)  # fmt: skip
    assert CliRunner().invoke(app, ["align", labelled.run_id, "--db", str(db)]).exit_code == 0
    with Store(db) as store:
        own = write_report(store, labelled.run_id, tmp_path / "own.html").read_text()
        other = write_report(store, unlabelled.run_id, tmp_path / "other.html").read_text()
    assert "How far the scores can be trusted" in own and ">ppi<" in own
    assert "0.80 [" in own  # the balanced accuracy with its interval
    assert "How far the scores can be trusted" not in other  # no labels of its own
    assert f"measured on run {labelled.run_id[:8]} (30 labels), same judge and prompts" in other


def test_the_viewer_run_page_shows_the_agreement_and_the_stored_note(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from scorekit.view import create_app

    db = tmp_path / "x.db"
    labelled = run_evals_sync(_items(), [build_scorer("content-similarity")], store=db)
    unlabelled = run_evals_sync(_items(labelled=0), [build_scorer("content-similarity")],
                                store=db)  # fmt: skip
    plain_db = tmp_path / "plain.db"
    plain = run_evals_sync(_items(labelled=0), [build_scorer("content-similarity")],
                           store=plain_db)  # fmt: skip
    assert CliRunner().invoke(app, ["align", labelled.run_id, "--db", str(db)]).exit_code == 0
    with TestClient(create_app(db), base_url="http://127.0.0.1:8088") as client:
        own = client.get(f"/runs/{labelled.run_id}").text
        other = client.get(f"/runs/{unlabelled.run_id}").text
    assert "Agreement with human labels" in own and "30/40" in own and "(ppi)" in own
    assert "same judge and prompts" in other and "Agreement with human labels" not in other
    with TestClient(create_app(plain_db), base_url="http://127.0.0.1:8088") as client:
        page = client.get(f"/runs/{plain.run_id}").text
    assert "trust-note" not in page and "Agreement with human labels" not in page
