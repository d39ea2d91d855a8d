"""Human labels through a real store (SQLite and PostgreSQL), ``scorekit label`` and ``align``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.datasets.files import FieldMap, read_dataset
from scorekit.errors import ConfigError
from scorekit.evals.run import run_evals_sync
from scorekit.scorers import create_content_similarity_scorer
from scorekit.store import Store
from scorekit.store.labels import HumanLabel, add_labels, current_labels, label_history
from scorekit.trust import agreement, ppi_mean
from scorekit.trust.alignment import align

SCORER = "content-similarity-scorer"


def _items(count: int = 40, labelled: int = 30) -> list[dict[str, object]]:
    """Items whose output repeats the input (score 1) or not (score 0); labels mostly agree."""
    items: list[dict[str, object]] = []
    for i in range(count):
        same = i % 2 == 0
        item: dict[str, object] = {
            "id": f"q{i}",
            "input": f"answer number {i}",
            "output": f"answer number {i}" if same else "zzzz",
        }
        if i < labelled:
            agrees = i % 5 != 4  # one in five labels disagrees with the scorer
            item["human_labels"] = {"content-similarity": int(same if agrees else not same)}
        items.append(item)
    return items


def _expected_pairs(count: int = 40, labelled: int = 30) -> tuple[list[float], list[float]]:
    scores, labels = [], []
    for i in sorted(range(labelled), key=lambda n: f"q{n}"):  # align reads in item-id order
        same = i % 2 == 0
        scores.append(1.0 if same else 0.0)
        labels.append(float(same if i % 5 != 4 else not same))
    return scores, labels


def test_dataset_labels_are_stored_and_aligned(store_db: str | Path) -> None:
    result = run_evals_sync(_items(), [create_content_similarity_scorer()], store=store_db)
    with Store(store_db) as store:
        found = current_labels(store, result.run_id)
        assert len(found) == 30
        first = found[("q0", SCORER)]
        assert (first.label, first.source, first.author) == (1.0, "dataset", None)
        aligned = align(store, result.run_id, resamples=500)
    one = aligned[SCORER]
    scores, labels = _expected_pairs()
    assert (one.scored, one.labelled) == (40, 30)
    assert one.agreement == agreement(scores, labels, resamples=500)
    assert one.agreement.confusion == {"tp": 12, "fp": 3, "fn": 3, "tn": 12}
    unlabelled = [1.0 if i % 2 == 0 else 0.0 for i in sorted(range(30, 40), key=lambda n: f"q{n}")]
    assert one.estimate == ppi_mean(labels, scores, unlabelled)


def test_labels_added_later_keep_their_history(store_db: str | Path) -> None:
    result = run_evals_sync(_items(labelled=0), [create_content_similarity_scorer()],
                            store=store_db)  # fmt: skip
    with Store(store_db) as store:
        added = add_labels(
            store, result.run_id, [HumanLabel("q1", SCORER, 1, "looks right", "ana")]
        )
        assert added == 1
        add_labels(store, result.run_id, [HumanLabel("q1", SCORER, 0.0, "on second look", "bo")])
        history = label_history(store, result.run_id, "q1", SCORER)
        assert [(h.label, h.note, h.author, h.source) for h in history] == [
            (1.0, "looks right", "ana", "api"),
            (0.0, "on second look", "bo", "api"),
        ]
        assert current_labels(store, result.run_id)[("q1", SCORER)].label == 0.0
        for bad, field, message in [
            (HumanLabel("nope", SCORER, 1), "item_id", "the run has no item 'nope'"),
            (HumanLabel("q1", "other", 1), "scorer_id", "'other' is not a scorer of the run"),
            (HumanLabel("q1", SCORER, 2), "human_labels", "a number in \\[0, 1\\]"),
        ]:
            with pytest.raises(ConfigError, match=message) as caught:
                add_labels(store, result.run_id, [HumanLabel("q2", SCORER, 1), bad])
            assert caught.value.field == field
        # all or none: the good label beside each bad one was not written
        assert ("q2", SCORER) not in current_labels(store, result.run_id)


def test_the_label_command_stores_good_lines_and_names_bad_ones(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    result = run_evals_sync(_items(labelled=0), [create_content_similarity_scorer()], store=db)
    labels = tmp_path / "labels.jsonl"
    lines = [
        {"item_id": "q0", "scorer": "content-similarity", "label": 1, "note": "same text"},
        {"id": "q1", "human_labels": {SCORER: 0}},
        {"item_id": "q2", "scorer": "content-similarity", "label": "high"},
        {"item_id": "q3", "scorer": "faithfulness", "label": 1},
        {"item_id": "q99", "scorer": SCORER, "label": 1},
        {"item_id": "q4", "label": 1},
    ]
    labels.write_text("\n".join(json.dumps(x) for x in lines) + "\n{oops\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["label", result.run_id, str(labels), "--db", str(db),
                               "--author", "ana"])  # fmt: skip
    assert done.exit_code == 1, done.output
    assert f"stored 2 label(s) on run {result.run_id}" in done.output
    text = " ".join(done.output.split())
    assert f"{labels}:3: field 'human_labels': label of '{SCORER}'" in text
    assert f"{labels}:4: field 'scorer': scorer: 'faithfulness' is not a scorer" in text
    assert f"{labels}:5: field 'item_id': no item 'q99'" in text
    assert f"{labels}:6: field 'scorer': missing field 'scorer'" in text
    assert f"{labels}:7: not JSON" in text
    with Store(db) as store:
        found = current_labels(store, result.run_id)
    assert {k: (v.label, v.author, v.source) for k, v in found.items()} == {
        ("q0", SCORER): (1.0, "ana", "file"),
        ("q1", SCORER): (0.0, "ana", "file"),
    }


def test_the_align_command_prints_and_writes_the_figures(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(x) for x in _items()) + "\n", encoding="utf-8")
    result = run_evals_sync(read_dataset(data), [create_content_similarity_scorer()], store=db)
    out = tmp_path / "align.json"
    done = CliRunner().invoke(app, ["align", "latest", "--db", str(db), "--json", str(out),
                                    "-s", "content-similarity"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "agreement with human labels" in done.output and "30/40" in done.output
    wide = CliRunner().invoke(app, ["align", "latest", "--db", str(db), "--no-save"],
                              env={"COLUMNS": "240"})  # fmt: skip
    (row,) = [line for line in wide.output.splitlines() if SCORER in line]
    cells = [cell.strip() for cell in row.split("│")[1:-1]]
    assert cells[7] == "0.500"  # the judge's raw mean: 20 of the 40 outputs repeat the input
    assert cells[8] == "0.500 [0.329, 0.671] (ppi)"  # closed form: no resampling
    written = json.loads(out.read_text())
    assert written["run_id"] == result.run_id
    (one,) = written["scorers"]
    scores, labels = _expected_pairs()
    assert one["agreement"] == agreement(scores, labels).to_dict()
    assert one["estimate"]["method"] == "ppi"


def test_too_few_labels_says_so(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    run_evals_sync(_items(labelled=7), [create_content_similarity_scorer()], store=db)
    done = CliRunner().invoke(app, ["align", "latest", "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert "not enough labels (n = 7, need 20)" in " ".join(done.output.split())
    with Store(db) as store:
        estimate = align(store, "latest")[SCORER].estimate
    assert estimate is not None and estimate.method == "bootstrap"


def test_a_label_for_no_scorer_of_the_run_makes_an_error_item(tmp_path: Path) -> None:
    items = _items(count=3, labelled=0)
    items[1]["human_labels"] = {"faithfulness": 1}
    items[2]["human_labels"] = {"content-similarity": 7}
    result = run_evals_sync(items, [create_content_similarity_scorer()])
    done = sorted(result.items, key=lambda outcome: outcome.item.id)
    statuses = [outcome.scorer_results[SCORER].status for outcome in done]
    assert statuses == ["ok", "error", "error"]
    errors = [outcome.target_error for outcome in done]
    assert errors[1] is not None and (
        "item 'q1': human_labels: 'faithfulness' is not a scorer of this run" in errors[1].message
    )
    assert errors[2] is not None and "item 2: human_labels.content-similarity" in errors[2].message


def test_csv_label_columns_and_a_json_cell(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text(
        "id,input,output,supported,human_labels\n"
        "a,x,x,1,\n"
        'b,x,y,,"{""content-similarity"": 0.5}"\n'
        "c,x,y,yes,\n",
        encoding="utf-8",
    )
    fields = FieldMap(labels=(("content-similarity", "supported"),))
    items = list(read_dataset(data, fields=fields))
    assert [i.human_labels for i in items[:2]] == [
        {"content-similarity": 1.0},
        {"content-similarity": 0.5},
    ]
    assert items[2].load_error is not None
    assert "human_labels.content-similarity" in items[2].load_error


def test_an_older_database_gets_the_labels_table(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    result = run_evals_sync(_items(count=2, labelled=0), [create_content_similarity_scorer()],
                            store=db)  # fmt: skip
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE labels")
    with Store(db, create=False, read_only=True) as store:
        assert current_labels(store, result.run_id) == {}
    with Store(db, create=False) as store:
        add_labels(store, result.run_id, [HumanLabel("q0", SCORER, 1)])
        assert len(current_labels(store, result.run_id)) == 1


def test_show_adds_the_agreement_only_for_a_run_with_labels(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    plain = run_evals_sync(_items(labelled=0), [create_content_similarity_scorer()], store=db)
    labelled = run_evals_sync(_items(), [create_content_similarity_scorer()], store=db)
    runner = CliRunner()
    shown = " ".join(runner.invoke(app, ["show", plain.run_id, "--db", str(db)]).output.split())
    assert "agreement with human labels" not in shown  # no labels: no scan of every score
    shown = " ".join(runner.invoke(app, ["show", labelled.run_id, "--db", str(db)]).output.split())
    assert "agreement with human labels" in shown and "30/40" in shown and "(ppi)" in shown
