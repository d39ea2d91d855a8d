"""The flag form of `scorekit run` and `scorekit scorers` (foundation issue)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.store import Store
from tests.conformance import REPO_ROOT

runner = CliRunner(env={"COLUMNS": "200"})
STSB = REPO_ROOT / "examples" / "stsb" / "sts-test-non-msr.tsv"


@pytest.fixture(autouse=True)
def _out_of_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a run without --db stores in .scorekit/ under the working directory: keep the test
    # runs out of the checkout's own results database
    monkeypatch.chdir(tmp_path)


def test_stsb_demo_agrees_with_humans(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    result = runner.invoke(
        app,
        [
            "run",
            str(STSB),
            "--no-header",
            "--no-quote",
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
    first = next(r for r in lines if r["item_id"] == "1")  # rows come in completion order
    # the ids are line numbers: STS-B's own ids repeat across files
    assert first["scorer_id"] == "content-similarity-scorer"
    assert first["status"] == "ok"
    assert (
        first["preprocess_step_result"]["processed_input"] == "the curious boys look in the shed."
    )
    assert first["analyze_step_result"] == {"similarity": first["score"]}


def test_the_agreement_is_stored_with_the_run_and_shown_again(tmp_path: Path) -> None:
    # issue 34: --correlate's figures (the demo's headline) were printed once and lost
    data = tmp_path / "d.jsonl"
    rows = [("a b c d", "a b c d", 5), ("a b c d", "a b x y", 3), ("a b c d", "w x y z", 0)]
    data.write_text("".join(json.dumps({"input": i, "output": o, "label": lab}) + "\n"
                            for i, o, lab in rows))  # fmt: skip
    db = tmp_path / "r.db"
    done = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--correlate",
                               "label", "--db", str(db)])  # fmt: skip
    assert done.exit_code == 0, done.output
    with Store(db) as store:
        stored = store.get_run("latest").config["agreement"]
    assert stored["column"] == "label"
    figures = stored["scorers"]["content-similarity-scorer"]
    assert figures["pairs"] == 3
    assert figures["spearman"] == pytest.approx(1.0)
    shown = runner.invoke(app, ["show", "latest", "--db", str(db)])
    assert "agreement with 'label'" in shown.output
    agreement = shown.output[shown.output.index("agreement with 'label'") :]
    row = next(line for line in agreement.splitlines() if "content-similarity-scorer" in line)
    assert [c.strip() for c in row.split("│")[1:-1]][1:4:2] == ["3", "1.0000"]  # pairs, rho
    report = tmp_path / "r.html"
    assert (
        runner.invoke(app, ["report", "latest", "-o", str(report), "--db", str(db)]).exit_code == 0
    )
    assert "Agreement with the human label label" in report.read_text()


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
    assert result.exit_code == 1, result.output  # half the records are errors: gate 0
    assert "verdict: failed (content-similarity-scorer: error rate 50% > 0%)" in result.stdout
    assert f"{data}:2: invalid JSON" in result.output
    assert f"{data}:3: missing field 'output'" in result.output
    records = {r["item_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert records["1"]["score"] == 0.25
    assert records["4"]["score"] == 0.5
    assert records["2"]["status"] == "error"
    assert records["3"]["error"]["type"] == "DatasetError"
    summary = next(line for line in result.output.splitlines() if "content-similarity" in line)
    assert summary.split("│")[2:6] == ["  2 ", "       0 ", "     2 ", "        50% "]
    tolerant = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "--max-error-rate", "0.5"]
    )
    assert tolerant.exit_code == 0, tolerant.output


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


def test_out_cannot_be_the_dataset(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"input": "night", "output": "nacht"}\n')
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--out", str(data)])
    assert result.exit_code == 2
    assert "is the dataset itself" in result.output
    assert data.read_text() == '{"input": "night", "output": "nacht"}\n'


def test_out_errors_exit_2_before_scoring(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"input": "night", "output": "nacht"}\n')
    as_dir = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "--out", str(tmp_path)]
    )
    assert as_dir.exit_code == 2
    assert "is a directory" in as_dir.output
    blocked = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "--out", str(data / "x.jsonl")]
    )
    assert blocked.exit_code == 2
    assert "cannot write there" in blocked.output


def test_write_failure_is_reported(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"input": "night", "output": "nacht"}\n')
    db = tmp_path / "runs.db"
    full = runner.invoke(
        app,
        ["run", str(data), "-s", "content-similarity", "--out", "/dev/full", "--db", str(db)],
    )
    assert full.exit_code == 3  # found mid-run: the run stopped
    assert "cannot write the results to /dev/full" in full.output
    assert "Task exception was never retrieved" not in full.output
    with Store(db) as store:  # the stored run agrees: it did not finish
        (run,) = store.list_runs()
        assert (run.status, run.verdict) == ("failed", None)


def test_bom_csv_reads_its_first_column(tmp_path: Path) -> None:
    data = tmp_path / "bom.csv"
    data.write_bytes(b"\xef\xbb\xbfinput,output\nhello,hello\n")
    out = tmp_path / "r.jsonl"
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["score"] == 1.0


def test_explicit_fields_must_exist(tmp_path: Path) -> None:
    data = tmp_path / "q.csv"
    data.write_text("question,output\nhello,hello\n")
    typo = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "--input-field", "questoin"]
    )
    assert typo.exit_code == 2
    assert "no column 'questoin'" in typo.output
    ok = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "--input-field", "question"]
    )
    assert ok.exit_code == 0, ok.output


def test_record_without_a_reference_is_an_error_not_zero(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"output": "x"}\n')
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity"])
    assert result.exit_code == 1  # no ok result at all
    assert "no input to compare the output with" in result.output


def test_empty_ground_truth_cell_falls_back_to_input(tmp_path: Path) -> None:
    data = tmp_path / "g.csv"
    data.write_text("input,output,ground_truth\nhello,hello,\n")
    out = tmp_path / "r.jsonl"
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["score"] == 1.0


def test_bad_bytes_and_lone_surrogates_do_not_stop_the_run(tmp_path: Path) -> None:
    data = tmp_path / "l.jsonl"
    data.write_bytes(
        b'{"input":"caf\xe9","output":"cafe"}\n'
        b'{"input":"ab\\ud800","output":"ab\\ud800c"}\n'
        b'{"input":"x","output":"x"}\n'
    )
    out = tmp_path / "r.jsonl"
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--out", str(out)])
    assert result.exit_code == 1, result.output  # the unreadable record is an error
    assert f"{data}:1: not valid UTF-8" in result.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    records.sort(key=lambda r: int(r["item_id"]))  # rows come in completion order
    assert [r["status"] for r in records] == ["error", "ok", "ok"]
    assert records[1]["output"] == "ab\ud800c"  # the JSON escape round-trips
    assert records[1]["score"] == 0.8


def test_wrong_value_type_is_reported_with_file_and_line(tmp_path: Path) -> None:
    data = tmp_path / "t.jsonl"
    data.write_text('{"input": 5, "output": "x"}\n{"id": {"a": 1}, "input": "a", "output": "b"}\n')
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity"])
    assert f"{data}:1: field 'input': input must be a string" in result.output
    assert f"{data}:2: field 'id': an id must be a string or an integer" in result.output


def test_duplicate_scorer_and_bad_delimiter_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("input,output\na,b\n")
    twice = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "-s", "content-similarity-scorer"]
    )
    assert twice.exit_code == 2
    assert "named twice" in twice.output
    delim = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--delimiter", "::"])
    assert delim.exit_code == 2
    assert "delimiter must be one character" in delim.output


def test_non_numeric_labels_are_counted(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(
        '{"input": "a b", "output": "a b", "label": 1}\n'
        '{"input": "a c", "output": "a d", "label": "high"}\n'
        '{"input": "night", "output": "nacht", "label": 0.5}\n'
    )
    result = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "--correlate", "label"]
    )
    assert result.exit_code == 0, result.output
    assert "1 records have a 'label' label that is not a finite number" in result.output
    assert "line 2: 'high'" in result.output


def test_summary_numbers_are_not_cut_off_the_terminal(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"input": "night", "output": "nacht"}\n')
    narrow = CliRunner()  # no COLUMNS: not a terminal, so the table gets room
    result = narrow.invoke(app, ["run", str(data), "-s", "content-similarity"])
    assert "0.2500" in result.output
    assert "…" not in result.output


def test_format_option_overrides_the_suffix(tmp_path: Path) -> None:
    data = tmp_path / "pairs.txt"
    data.write_text('{"input": "night", "output": "nacht"}\n')
    result = runner.invoke(app, ["run", str(data), "-s", "content-similarity", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert "0.2500" in result.output


def test_repeated_ids_are_errors_not_merged(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(
        '{"id": "a", "input": "night", "output": "nacht"}\n'
        '{"id": "a", "input": "x", "output": "x"}\n',
        encoding="utf-8",
    )
    out = tmp_path / "r.jsonl"
    result = runner.invoke(
        app, ["run", str(data), "-s", "content-similarity", "--out", str(out), "--no-store"]
    )
    records = {r["item_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert set(records) == {"a", "a#2"}
    assert records["a"]["score"] == 0.25
    assert records["a#2"]["status"] == "error"
    assert "duplicate item id 'a'" in records["a#2"]["error"]["message"]
    assert result.exit_code == 1  # the repeated id is an error
