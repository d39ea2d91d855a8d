"""Issue 34 #5: an id generated for a record without one never equals an id the data gives,
and a real duplicate names the file and both lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scorekit import run_evals_sync
from scorekit.cli import app
from scorekit.datasets.files import FieldMap, read_dataset
from scorekit.datasets.generated_ids import GeneratedIds, jsonl_given_ids, place_like
from scorekit.scorers import create_content_similarity_scorer
from scorekit.store import Store

runner = CliRunner()


@pytest.fixture(autouse=True)
def _out_of_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _lines(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _stored(tmp_path: Path, data: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    database = tmp_path / "runs.db"
    result = runner.invoke(
        app,
        ["run", str(data), "-s", "content-similarity", "--db", str(database), *extra],
    )
    with Store(database) as store:
        run = store.get_run("latest")
        rows = {row.item_id: row for row in store.results(run.id)}
    return result.exit_code, rows


def test_a_line_number_given_as_an_id_elsewhere_is_not_generated(tmp_path: Path) -> None:
    # before: the record on line 2 (no id) was named "2", which line 1 gives itself:
    # "duplicate item id '2'" and a failed run of a file that has no duplicate at all
    data = _lines(
        tmp_path / "d.jsonl",
        {"id": "2", "input": "a", "output": "night", "ground_truth": "nacht"},
        {"input": "b", "output": "same", "ground_truth": "same"},
        {"input": "c", "output": "x", "ground_truth": "x"},
        {"id": 1, "input": "d", "output": "y", "ground_truth": "y"},
    )
    code, rows = _stored(tmp_path, data)
    assert code == 0
    assert sorted(rows) == ["1", "2", "3", "line 2"]
    assert {row.status for row in rows.values()} == {"ok"}
    assert rows["line 2"].score == 1.0 and rows["2"].score == 0.25


def test_a_real_duplicate_names_the_file_and_both_lines(tmp_path: Path) -> None:
    data = _lines(
        tmp_path / "d.jsonl",
        {"id": "a", "output": "x", "ground_truth": "x"},
        {"id": "b", "output": "x", "ground_truth": "x"},
        {"id": "a", "output": "y", "ground_truth": "y"},
    )
    code, rows = _stored(tmp_path, data)
    assert code == 1
    assert rows["a#2"].status == "error"
    assert rows["a#2"].error is not None
    assert rows["a#2"].error["message"] == (
        f"{data}:3: duplicate item id 'a', first at {data}:1 (occurrence 2); ids must be "
        "unique within a run, since resume and compare match items by id"
    )


def test_csv_and_json_arrays_follow_the_same_rule(tmp_path: Path) -> None:
    csv_file = tmp_path / "d.csv"
    csv_file.write_text("id,output,ground_truth\n,a,a\n2,b,b\n,c,c\n", encoding="utf-8")
    assert [item.id for item in read_dataset(csv_file)] == ["line 2", "2", "4"]
    json_file = tmp_path / "d.json"
    json_file.write_text(
        json.dumps([{"output": "a"}, {"id": "1", "output": "b"}, {"id": "a", "output": "c"}]),
        encoding="utf-8",
    )
    assert [item.id for item in read_dataset(json_file)] == ["record 1", "1", "a"]
    [first] = [item for item in read_dataset(json_file) if item.id == "record 1"]
    assert str(first.origin) == f"{json_file} record 1"


def test_a_file_whose_records_all_have_ids_or_none_keeps_line_numbers(tmp_path: Path) -> None:
    # the names runs stored before this rule used, so they still resume
    data = _lines(tmp_path / "d.jsonl", {"output": "a"}, {"output": "b"}, {"output": "c"})
    assert [item.id for item in read_dataset(data)] == ["1", "2", "3"]


def test_a_bad_line_takes_no_id_another_record_gives(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "2", "output": "a"}\nnot json\n', encoding="utf-8")
    items = list(read_dataset(data))
    assert [item.id for item in items] == ["2", "line 2"]
    assert items[1].load_error == f"{data}:2: invalid JSON (Expecting value)"


def test_dataframe_index_labels_avoid_the_ids_the_frame_gives() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        {"id": [None, "0", None], "output": ["a", "b", "c"], "ground_truth": ["a", "b", "c"]}
    )
    result = run_evals_sync(frame, [create_content_similarity_scorer()], concurrency=1)
    assert [item.item.id for item in result.items] == ["row 0", "0", "2"]
    assert result.verdict == "passed"


def test_an_in_memory_list_is_read_for_its_ids_first() -> None:
    data = [{"output": "a", "ground_truth": "a"}, {"id": "0", "output": "b", "ground_truth": "b"}]
    result = run_evals_sync(data, [create_content_similarity_scorer()], concurrency=1)
    assert [item.item.id for item in result.items] == ["item 0", "0"]
    assert result.verdict == "passed"


def test_an_iterator_renames_a_generated_id_and_names_a_late_given_one() -> None:
    def entries() -> Iterator[dict[str, Any]]:
        yield {"id": "1", "output": "a", "ground_truth": "a"}
        yield {"output": "b", "ground_truth": "b"}  # position 1: "1" is taken, so "1'"
        yield {"output": "c", "ground_truth": "c"}  # position 2: "2"
        yield {"id": "2", "output": "d", "ground_truth": "d"}  # "2" was generated above

    result = run_evals_sync(entries(), [create_content_similarity_scorer()], concurrency=1)
    by_id = {item.item.id: item for item in result.items}
    assert list(by_id) == ["1", "1'", "2", "2#2"]
    late = by_id["2#2"].scorer_results["content-similarity-scorer"]
    assert late.status == "error" and late.error is not None
    assert late.error.message == (
        "item 3: item id '2' is the name given to item 2, which has no id (an iterator cannot "
        "be read ahead for the ids it gives): give every entry an id, or none"
    )


def test_generated_names_skip_every_given_form() -> None:
    names = GeneratedIds(lambda: {"2", "row 2", "row 2'"}, "row")
    assert [names(1), names(2)] == ["1", "row 2''"]
    assert [place_like(v) for v in ("12", 12, "line 3'", "a", True, None, "")] == [
        "12",
        "12",
        "line 3'",
        None,
        None,
        None,
        None,
    ]


def test_the_jsonl_pass_parses_only_lines_that_name_the_field(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(
        '{"id": 7, "output": "a"}\n{"output": "b"}\n{"key": "5", "output": "c"}\n'
        '["id", 3]\n{"id": "x", "output": "d"}\n',
        encoding="utf-8",
    )
    assert jsonl_given_ids(data, "id") == {"7"}
    assert jsonl_given_ids(data, "key") == {"5"}


def test_hostile_files_keep_their_ids_right(tmp_path: Path) -> None:
    # the break-test's findings: a line nested too deep after one without an id, and a field
    # name JSON may escape
    deep = tmp_path / "deep.jsonl"
    nested = "[" * 100_000 + "]" * 100_000
    deep.write_text(
        '{"output": "b"}\n{"id": "9", "output": "a", "metadata": {"x": ' + nested + "}}\n",
        encoding="utf-8",
    )
    items = list(read_dataset(deep))
    assert [i.id for i in items] == ["1", "2"]
    assert items[1].load_error == f"{deep}:2: JSON nested too deep to read"
    escaped = tmp_path / "escaped.jsonl"
    escaped.write_text(
        '{"clé": null, "output": "a"}\n{"clé": null, "output": "b"}\n'
        '{"cl\\u00e9": "2", "output": "c"}\n',
        encoding="utf-8",
    )
    fields = FieldMap(id="clé")
    assert [i.id for i in read_dataset(escaped, fields=fields)] == ["1", "line 2", "2"]


def test_a_repeated_dataframe_index_gives_distinct_names() -> None:
    pandas = pytest.importorskip("pandas")
    part = pandas.DataFrame({"output": ["a", "b"], "ground_truth": ["a", "b"]})
    frame = pandas.concat([part, part])  # index 0, 1, 0, 1; no id column
    result = run_evals_sync(frame, [create_content_similarity_scorer()], concurrency=1)
    assert [i.item.id for i in result.items] == ["0", "1", "row 0", "row 1"]
    assert result.verdict == "passed"


def test_ids_empty_bool_or_too_long(tmp_path: Path) -> None:
    long_id = "x" * 5_000
    data = [
        {"id": "", "output": "a", "ground_truth": "a"},
        {"id": False, "output": "a", "ground_truth": "a"},
        {"id": long_id, "output": "a", "ground_truth": "a"},
    ]
    result = run_evals_sync(data, [create_content_similarity_scorer()], concurrency=1)
    by_id = {i.item.id: i.scorer_results["content-similarity-scorer"] for i in result.items}
    assert by_id["0"].status == "ok"  # an empty id is no id, as in files
    assert by_id["False"].error is not None
    assert "an id must be a string or an integer, not bool" in by_id["False"].error.message
    [short] = [key for key in by_id if key.startswith("x" * 100 + "…#")]
    assert len(short) == 100 + 2 + 16
    error = by_id[short].error
    assert error is not None and "the item id holds 5,000 characters, over the 1,000" in (
        error.message
    )


def test_no_id_is_none_or_the_empty_string_only() -> None:
    from scorekit.items import is_no_id

    assert [is_no_id(v) for v in (None, "", " ", 0, "0", False)] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]
