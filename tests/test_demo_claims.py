"""The main job's labelled claims (``make demo``'s third step) read as the demo reads them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.cli.config import load_config
from scorekit.datasets.files import read_dataset

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "expertqa"
SHARED = Path(os.environ.get("SCOREKIT_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def test_the_config_gives_40_claims_30_of_them_labelled_for_faithfulness() -> None:
    config = load_config(EXAMPLES / "expertqa-claims.yaml")
    items = list(
        read_dataset(config.base_dir / config.data.path, fields=config.data.fields.field_map())
    )
    assert len(items) == 40
    labelled = [item for item in items if item.human_labels]
    assert len(labelled) == 30
    assert {label for item in labelled for label in item.human_labels.values()} == {0, 1}
    assert all(set(item.human_labels) == {"faithfulness"} for item in labelled)
    rows = [json.loads(line) for line in (EXAMPLES / "expertqa-claims.jsonl").open()]
    assert sum(row["expert_support"] == "Complete" for row in rows) == 20  # balanced draw
    for row in rows:  # a kept label is the expert's own
        if row["supported"] != "":
            assert row["supported"] == int(row["expert_support"] == "Complete")


@pytest.mark.skipif(
    not (SHARED / "data" / "expertqa_lfqa" / "rand_test.jsonl").exists(),
    reason="../shared/data/expertqa_lfqa is not beside the checkout",
)
def test_make_claims_rebuilds_the_shipped_file(tmp_path: Path) -> None:
    shipped = (EXAMPLES / "expertqa-claims.jsonl").read_bytes()
    copy = tmp_path / "expertqa"
    copy.mkdir()
    for name in ("make_claims.py", "make_sample.py"):
        (copy / name).write_text((EXAMPLES / name).read_text())
    source = SHARED / "data" / "expertqa_lfqa" / "rand_test.jsonl"
    subprocess.run([sys.executable, str(copy / "make_claims.py"), str(source)], check=True,
                   capture_output=True)  # fmt: skip
    assert (copy / "expertqa-claims.jsonl").read_bytes() == shipped
