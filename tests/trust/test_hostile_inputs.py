"""Regressions found by a hostile review of the trust features (each failed before its fix)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.datasets.files import FieldMap, read_dataset
from scorekit.errors import ConfigError
from scorekit.evals.run import run_evals_sync
from scorekit.scorers import build_scorer, create_content_similarity_scorer
from scorekit.store import Store
from scorekit.store.alignments import latest_alignments
from scorekit.store.labels import current_labels, label_history
from scorekit.trust import agreement, paired_comparison
from scorekit.view import create_app
from scorekit.view.annotation import Annotator
from tests.trust.test_labels_and_align import SCORER, _items


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_resume_keeps_a_label_set_after_the_run(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    rows = _items(count=3, labelled=3)
    rows[0]["output"] = ["not", "a", "text"]  # an error item, scored again on resume
    data = _write(tmp_path / "d.jsonl", rows)
    first = run_evals_sync(read_dataset(data), [create_content_similarity_scorer()], store=db)
    fix = _write(tmp_path / "fix.jsonl", [{"item_id": "q0", "scorer": SCORER, "label": 0,
                                           "note": "corrected"}])  # fmt: skip
    assert (
        CliRunner().invoke(app, ["label", first.run_id, str(fix), "--db", str(db)]).exit_code == 0
    )
    for _ in range(2):
        run_evals_sync(read_dataset(data), [create_content_similarity_scorer()], store=db,
                       resume=first.run_id)  # fmt: skip
    with Store(db) as store:
        history = label_history(store, first.run_id, "q0", SCORER)
        assert [(h.label, h.source) for h in history] == [(1.0, "dataset"), (0.0, "file")]
        assert current_labels(store, first.run_id)[("q0", SCORER)].note == "corrected"


def test_a_lower_bound_gate_leaves_the_other_figures_alone() -> None:
    result = run_evals_sync(_items(), [create_content_similarity_scorer()],
                            min_agreement={SCORER: {"auroc": 0.7, "kappa.low": 0.9}})  # fmt: skip
    (reason,) = result.failures[SCORER]
    assert reason.startswith("kappa lower bound ")


@pytest.mark.parametrize(
    ("a", "b"),
    [([0.2], [0.46]), ([0.5] * 100, [0.5] * 96 + [0.49] * 4), ([0.1 + 0.2] * 30, [0.3] * 30)],
)
def test_noise_and_single_items_are_no_detectable_difference(
    a: list[float], b: list[float]
) -> None:
    assert paired_comparison(a, b).verdict == "no detectable difference"


def test_a_bad_note_refuses_its_line_only_and_huge_numbers_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    run = run_evals_sync(_items(count=3, labelled=0), [create_content_similarity_scorer()],
                         store=db)  # fmt: skip
    lines = [
        {"item_id": "q0", "scorer": SCORER, "label": 1},
        {"item_id": "q1", "scorer": SCORER, "label": 1, "note": 5},
        {"item_id": "q2", "scorer": ["x"], "label": 1},
    ]
    labels = _write(tmp_path / "l.jsonl", lines)
    with labels.open("a", encoding="utf-8") as handle:
        handle.write(
            '{"item_id": "q2", "scorer": "content-similarity", "label": 1' + "0" * 400 + "}\n"
        )
    done = CliRunner().invoke(app, ["label", run.run_id, str(labels), "--db", str(db)])
    assert done.exit_code == 1
    text = " ".join(done.output.split())
    assert "stored 1 label(s)" in text
    assert f"{labels}:2: field 'note'" in text and f"{labels}:3: field 'scorer'" in text
    assert f"{labels}:4: field 'human_labels'" in text and "a huge integer" in text
    items = list(read_dataset(_write(tmp_path / "d.jsonl", [
        {"id": "a", "output": "x", "human_labels": {"content-similarity": 10**400}}])))  # fmt: skip
    assert items[0].load_error is not None and "a huge integer" in items[0].load_error


def test_csv_label_cells_that_are_not_labels_and_a_misspelt_column(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("id,output,human_labels,sup\na,x,not json,1\nb,y,  ,true\n", encoding="utf-8")
    fields = FieldMap(labels=(("content-similarity", "sup"),))
    first, second = read_dataset(data, fields=fields)
    assert first.load_error is not None and "field 'human_labels'" in first.load_error
    assert second.load_error is None and second.human_labels == {"content-similarity": 1.0}
    with pytest.raises(ConfigError, match="no column 'nosuch' in the header"):
        list(read_dataset(data, fields=FieldMap(labels=(("content-similarity", "nosuch"),))))


def test_a_negative_seed_and_a_non_ascii_token(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="seed must be an integer >= 0") as caught:
        paired_comparison([0.1], [0.2], seed=-1)
    assert caught.value.field == "seed"
    with pytest.raises(ConfigError, match="seed"):
        agreement([0.1] * 20, [1, 0] * 10, seed=-1)
    db = tmp_path / "x.db"
    run = run_evals_sync(_items(count=2, labelled=0), [create_content_similarity_scorer()],
                         store=db)  # fmt: skip
    with Store(db, create=False) as store:
        client = TestClient(create_app(db, annotator=Annotator(store)), base_url="http://127.0.0.1")
        posted = client.post(f"/runs/{run.run_id}/item/label",
                             data={"token": "é", "item_id": "q0", "label": "1"})  # fmt: skip
        assert posted.status_code == 403


def test_options_at_their_defaults_are_the_same_scorer(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    labelled = run_evals_sync(_items(), [build_scorer("content-similarity")], store=db)
    at_default = build_scorer("content-similarity", ignore_case=True)
    same = run_evals_sync(_items(labelled=0), [at_default], store=db)
    assert CliRunner().invoke(app, ["align", labelled.run_id, "--db", str(db)]).exit_code == 0
    with Store(db) as store:
        found = latest_alignments(store, store.get_run(same.run_id))[SCORER]
    assert not found.stale and found.measured_on == labelled.run_id
