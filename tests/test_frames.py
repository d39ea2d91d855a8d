"""DataFrames in and out (scorekit.datasets.frames), the notebook HTML, the progress option, the
example."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from scorekit import run_evals_sync
from scorekit.datasets.files import FieldMap
from scorekit.datasets.frames import frame_items
from scorekit.errors import ConfigError
from scorekit.evals import progress as progress_module
from scorekit.notebook import score_colour
from scorekit.store import Store
from tests.evalkit import context_scorer, failing_on, length_scorer

ROOT = Path(__file__).resolve().parent.parent


def test_a_dataframe_is_data_with_nan_as_missing() -> None:
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "input": ["q1", "q2", math.nan],
            "output": ["hello", "hi", "abcdefghij"],
            "ground_truth": [None, "x", pd.NA],
            "context": [["p1", "p2"], None, ["p3"]],
        }
    )
    result = run_evals_sync(frame, [length_scorer(), context_scorer()])
    got = {o.item.id: o for o in result.items}
    assert sorted(got) == ["a", "b", "c"]
    assert got["c"].item.input is None and got["c"].item.ground_truth is None
    assert got["b"].item.ground_truth == "x" and got["b"].item.context is None
    assert {i: o.scorer_results["length"].score for i, o in got.items()} == {
        "a": 0.5,
        "b": 0.2,
        "c": 1.0,
    }
    assert got["a"].scorer_results["context-count"].score == 2.0
    assert all(r.status == "ok" for o in got.values() for r in o.scorer_results.values())


def test_a_dataframe_of_questions_runs_through_a_target_without_an_output_column() -> None:
    frame = pd.DataFrame({"input": ["abc", "abcdefgh", math.nan]})
    result = run_evals_sync(frame, [length_scorer()], target=lambda q: f"{q}!")
    got = {o.item.id: o for o in result.items}
    assert {i: o.scorer_results["length"].score for i, o in got.items() if i != "2"} == {
        "0": 0.4,
        "1": 0.9,
    }
    # a row with no input (NaN) has nothing to give the target: that item's error, by row
    assert got["2"].scorer_results["length"].status == "error"
    assert "'input'" in (got["2"].scorer_results["length"].error.message or "")  # type: ignore[union-attr]
    # without a target the output column is still required, before any row is read
    with pytest.raises(ConfigError) as raised:
        run_evals_sync(frame, [length_scorer()])
    assert raised.value.field == "output"


def test_frame_items_maps_columns_like_files_and_names_rows_by_index() -> None:
    frame = pd.DataFrame(
        {"question": ["q1", "q2"], "answer": ["a1", None], "label": [3, 4]}, index=[10, 11]
    )
    items = list(
        frame_items(frame, fields=FieldMap(input="question", output="answer", extra=("label",)))
    )
    assert [(i.id, i.input, i.output, i.load_error) for i in items] == [
        ("10", "q1", "a1", None),
        ("11", None, None, "DataFrame row:1: missing field 'answer'"),
    ]
    assert items[0].metadata == {"row": 0, "label": 3}
    assert type(items[0].metadata["label"]) is int  # numpy scalars become Python values
    with pytest.raises(ConfigError, match="no column 'answer'") as caught:
        frame_items(pd.DataFrame({"question": ["q"]}), fields=FieldMap(output="answer"))
    assert caught.value.field == "answer"


def test_to_pandas_long_and_wide() -> None:
    data = [{"id": "a", "output": "hello"}, {"id": "b", "output": "boom"}]
    result = run_evals_sync(data, [length_scorer(), failing_on({"boom"})], max_error_rate=1)
    long = result.to_pandas().sort_values(["item_id", "scorer_id"]).reset_index(drop=True)
    assert list(long["scorer_id"]) == ["length", "picky", "length", "picky"]
    assert list(long["status"]) == ["ok", "ok", "ok", "error"]
    assert long["score"].dtype == "Float64"
    assert long["score"].tolist()[:3] == [0.5, 1.0, 0.4] and long["score"].isna().tolist() == [
        False,
        False,
        False,
        True,
    ]
    assert long.loc[3, "error"] == "RuntimeError: cannot score boom"
    wide = result.to_pandas(wide=True).sort_index()
    assert list(wide.columns) == [
        "input",
        "output",
        "ground_truth",
        "length",
        "length:status",
        "picky",
        "picky:status",
    ]
    assert wide.loc["b", "length"] == 0.4 and pd.isna(wide.loc["b", "picky"])
    assert wide.loc["b", "picky:status"] == "error"
    with pytest.raises(ConfigError, match="keep_items=False") as caught:
        run_evals_sync(data, [length_scorer()], keep_items=False).to_pandas()
    assert caught.value.field == "keep_items"


def test_store_results_frame(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    result = run_evals_sync(
        [{"id": "a", "output": "hello"}, {"id": "b", "output": "hi"}], [length_scorer()], store=db
    )
    with Store(db) as store:
        frame = store.results_frame(result.run_id)
        wide = store.results_frame("latest", wide=True)
    assert sorted(frame["item_id"]) == ["a", "b"] and set(frame["status"]) == {"ok"}
    assert sorted(frame["score"].tolist()) == [0.2, 0.5]
    assert wide.sort_index()["length"].tolist() == [0.5, 0.2]


def test_html_reprs_render_the_summary_scores_and_reasons() -> None:
    data = [
        {"id": "a", "output": "hello"},
        {"id": "b", "output": "boom"},
        {"id": "c", "output": "<b>x</b>"},
    ]
    result = run_evals_sync(
        data, [length_scorer(), failing_on({"boom"})], thresholds={"length": 0.9}
    )
    html = result._repr_html_()
    assert "verdict failed" in html
    assert "FAIL: mean 0.5667 &lt; 0.9" in html  # (0.5 + 0.4 + 0.8) / 3
    assert "RuntimeError: cannot score boom" in html
    assert "<b>x</b>" not in html  # data is escaped
    assert f"background:{score_colour(0.5)}" in html
    one = result.items[0].scorer_results["length"]._repr_html_()
    assert "<table" in one and "length" in one
    assert score_colour(0.0) == "hsl(0, 70%, 80%)" and score_colour(2.0) == "hsl(120, 70%, 80%)"


def test_progress_option(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = Console(record=True, force_terminal=True, width=100)
    monkeypatch.setattr(progress_module, "Console", lambda **_: buffer)
    data = [{"output": "hello"}] * 3
    run_evals_sync(data, [length_scorer()], progress=True)
    assert "3/3" in buffer.export_text()
    quiet = Console(record=True, force_terminal=True, width=100)
    monkeypatch.setattr(progress_module, "Console", lambda **_: quiet)
    run_evals_sync(data, [length_scorer()])  # None: only in a notebook
    run_evals_sync(data, [length_scorer()], progress=False)
    assert quiet.export_text() == ""
    with pytest.raises(ConfigError, match="progress must be") as caught:
        run_evals_sync(data, [length_scorer()], progress="yes")
    assert caught.value.field == "progress"


def test_the_notebook_example_scores_the_expertqa_dataframe() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "notebook" / "expertqa_dataframe.py")],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert (
        "means: {'content-similarity-scorer': 0.8324, 'completeness-scorer': 0.8021, "
        "'keyword-coverage-scorer': 0.7827}" in done.stdout
    )
