"""The item record, declared once (``scorekit.steps.ItemRecord``), through every run path.

Three kinds of check: the typed mirrors (``ScorerRunResult``, ``FieldMap``, the config's
``FieldsConfig``) and the store's columns name exactly the declared fields; every field travels
from a dataset file to the scorer, the result and the store; and adding a harmless field to a
copy of the source, in its declaration and the three mirrors only, makes it travel the same way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

import scorekit
from scorekit import create_scorer
from scorekit.cli.config import FieldsConfig
from scorekit.datasets.files import OPTIONAL_FIELDS, FieldMap, read_dataset
from scorekit.errors import ConfigError
from scorekit.evals.run import run_evals_sync
from scorekit.items import ITEM_FIELDS, EvalItem
from scorekit.pipeline import Scorer
from scorekit.results import ScorerRunResult
from scorekit.steps import CELLS, RECORD_FIELDS, RESULT_FIELDS, ItemRecord, ScorerRun
from scorekit.store import Store
from scorekit.store.records import ResultRecord
from scorekit.store.tables import results as results_table
from scorekit.testing import assert_score

EXPECTED_FIELDS = (
    "input",
    "output",
    "ground_truth",
    "context",
    "request_context",
    "expected_trajectory",
    "additional_context",
)


def test_the_declaration_and_its_mirrors_name_the_same_fields() -> None:
    assert RECORD_FIELDS == EXPECTED_FIELDS
    assert tuple(name for name in RECORD_FIELDS if name != "context") == RESULT_FIELDS
    assert set(CELLS) == set(RECORD_FIELDS)
    for record_class in (ScorerRun, EvalItem, ResultRecord):
        assert issubclass(record_class, ItemRecord), record_class
    assert {"id", "human_labels", "metadata", "trace", *RECORD_FIELDS} == ITEM_FIELDS
    result_fields = set(ScorerRunResult.model_fields)
    assert set(RESULT_FIELDS) <= result_fields
    assert not (set(RECORD_FIELDS) - set(RESULT_FIELDS)) & result_fields
    mapped = {f.name for f in fields(FieldMap) if f.type in ("str", str)}
    assert mapped == {*RECORD_FIELDS, "id"} == set(OPTIONAL_FIELDS) | {"output"}
    configured = {
        name for name, info in FieldsConfig.model_fields.items() if info.annotation is str
    }
    assert configured == mapped
    assert set(RECORD_FIELDS) <= set(results_table.c.keys())


def _echo_scorer(seen: list[ScorerRun]) -> Scorer:
    def score(ctx: Any) -> float:
        seen.append(ctx.run)
        return 1.0

    return create_scorer("echo", description="keeps what it saw").generate_score(score)


RECORD = {
    "id": "a",
    "input": "q",
    "output": "o",
    "ground_truth": "g",
    "context": ["c1", "c2"],
    "request_context": {"user": 7},
    "expected_trajectory": {"steps": [{"name": "search"}]},
    "additional_context": {"note": "n"},
}


def test_every_field_travels_from_the_file_to_the_scorer_the_result_and_the_store(
    tmp_path: Path,
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    seen: list[ScorerRun] = []
    result = run_evals_sync(read_dataset(data), [_echo_scorer(seen)], store=tmp_path / "x.db")
    (run,) = seen
    assert {name: getattr(run, name) for name in RECORD_FIELDS} == {
        **{name: RECORD[name] for name in RECORD_FIELDS},
        "context": ("c1", "c2"),
    }
    scored = result.items[0].scorer_results["echo"]
    assert {name: getattr(scored, name) for name in RESULT_FIELDS} == {
        name: RECORD[name] for name in RESULT_FIELDS
    }
    with Store(tmp_path / "x.db") as store:
        (stored,) = store.results(result.run_id)
    assert {name: getattr(stored, name) for name in RECORD_FIELDS} == {
        name: RECORD[name] for name in RECORD_FIELDS
    }


def test_the_record_or_its_keywords_give_the_same_result() -> None:
    seen: list[ScorerRun] = []
    scorer = _echo_scorer(seen)
    record = ScorerRun(**{name: RECORD[name] for name in RECORD_FIELDS}, run_id="r1")
    by_record = scorer.run_sync(record)
    by_keywords = scorer.run_sync(**{name: RECORD[name] for name in RECORD_FIELDS}, run_id="r1")
    assert by_record.model_dump(exclude={"duration_s"}) == by_keywords.model_dump(
        exclude={"duration_s"}
    )
    assert seen[0] == seen[1] and seen[0].context == ("c1", "c2")


def test_a_keyword_outside_the_record_is_refused_by_name() -> None:
    scorer = _echo_scorer([])
    with pytest.raises(ConfigError, match="unknown record field") as caught:
        scorer.run_sync(output="o", groundtruth="g")
    assert caught.value.field == "groundtruth"
    with pytest.raises(ConfigError, match="not both") as both:
        scorer.run_sync(ScorerRun(output="o"), input="q")
    assert both.value.field == "input"
    with pytest.raises(ConfigError, match="unknown item field") as asserted:
        assert_score(scorer, output="o", ground_truht="g")
    assert asserted.value.field == "ground_truht"


# The harmless field: one line in the declaration and one in each typed mirror, nothing else.
PATCHES = {
    "steps.py": (
        "    additional_context: Any = field(default=None, metadata=_JSON)\n",
        "    priority: Any = field(default=None, metadata=_JSON)\n",
    ),
    "results.py": ("    additional_context: Any = None\n", "    priority: Any = None\n"),
    "datasets/files.py": (
        '    additional_context: str = "additional_context"\n',
        '    priority: str = "priority"\n',
    ),
    "cli/config.py": (
        '    additional_context: str = "additional_context"\n',
        '    priority: str = "priority"\n',
    ),
}

SCRIPT = """
import json, sys
from pathlib import Path
from scorekit import create_scorer
from scorekit.cli.config import FieldsConfig
from scorekit.datasets.files import read_dataset
from scorekit.evals.run import run_evals_sync
from scorekit.store import Store
from scorekit.testing import assert_score

tmp = Path(sys.argv[1])
seen = []
def score(ctx):
    seen.append(ctx.run.priority)
    return 1.0
scorer = create_scorer("echo", description="keeps what it saw").generate_score(score)
(tmp / "d.csv").write_text('question,answer,urgency\\nq,o,"{""level"": 2}"\\n', encoding="utf-8")
fields = FieldsConfig(input="question", output="answer", priority="urgency").field_map()
result = run_evals_sync(read_dataset(tmp / "d.csv", fields=fields), [scorer], store=tmp / "x.db")
with Store(tmp / "x.db") as store:
    (stored,) = store.results(result.run_id)
checked = assert_score(scorer, output="o", priority=[3], min=1)
print(json.dumps({
    "seen": seen,
    "result": result.items[0].scorer_results["echo"].priority,
    "stored": stored.priority,
    "asserted": checked.priority,
}))
"""


def test_a_harmless_field_added_in_four_lines_travels_the_whole_way(tmp_path: Path) -> None:
    source = Path(scorekit.__file__).parent
    copy = tmp_path / "src" / "scorekit"
    # the Python sources only: a compiled text core would shadow nothing here, but is not needed
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "_compiled"))
    for name, (anchor, added) in PATCHES.items():
        path = copy / name
        text = path.read_text(encoding="utf-8")
        assert text.count(anchor) == 1, f"{name}: the anchor line moved; update the patch"
        path.write_text(text.replace(anchor, anchor + added), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "seen": [{"level": 2}, [3]],
        "result": {"level": 2},
        "stored": {"level": 2},
        "asserted": [3],
    }
