"""The labelled rows: loaders for the shared human-labelled data, and seeded balanced subsets.

Every loader reads a file in ``shared/data`` (``SCOREKIT_SHARED`` overrides the folder, default
``../shared`` beside the repository) and returns :class:`Row` values holding the texts a
scorer needs and the human label as 0/1. Nothing here writes any text anywhere: the ARES
documents are Databricks' and must not be copied into the repository.

* :func:`load_ares`: ARES Databricks development half, 104 rows; one document per row. Label
  ``Context_Relevance_Label`` (54 of 104 positive), ``Answer_Faithfulness_Label`` (90) or
  ``Answer_Relevance_Label`` (93).
* :func:`load_begin`: BEGIN Wizard-of-Wikipedia dev, 430 rows (``Generic`` dropped): label
  1 = ``Fully attributable`` (180).
* :func:`load_expertqa_claims`: ExpertQA ``rand_test.jsonl`` claims with passage text and a
  support label, 793 rows: label 1 = ``Complete`` (562).
* :func:`load_ragchecker`: RAGChecker meta-evaluation, 280 instances (two annotators each):
  label 1 = the annotators' mean correctness preference favours response 2, 0 = response 1;
  ties (mean 0) dropped.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ARES_LABELS",
    "DATA",
    "Row",
    "balanced_sample",
    "load_ares",
    "load_begin",
    "load_expertqa_claims",
    "load_ragchecker",
]

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SCOREKIT_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data"
"""The shared data folder (``$SCOREKIT_SHARED/data``, default ``../shared/data``)."""

ARES_LABELS = {
    "context_relevance": "Context_Relevance_Label",
    "answer_faithfulness": "Answer_Faithfulness_Label",
    "answer_relevance": "Answer_Relevance_Label",
}
"""The ARES label columns, by the names the tasks use."""

_CITATION = re.compile(r"\s*\[\d+\]")
_SUPPORT = {"Complete": 1, "Missing": 0, "Incomplete": 0, "Partial": 0}


@dataclass(frozen=True)
class Row:
    """One labelled example.

    Attributes:
        key: a stable id within its dataset (``"ares:2"``, ``"begin:17"``, ...).
        question: the user's input.
        contexts: the retrieved documents / evidence passages (uncut).
        answer: the output being judged (for RAGChecker, response 1).
        label: the human label, 1 or 0.
        reference: the reference answer (RAGChecker), else ``None``.
        other: the second response of a pair (RAGChecker), else ``None``.
    """

    key: str
    question: str
    contexts: tuple[str, ...]
    answer: str
    label: int
    reference: str | None = None
    other: str | None = None


def load_ares(label: str, path: Path | None = None) -> list[Row]:
    """The 104 ARES development rows with one of their labels.

    Args:
        label: a key of :data:`ARES_LABELS`.
        path: the TSV file (default ``DATA/ares_databricks_human_dev/ares_dev.tsv``).

    Raises:
        KeyError: unknown ``label``.
    """
    column = ARES_LABELS[label]
    path = path or DATA / "ares_databricks_human_dev" / "ares_dev.tsv"
    csv.field_size_limit(sys.maxsize)  # documents reach 13.6k characters
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            Row(f"ares:{r['row']}", r["Question"], (r["Document"],), r["Answer"], int(r[column]))
            for r in csv.DictReader(handle, delimiter="\t")
        ]


def load_begin(path: Path | None = None) -> list[Row]:
    """BEGIN rows labelled (not) fully attributable; ``Generic`` rows are dropped."""
    path = path or DATA / "begin_wow" / "begin_dev_wow.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [
            Row(
                f"begin:{i}",
                r["message"],
                (r["knowledge"],),
                r["response"],
                int(r["begin_label"] == "Fully attributable"),
            )
            for i, r in enumerate(reader)
            if r["begin_label"] in ("Fully attributable", "Not fully attributable")
        ]


def _passage(evidence: str) -> str | None:
    _, _, text = evidence.partition("\n\n")
    return text.strip() or None


def load_expertqa_claims(path: Path | None = None) -> list[Row]:
    """ExpertQA claims with passage text and a support label (citation markers removed)."""
    path = path or DATA / "expertqa_lfqa" / "rand_test.jsonl"
    rows = []
    with path.open(encoding="utf-8") as handle:
        for q, line in enumerate(handle):
            record = json.loads(line)
            for answer in record["answers"].values():
                for c, claim in enumerate(answer.get("claims") or []):
                    label = _SUPPORT.get(claim.get("support"))
                    passages = [p for e in claim.get("evidence") or [] if (p := _passage(e))]
                    if label is None or not passages:
                        continue
                    text = _CITATION.sub("", claim["claim_string"]).strip()
                    rows.append(
                        Row(f"expertqa:{q}.{c}", record["question"], tuple(passages), text, label)
                    )
    return rows


def load_ragchecker(path: Path | None = None) -> list[Row]:
    """RAGChecker pairs whose two annotators' mean correctness preference is not a tie."""
    path = path or DATA / "ragchecker_meta_eval" / "human_labeled_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    by_instance: dict[int, list[dict[str, object]]] = {}
    for record in records:
        by_instance.setdefault(int(record["instance_id"]), []).append(record)
    rows = []
    for instance, pair in sorted(by_instance.items()):
        total = sum(int(str(r["correctness_label"])) for r in pair)
        if total == 0:
            continue
        first = pair[0]
        model1, model2 = first["model1"], first["model2"]
        assert isinstance(model1, dict)
        assert isinstance(model2, dict)
        rows.append(
            Row(
                f"ragchecker:{instance}",
                str(first["query"]),
                (),
                str(model1["response"]),
                int(total > 0),
                reference=str(first["gt_answer"]),
                other=str(model2["response"]),
            )
        )
    return rows


def balanced_sample(rows: Sequence[Row], n: int, seed: int) -> list[Row]:
    """Up to ``n`` rows, half of each label where the data allows, in a seeded order.

    Each label's rows are shuffled with ``random.Random(seed)``; the positives get
    ``ceil(n / 2)`` places (more when there are too few negatives), the negatives the rest;
    the sample is shuffled again with the same generator. The same rows, seed and ``n`` always
    give the same sample, and the first ``k`` rows of a sample are the ones a repeat run
    re-scores.
    """
    rng = random.Random(seed)
    positive = [r for r in rows if r.label == 1]
    negative = [r for r in rows if r.label == 0]
    rng.shuffle(positive)
    rng.shuffle(negative)
    take_pos = min(len(positive), max(n - len(negative), n // 2 + n % 2))
    sample = positive[:take_pos] + negative[: n - take_pos]
    rng.shuffle(sample)
    return sample
