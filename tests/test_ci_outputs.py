"""`scorekit run --junit/--markdown` and `scorekit compare --fail-on-regression`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner, Result

from scorekit.cli import app
from scorekit.cli.commands.ci_outputs import mean_regressions
from scorekit.store.records import ScorerChange


def _cli(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def _dataset(path: Path, outputs: list[str]) -> Path:
    path.write_text(
        "".join(
            json.dumps({"id": f"i{n}", "output": o, "ground_truth": "hello world"}) + "\n"
            for n, o in enumerate(outputs)
        )
    )
    return path


def test_run_writes_junit_and_markdown(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "d.jsonl", ["hello world", "hello", "goodbye"])
    junit, md, db = tmp_path / "out" / "r.xml", tmp_path / "r.md", tmp_path / "r.db"
    result = _cli(
        "run", str(data), "-s", "content-similarity", "-s", "completeness",
        "-t", "content-similarity=0.9", "--db", str(db), "--name", "nightly",
        "--junit", str(junit), "--markdown", str(md),
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # the threshold is missed: verdict failed
    assert f"junit: {junit}" in result.output and f"markdown: {md}" in result.output
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == (
        "scorekit nightly",
        "2",
        "1",
    )
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    failure = cases["content-similarity-scorer"].find("failure")
    assert failure is not None and failure.get("message", "").startswith("mean 0.")
    assert cases["completeness-scorer"].find("failure") is None
    props = {
        p.get("name"): p.get("value") for p in cases["content-similarity-scorer"].iter("property")
    }
    assert (props["ok"], props["error"], props["threshold"]) == ("3", "0", "0.9")
    text = md.read_text()
    assert text.startswith("### scorekit run `nightly`: ❌ failed\n")
    assert "| `content-similarity-scorer` | 3 | 0 | 0 | 0% |" in text
    assert "| 0.9 | FAIL: mean " in text
    row = next(line for line in text.splitlines() if "`content-similarity-scorer`" in line)
    cells = [cell.strip() for cell in row.split(" | ")]
    low, high = (float(x) for x in cells[6].strip("[]").split(", "))
    assert low <= float(cells[5]) <= high  # the mean, then its 95 % bootstrap interval
    assert "| `completeness-scorer` | 3 | 0 | 0 | 0% |" in text and text.count("| pass |") == 1
    assert f"stored in `sqlite:///{db}`" in text


def test_output_files_are_checked_before_anything_is_scored(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "d.jsonl", ["hello world"])
    (tmp_path / "dir").mkdir()
    blocker = tmp_path / "file"
    blocker.write_text("")
    db = tmp_path / "r.db"
    before = data.read_bytes()
    cases = [
        (["--junit", str(tmp_path / "dir")], "--junit", "is a directory"),
        (["--markdown", str(data)], "--markdown", "is the dataset itself"),
        (["--junit", str(data)], "--junit", "is the dataset itself"),
        (["--report", str(data)], "--report", "is the dataset itself"),
        (
            ["--junit", str(tmp_path / "x"), "--markdown", str(tmp_path / "x")],
            "--markdown and --junit",
            "name the same file",
        ),
        (["--junit", str(blocker / "r.xml")], "--junit", "cannot write there"),
    ]
    for flags, option, words in cases:
        result = _cli("run", str(data), "-s", "content-similarity", "--db", str(db), *flags)
        assert result.exit_code == 2, (flags, result.output)
        assert option in result.output and words in result.output, (flags, result.output)
    assert data.read_bytes() == before  # the dataset is never overwritten
    assert not db.exists()  # refused before the store was opened: nothing was scored


def test_a_report_never_overwrites_a_file_that_is_not_a_report(tmp_path: Path) -> None:
    # issue 34: --report wrote over any file of that name
    data = _dataset(tmp_path / "d.jsonl", ["hello world"])
    db = str(tmp_path / "r.db")
    notes = tmp_path / "notes.html"
    notes.write_text("<html><body>my notes</body></html>")
    refused = _cli("run", str(data), "-s", "content-similarity", "--db", db,
                   "--report", str(notes))  # fmt: skip
    assert refused.exit_code == 2, refused.output
    assert f"--report {notes} exists and is not a scorekit report" in " ".join(
        refused.output.split()
    )
    assert notes.read_text() == "<html><body>my notes</body></html>"
    assert not Path(db).exists()  # refused before anything was scored
    report = tmp_path / "r.html"
    for _ in range(2):  # a report is written over an earlier report
        done = _cli("run", str(data), "-s", "content-similarity", "--db", db,
                    "--report", str(report))  # fmt: skip
        assert done.exit_code == 0, done.output
    assert '<meta name="generator" content="scorekit">' in report.read_text()
    again = _cli("report", "latest", "-o", str(notes), "--db", db)
    assert again.exit_code == 2, again.output
    assert "is not a scorekit report" in again.output
    assert notes.read_text() == "<html><body>my notes</body></html>"


def test_compare_fails_on_a_regression_larger_than_delta(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    good = _dataset(tmp_path / "a.jsonl", ["hello world", "hello world"])
    worse = _dataset(tmp_path / "b.jsonl", ["hello world", "hello"])
    for name, data in (("main", good), ("pr", worse)):
        assert _cli(
            "run", str(data), "-s", "content-similarity", "--db", db, "--name", name
        ).exit_code in (0, 1)
    loose = _cli("compare", "main", "pr", "--db", db, "--fail-on-regression", "0.5")
    assert loose.exit_code == 0, loose.output
    assert "regression:" not in loose.output
    strict = _cli("compare", "main", "pr", "--db", db, "--fail-on-regression", "0.05")
    assert strict.exit_code == 1
    assert "regression: content-similarity-scorer: mean 1.0000 → " in strict.output
    plain = _cli("compare", "main", "pr", "--db", db)
    assert plain.exit_code == 0


def test_compare_of_runs_sharing_no_items_changes_nothing_and_refuses_to_gate(
    tmp_path: Path,
) -> None:
    # issue 34: runs of different items showed a "+0.28 change" and gated on unpaired means
    db = str(tmp_path / "r.db")
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"id": "a1", "input": "hello world", "output": "hello"}) + "\n")
    b = tmp_path / "b.jsonl"
    b.write_text(json.dumps({"id": "b1", "input": "hello world", "output": "hello world"}) + "\n")
    for name, data in (("main", a), ("pr", b)):
        _cli("run", str(data), "-s", "content-similarity", "--db", db, "--name", name)
    plain = _cli("compare", "main", "pr", "--db", db)
    assert plain.exit_code == 0, plain.output
    row = next(line for line in plain.output.splitlines() if "content-similarity" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[3:5] == ["—", "0"]  # no change over no paired item; 0 paired
    assert "over the paired items" in " ".join(plain.output.split())
    gated = _cli("compare", "main", "pr", "--db", db, "--fail-on-regression", "0")
    assert gated.exit_code == 2, gated.output
    assert "no item was scored ok in both runs" in " ".join(gated.output.split())


def test_the_change_is_over_paired_items_only(tmp_path: Path) -> None:
    from scorekit.store import Store

    db = str(tmp_path / "r.db")
    rows_a = [("1", "hello world"), ("2", "hello world")]
    rows_b = [("1", "hello"), ("3", "zzz")]  # item 2 only in A, item 3 only in B
    for name, rows in (("main", rows_a), ("pr", rows_b)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "input": "hello world", "output": o}) + "\n"
                                for i, o in rows))  # fmt: skip
        _cli("run", str(path), "-s", "content-similarity", "--db", db, "--name", name)
    with Store(db) as store:
        (change,), _ = store.compare("main", "pr")
    assert change.paired == 1
    assert change.paired_mean_a == 1.0
    assert change.paired_mean_b is not None and change.delta is not None
    assert change.delta == change.paired_mean_b - 1.0  # item 1 alone
    assert change.mean_b is not None and change.mean_b < change.paired_mean_b  # "zzz" left out


def test_mean_regressions() -> None:
    changes = [
        ScorerChange("a", 0.8, 0.7, -0.1, 3, 0),
        ScorerChange("b", 0.8, 0.78, -0.02, 3, 0),
        ScorerChange("c", 0.8, None, None, 0, 3),
        ScorerChange("d", None, 0.5, None, 0, 0),
    ]
    assert mean_regressions(changes, 0.05) == [
        "a: mean 0.8000 → 0.7000 (-0.1000, more than 0.05)",
        "c: mean 0.8000 → no mean",
    ]
    assert mean_regressions(changes, 0.0) == [
        "a: mean 0.8000 → 0.7000 (-0.1000, more than 0)",
        "b: mean 0.8000 → 0.7800 (-0.0200, more than 0)",
        "c: mean 0.8000 → no mean",
    ]


def test_markdown_code_spans_survive_backticks_and_pipes() -> None:
    from scorekit.cli.commands.ci_outputs import _code

    assert _code("nightly") == "`nightly`"
    assert _code("a`b") == "``a`b``"
    assert _code("`x``") == "``` `x`` ```"
    assert _code("a|b") == "`a\\|b`"
