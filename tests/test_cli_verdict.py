"""Issue 11: a run's verdict tells the truth in every view, and the exit codes follow one table."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from scorekit.cli import app
from scorekit.report import render_report
from scorekit.store import Store


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SCOREKIT_MODEL", raising=False)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "220"})


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def cells(stdout: str, first: str) -> list[str]:
    line = next(line for line in stdout.splitlines() if line.startswith(f"│ {first}"))
    return [c.strip() for c in line.split("│")[1:-1]]


def test_an_all_error_run_fails_in_the_database_every_view_and_the_exit_code(
    tmp_path: Path,
) -> None:
    # no record has an output: every result is an error, nothing is measured
    data = write_jsonl(tmp_path / "d.jsonl", [{"id": "a", "input": "x"}, {"id": "b", "input": "y"}])
    db = tmp_path / "r.db"
    done = invoke("run", str(data), "-s", "content-similarity", "--db", str(db), "--name", "bad")
    assert done.exit_code == 1, done.output
    reasons = "no ok result, error rate 100% > 0%"
    assert f"verdict: failed (content-similarity-scorer: {reasons})" in done.stdout
    # even with the error gate off, nothing measured is not a pass
    off = invoke(
        "run", str(data), "-s", "content-similarity", "--max-error-rate", "1", "--no-store"
    )
    assert off.exit_code == 1
    assert "verdict: failed (content-similarity-scorer: no ok result)" in off.stdout

    with sqlite3.connect(db) as conn:
        assert conn.execute("select status, verdict, total_items from runs").fetchall() == [
            ("finished", "failed", 2)
        ]
    with Store(db) as store:
        run_id = store.get_run("bad").id
        html = render_report(store, run_id)
    listed = invoke("runs", "--db", str(db))
    assert cells(listed.stdout, run_id[:8])[2] == "TEST"  # the source column
    assert cells(listed.stdout, run_id[:8])[4:7] == ["finished", "failed", "2"]
    shown = invoke("show", "bad", "--db", str(db))
    assert shown.exit_code == 0, shown.output
    assert "status finished · verdict failed" in shown.stdout
    assert cells(shown.stdout, "content-similarity-scorer") == [
        "content-similarity-scorer", "0", "0", "2", "100%", "—", "—", "—", "—", "—", "—", "0%",
        "FAIL: no ok result; error rate 100% > 0%",
    ]  # fmt: skip
    assert '<span class="badge failed">failed</span>' in html
    assert '<span class="badge passed">' not in html


def test_max_error_rate_from_the_config_and_the_flag(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "d.jsonl",
        [{"id": "a", "input": "ab", "output": "ab"}, {"id": "b", "input": "cd"}],
    )
    config = tmp_path / "c.yaml"
    body = "data: {path: d.jsonl}\nscorers: [content-similarity]\nmax_error_rate: %s\n"
    config.write_text(body % "{content-similarity: 0.5}", encoding="utf-8")
    tolerant = invoke("run", str(config), "--no-store")
    assert tolerant.exit_code == 0, tolerant.output
    assert cells(tolerant.stdout, "content-similarity-scorer")[4] == "50%"
    assert cells(tolerant.stdout, "content-similarity-scorer")[-2:] == ["50%", "pass"]
    strict = invoke("run", str(config), "--no-store", "--max-error-rate", "0.25")
    assert strict.exit_code == 1
    assert "verdict: failed (content-similarity-scorer: error rate 50% > 25%)" in strict.stdout
    per_scorer = invoke(
        "run", str(config), "--no-store", "--max-error-rate", "content-similarity=1"
    )
    assert per_scorer.exit_code == 0, per_scorer.output

    config.write_text(body % "1.5", encoding="utf-8")
    too_big = invoke("run", str(config), "--no-store")
    assert too_big.exit_code == 2
    assert "max_error_rate" in too_big.stderr
    config.write_text(body % "{tone: 0.1}", encoding="utf-8")
    stranger = invoke("run", str(config), "--no-store")
    assert stranger.exit_code == 2
    assert "max_error_rate: 'tone' is not a scorer of this run" in stranger.stderr
    word = invoke("run", str(tmp_path / "d.jsonl"), "-s", "tone", "--max-error-rate", "lots")
    assert word.exit_code == 2
    assert "--max-error-rate 'lots': expected a share from 0 to 1" in word.stderr


def test_the_stored_run_keeps_its_error_limits_and_show_prints_them(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", [{"id": "a", "input": "ab", "output": "ab"}])
    db = tmp_path / "r.db"
    done = invoke(
        "run", str(data), "-s", "content-similarity", "-t", "content-similarity=0.5",
        "--max-error-rate", "0.1", "--db", str(db),
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    shown = invoke("show", "latest", "--db", str(db))
    assert cells(shown.stdout, "content-similarity-scorer")[-3:] == ["0.5", "10%", "pass"]


def test_an_empty_dataset_is_a_usage_error_and_nothing_is_stored(tmp_path: Path) -> None:
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n", encoding="utf-8")
    header_only = tmp_path / "h.csv"
    header_only.write_text("input,output\n", encoding="utf-8")
    db = tmp_path / "r.db"
    for path in (empty, header_only):
        result = invoke("run", str(path), "-s", "content-similarity", "--db", str(db))
        assert result.exit_code == 2, result.output
        assert f"{path} holds no records: there is nothing to score" in result.stderr
    assert not db.exists()


def test_a_missing_field_is_a_usage_error_before_anything_is_stored(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", [{"question": "q", "output": "a"}])
    db = tmp_path / "r.db"
    typo = invoke("run", str(data), "-s", "tone", "--input-field", "questoin", "--db", str(db))
    assert typo.exit_code == 2
    assert "no field 'questoin' in the first record" in typo.stderr
    label = invoke("run", str(data), "-s", "tone", "--correlate", "lable", "--db", str(db))
    assert label.exit_code == 2
    assert "--correlate 'lable': the first record has no such field" in label.stderr
    assert not db.exists()


def test_an_unusable_db_path_is_a_usage_error_without_a_traceback(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", [{"input": "q", "output": "a"}])
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    under_a_file = invoke("run", str(data), "-s", "tone", "--db", str(blocker / "x.db"))
    assert under_a_file.exit_code == 2
    assert f"cannot make the folder of the database {blocker / 'x.db'}" in under_a_file.stderr
    assert "Traceback" not in under_a_file.output
    a_folder = invoke("run", str(data), "-s", "tone", "--db", str(tmp_path))
    assert a_folder.exit_code == 2
    assert f"the database {tmp_path} is a directory" in a_folder.stderr
    bad_option = invoke("run", str(data), "-s", "tone", "--concurrency", "0")
    assert bad_option.exit_code == 2


@pytest.mark.parametrize(
    "command",
    [["show", "latest"], ["report", "latest", "-o", "r.html"], ["runs"], ["compare", "a", "b"]],
)
def test_reading_commands_never_create_a_database(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "typo.db"
    result = invoke(*command, "--db", str(db))
    assert result.exit_code == 2
    assert f"no database at {db} (nothing is stored there yet)" in result.stderr
    assert not db.exists()
    assert not (tmp_path / ".scorekit").exists()
    default = invoke(*command)
    assert default.exit_code == 2
    assert not (tmp_path / ".scorekit").exists()


def test_compare_takes_run_names_and_refuses_an_ambiguous_one(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    data = write_jsonl(tmp_path / "d.jsonl", [{"id": "x", "input": "night", "output": "nacht"}])
    for run_name in ("before", "after"):
        done = invoke(
            "run", str(data), "-s", "content-similarity", "--db", str(db), "--name", run_name
        )
        assert done.exit_code == 0, done.output
    compared = invoke("compare", "before", "after", "--db", str(db))
    assert compared.exit_code == 0, compared.output
    assert cells(compared.stdout, "content-similarity-scorer")[1:4] == [
        "0.2500",
        "0.2500",
        "+0.0000",
    ]
    again = invoke(
        "run", str(data), "-s", "content-similarity", "--db", str(db), "--name", "before"
    )
    assert again.exit_code == 0
    with Store(db) as store:
        ids = sorted(r.id[:8] for r in store.list_runs() if r.name == "before")
    ambiguous = invoke("compare", "before", "after", "--db", str(db))
    assert ambiguous.exit_code == 2
    message = " ".join(ambiguous.stderr.split())
    assert "'before' matches several runs" in message
    assert sorted(re.findall(r"([0-9a-f]{8}) before started", message)) == ids


def test_version() -> None:
    from scorekit import __version__

    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == f"scorekit {__version__}\n"


def test_out_rows_carry_the_run_id_context_and_metadata(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "d.jsonl",
        [{"id": "a", "input": "q", "output": "night", "context": ["c1"], "label": 0.5}],
    )
    out = tmp_path / "o.jsonl"
    db = tmp_path / "r.db"
    result = invoke(
        "run", str(data), "-s", "content-similarity", "--correlate", "label",
        "--out", str(out), "--db", str(db),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    [row] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    with Store(db) as store:
        [stored_row] = store.results(store.get_run("latest").id)
    assert row["run_id"] == stored_row.run_id
    assert row["scorer_run_id"] == stored_row.scorer_run_id
    assert list(row)[:5] == ["run_id", "item_id", "scorer_id", "scorer_run_id", "status"]
    assert (row["item_id"], row["context"], row["metadata"]) == (
        "a",
        ["c1"],
        {"line": 1, "label": 0.5},
    )
    assert "expected_trajectory" in row  # the result's field, None here


def test_out_row_has_the_items_trajectory_and_additional_context() -> None:
    from scorekit.cli.run_log import out_row
    from scorekit.evals import EvalItem
    from scorekit.results import ScorerRunResult

    item = EvalItem(
        id="i",
        output="o",
        has_output=True,
        expected_trajectory=["search"],
        additional_context={"k": 1},
        metadata={"m": 2},
    )
    row = out_row("run-1", item, ScorerRunResult(scorer_id="s", run_id="sr", status="ok", score=1))
    assert {k: row[k] for k in ("run_id", "item_id", "scorer_id", "scorer_run_id")} == {
        "run_id": "run-1",
        "item_id": "i",
        "scorer_id": "s",
        "scorer_run_id": "sr",
    }
    assert (row["expected_trajectory"], row["additional_context"]) == (["search"], {"k": 1})
    assert (row["context"], row["metadata"]) == (None, {"m": 2})


def test_scorers_lists_a_broken_plugin_and_optional_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from importlib.metadata import EntryPoint

    from scorekit.cli.commands import listing
    from scorekit.scorers import registry

    broken = EntryPoint("broken-one", "no_such_module_xyz:factory", registry.ENTRY_POINT_GROUP)

    def points(*, group: str) -> list[EntryPoint]:
        return [broken] if group == registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(registry, "entry_points", points)
    monkeypatch.setattr(listing, "entry_points", points)
    registry._entry_points.cache_clear()
    registry._plugin.cache_clear()
    try:
        result = invoke("scorers")
    finally:
        registry._entry_points.cache_clear()
        registry._plugin.cache_clear()
    assert result.exit_code == 0, result.output
    line = next(line for line in result.stdout.splitlines() if "broken-one" in line)
    assert cells(line, "broken-one")[:4] == ["broken-one", "—", "broken", "—"]
    assert "no_such_module_xyz:factory" in " ".join(result.stdout.split())
    assert "content-similarity-scorer" in result.stdout
    assert "context_extractor (optional)" in result.stdout
    assert "context_extractor=None" not in result.stdout


def test_runs_and_show_agree_on_item_counts(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    db = tmp_path / "r.db"
    with Store(db) as store:
        store.start_run("live-run", name="live", scorers=[{"id": "s"}])
        now = datetime.now(timezone.utc)
        store.write_results(
            [
                {"run_id": "live-run", "item_id": item, "scorer_id": "s", "scorer_run_id": item}
                | {"status": "ok", "score": 0.5, "created_at": now}
                for item in ("a", "b")
            ]
        )
    listed = invoke("runs", "--db", str(db))
    assert cells(listed.stdout, "live-run")[4:7] == ["running", "—", "2"]
    shown = invoke("show", "live", "--db", str(db))
    assert "status running · verdict —" in shown.stdout
    assert "· 2 items" in shown.stdout
    assert "no verdict: the run is running" in shown.stdout


_CTRL_C_SCORER = '''
import asyncio
import signal

from scorekit import create_scorer


def create_ctrl_c_scorer():
    """Presses Ctrl-C on the output "stop"."""

    async def score(ctx):
        if ctx.run.output == "stop":
            signal.raise_signal(signal.SIGINT)
        await asyncio.sleep(30 if ctx.run.output == "slow" else 0)
        return 1.0

    return create_scorer("ctrl-c", description="Ctrl-C").generate_score(score)
'''


def test_an_interrupted_run_exits_130_without_a_verdict(tmp_path: Path) -> None:
    (tmp_path / "ctrl_c_cli_scorers.py").write_text(_CTRL_C_SCORER, encoding="utf-8")
    data = write_jsonl(
        tmp_path / "d.jsonl", [{"id": "1", "output": "slow"}, {"id": "2", "output": "stop"}]
    )
    db = tmp_path / "r.db"
    result = invoke(
        "run", str(data), "-s", "ctrl_c_cli_scorers:create_ctrl_c_scorer", "--db", str(db),
        "--concurrency", "2",
    )  # fmt: skip
    assert result.exit_code == 130, result.output
    with Store(db) as store:
        run = store.get_run("latest")
    assert (run.status, run.verdict) == ("interrupted", None)
    message = " ".join(result.stderr.split())
    assert re.search(
        rf"interrupted after \d items, no verdict; stored as run {run.id} \(interrupted\)", message
    )
    assert "verdict:" not in result.stdout
    shown = invoke("show", run.id[:8], "--db", str(db))
    assert "status interrupted · verdict —" in shown.stdout
    assert "no verdict: the run is interrupted" in shown.stdout
    assert cells(shown.stdout, "ctrl-c")[-1] == "0%"  # limits shown, no gate column
