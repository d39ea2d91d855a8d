"""The flag form of `scorekit run` and `scorekit scorers` (foundation issue)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from scorekit.cli import app
from tests.conformance import REPO_ROOT

runner = CliRunner(env={"COLUMNS": "200"})
STSB = REPO_ROOT / "examples" / "stsb" / "sts-test-non-msr.tsv"


def test_stsb_demo_agrees_with_humans(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    result = runner.invoke(
        app,
        [
            "run",
            str(STSB),
            "--no-header",
            "--no-quote",
            "--id-field",
            "3",
            "--ground-truth-field",
            "5",
            "--output-field",
            "6",
            "--scorer",
            "content-similarity",
            "--correlate",
            "4",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "879" in result.output
    row = next(
        line
        for line in result.output.splitlines()
        if "content-similarity-scorer" in line and "0.67" in line
    )
    assert "0.6776" in row  # Pearson, the known 0.678 of Mastra's algorithm on these rows
    assert "0.6778" in row  # Spearman
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 879
    first = lines[0]
    assert first["item_id"] == "0011"
    assert first["scorer_id"] == "content-similarity-scorer"
    assert first["status"] == "ok"
    assert (
        first["preprocess_step_result"]["processed_input"] == "the curious boys look in the shed."
    )
    assert first["analyze_step_result"] == {"similarity": first["score"]}


def test_malformed_lines_are_reported_and_counted(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(
        '{"id": "1", "input": "night", "output": "nacht"}\n'
        "{oops\n"
        '{"id": "3", "input": "context"}\n'
        '{"id": "4", "ground_truth": "context", "output": "contact"}\n',
        encoding="utf-8",
    )
    out = tmp_path / "r.jsonl"
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{data}:2: invalid JSON" in result.output
    assert f"{data}:3: missing field 'output'" in result.output
    records = {r["item_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert records["1"]["score"] == 0.25
    assert records["4"]["score"] == 0.5
    assert records["2"]["status"] == "error"
    assert records["3"]["error"]["type"] == "DatasetError"
    summary = next(line for line in result.output.splitlines() if "content-similarity" in line)
    assert summary.split("│")[2:5] == ["  2 ", "       0 ", "     2 "]


def test_options_are_parsed_as_json(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"input": "The Quick Brown FOX", "output": "the quick brown fox"}\n')
    out = tmp_path / "r.jsonl"
    result = runner.invoke(
        app,
        [
            "run",
            str(data),
            "-s",
            "content-similarity",
            "-o",
            "ignore_case=false",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["score"] == 0.4666666666666667


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["run", str(tmp_path / "none.jsonl"), "-s", "content-similarity"])
    assert missing.exit_code == 2
    assert "none.jsonl: no such file" in missing.output
    data = tmp_path / "d.csv"
    data.write_text("input,answer\na,b\n")
    column = runner.invoke(app, ["run", str(data), "-s", "content-similarity"])
    assert column.exit_code == 2
    assert "no column 'output'" in column.output
    bad_scorer = runner.invoke(app, ["run", str(data), "-s", "content-similarty"])
    assert bad_scorer.exit_code == 2
    assert "Did you mean content-similarity" in bad_scorer.output
    bad_option = runner.invoke(
        app,
        ["run", str(data), "-s", "content-similarity", "-o", "scale=0", "--output-field", "answer"],
    )
    assert bad_option.exit_code == 2
    assert "scale must be a finite number > 0" in bad_option.output
    unknown_option = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "-o", "colour=red"]
    )
    assert unknown_option.exit_code == 2
    assert "no chosen scorer has an option 'colour'" in unknown_option.output


def test_scorers_lists_options_and_defaults() -> None:
    result = runner.invoke(app, ["scorers"])
    assert result.exit_code == 0
    assert "content-similarity-scorer" in result.output
    assert "ignore_case=True" in result.output
    assert "compare_to='auto'" in result.output
