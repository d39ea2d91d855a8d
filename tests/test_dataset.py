from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.datasets.files import FieldMap, read_dataset
from scorekit.errors import ConfigError


def test_jsonl_with_a_malformed_line(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(
        json.dumps({"id": "a", "input": "q", "output": "o", "ground_truth": "g"}) + "\n"
        "{not json\n"
        "\n" + json.dumps({"input": "q2"}) + "\n" + json.dumps({"output": "o3", "label": 2}) + "\n",
        encoding="utf-8",
    )
    items = list(read_dataset(path))
    assert [i.id for i in items] == ["a", "2", "4", "5"]
    assert items[0].ground_truth == "g" and items[0].load_error is None
    assert items[1].load_error is not None and f"{path}:2: invalid JSON" in items[1].load_error
    assert items[2].load_error == f"{path}:4: missing field 'output'"
    assert items[3].output == "o3" and items[3].input is None


def test_csv_with_header_and_mapping(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('q,answer,ref\n"Hi, you",hello,"hello"\nshort\n', encoding="utf-8")
    fields = FieldMap(input="q", output="answer", ground_truth="ref")
    items = list(read_dataset(path, fields=fields))
    assert items[0].input == "Hi, you" and items[0].output == "hello"
    assert items[0].id == "2"
    assert items[1].load_error == f"{path}:3: 1 columns, the header has 3"


def test_missing_column_fails_before_scoring(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("input,answer\nq,a\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no column 'output'") as info:
        read_dataset(path)
    assert info.value.field == "output"


def test_headerless_quote_free_tsv(tmp_path: Path) -> None:
    path = tmp_path / "d.tsv"
    path.write_text('x\t3.5\tA "quoted\tB\n', encoding="utf-8")
    fields = FieldMap(ground_truth="2", output="3", extra=("1",))
    [item] = read_dataset(path, fields=fields, header=False, quoting=False)
    assert item.ground_truth == 'A "quoted' and item.output == "B"
    assert item.metadata["1"] == "3.5"


def test_missing_file_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        read_dataset(tmp_path / "nope.jsonl")
    other = tmp_path / "d.parquet"
    other.write_text("x")
    with pytest.raises(ConfigError, match="cannot tell the format"):
        read_dataset(other)


def test_trajectory_context_and_request_fields_are_read(tmp_path: Path) -> None:
    steps = {"steps": [{"stepType": "tool_call", "name": "search"}]}
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text(
        json.dumps(
            {
                "output": "a",
                "expected_trajectory": steps,
                "additional_context": {"k": 1},
                "request_context": {"rubric": "be brief"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    (item,) = read_dataset(jsonl)
    assert (item.expected_trajectory, item.additional_context) == (steps, {"k": 1})
    assert item.request_context == {"rubric": "be brief"}
    csv_file = tmp_path / "d.csv"
    csv_file.write_text(
        'output,expected_trajectory,additional_context\na,"[""search"", ""answer""]",plain\n',
        encoding="utf-8",
    )
    (row,) = read_dataset(csv_file)
    assert row.expected_trajectory == ["search", "answer"]  # a JSON cell is parsed
    assert row.additional_context == "plain"  # any other text stays text
    with pytest.raises(ConfigError, match="no column 'trajectory'"):
        read_dataset(
            csv_file,
            fields=FieldMap(
                expected_trajectory="trajectory", required=frozenset({"expected_trajectory"})
            ),
        )


def test_trajectories_json_cells_and_mastra_spellings_are_read(tmp_path: Path) -> None:
    steps = {"steps": [{"stepType": "tool_call", "name": "search"}]}
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text(
        json.dumps({"input": "q", "output": steps, "expectedTrajectory": steps, "groundTruth": "g"})
        + "\n",
        encoding="utf-8",
    )
    (item,) = read_dataset(jsonl)
    assert item.load_error is None
    assert (item.output, item.expected_trajectory, item.ground_truth) == (steps, steps, "g")
    messages = [{"role": "assistant", "content": "x", "toolInvocations": []}]
    csv_file = tmp_path / "t.csv"
    csv_file.write_text(
        "input,output,expected_trajectory\n"
        f'q,"{json.dumps(messages).replace(chr(34), chr(34) * 2)}","[{{""name"": ""search""}}"\n'
        "q,[1] cited,\n",
        encoding="utf-8",
    )
    first, second = read_dataset(csv_file)
    # a JSON cell that is not JSON is a load error naming the file, line and field
    assert first.load_error is not None
    assert first.load_error.startswith(f"{csv_file}:2: field 'expected_trajectory': not valid JSON")
    assert second.output == "[1] cited"  # text that only starts like JSON stays text
    good = tmp_path / "g.csv"
    good.write_text(
        f'input,output\nq,"{json.dumps(messages).replace(chr(34), chr(34) * 2)}"\n',
        encoding="utf-8",
    )
    (parsed,) = read_dataset(good)
    assert parsed.output == messages


def test_a_json_array_file_is_read_record_by_record(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    records = [{"id": "a", "input": "q", "output": "x"}, 3, {"input": "q2", "output": "y"},
               {"input": "q3"}]  # fmt: skip
    path.write_text(json.dumps(records, indent=2))
    items = list(read_dataset(path))
    assert [i.id for i in items] == ["a", "2", "3", "4"]
    assert (items[0].input, items[0].output) == ("q", "x")
    assert items[1].load_error == f"{path} record 2: expected a JSON object"
    assert items[2].output == "y" and items[2].load_error is None
    assert items[3].load_error == f"{path} record 4: missing field 'output'"
    path.write_text('{"input": "q"}')
    with pytest.raises(ConfigError, match=r"one array of objects, not an object \(JSON Lines\?"):
        list(read_dataset(path))
    path.write_text("[{]")
    with pytest.raises(ConfigError, match="invalid JSON at line 1, column 3"):
        list(read_dataset(path))


@pytest.mark.parametrize("text", ['[{"input": "q", "output": "x"},\n {"input": "r"}]',
                                  '[\n  {"input": "q", "output": "x"}\n]\n'])  # fmt: skip
def test_a_json_array_saved_as_jsonl_is_said_once(tmp_path: Path, text: str) -> None:
    # issue 34: an array under .jsonl gave one "invalid JSON" per line and an all-error run
    path = tmp_path / "d.jsonl"
    path.write_text(text)
    with pytest.raises(ConfigError, match="holds a JSON array, not JSON Lines") as info:
        read_dataset(path)
    assert "--format json" in str(info.value)
    assert info.value.field == "format"
    assert next(i.output for i in read_dataset(path, format="json")) == "x"


@pytest.mark.parametrize(("text", "hint"), [("input;output\nq;a\n", "';'"),
                                             ("input|output\nq|a\n", "'|'")])  # fmt: skip
def test_a_header_that_splits_at_another_delimiter_gets_a_hint(
    tmp_path: Path, text: str, hint: str
) -> None:
    path = tmp_path / "d.csv"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        read_dataset(path)
    assert str(info.value).endswith(f"the header splits at {hint}: give --delimiter {hint}")
    assert [i.output for i in read_dataset(path, delimiter=hint[1])] == ["a"]
    path.write_text("question,answer\nq,a\n")  # a real mismatch: no hint
    with pytest.raises(ConfigError) as info:
        read_dataset(path)
    assert "--delimiter" not in str(info.value)


def test_the_tab_the_hint_names_is_accepted_as_written(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("input\toutput\nq\ta\n")
    with pytest.raises(ConfigError) as info:
        read_dataset(path)
    assert str(info.value).endswith("the header splits at '\\t': give --delimiter '\\t'")
    assert [i.output for i in read_dataset(path, delimiter="\\t")] == ["a"]  # as a shell passes it
