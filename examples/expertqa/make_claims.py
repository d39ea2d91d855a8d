"""Build expertqa-claims.jsonl: answer claims with their evidence and the experts' support labels.

Run from the repository root (the source file sits in ../shared, next to the repository):

    python examples/expertqa/make_claims.py [path/to/rand_test.jsonl]

ExpertQA's experts judged, for each claim (one sentence) of a system's answer, whether the
evidence cited for it supports it: ``Complete``, ``Partial``, ``Incomplete`` or ``Missing``. This
script takes every claim of the random-split test file whose label is one of those four, whose
evidence has passage text and whose text is at most ``CLAIM_CHARS`` characters (citation markers
removed), then draws ``CLAIMS`` of them with a fixed seed, half with a ``Complete`` label and half
without (a balanced sample, so that agreement has both kinds of item to rank). Of those, a second
seeded draw of ``LABELLED`` keeps its label in ``supported`` (``1`` for ``Complete``, else ``0``);
the others leave ``supported`` empty, so the run treats them as unlabelled: the labelled slice
measures the judge, and the corrected mean covers all of them. ``expert_support`` keeps every
claim's original label, so the corrected mean can be checked against the mean of all labels.

Each line: ``id`` (``c`` + source line + ``.`` + claim index), ``question``, ``claim``,
``context`` (up to ``PASSAGES`` distinct evidence passages, each cut to about ``PASSAGE_CHARS``
characters at a word boundary), ``supported`` (``1``, ``0`` or empty), ``expert_support`` and
``field`` (the expert's domain).
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

from make_sample import SOURCE, cut

HERE = Path(__file__).resolve().parent
TARGET = HERE / "expertqa-claims.jsonl"
CLAIMS = 40  # 20 supported + 20 not: a few minutes with the tiny local judge on a CPU
LABELLED = 30  # claims that keep their label (an agreement figure needs 20 labelled and scored)
PASSAGES = 2  # evidence passages per claim
CLAIM_CHARS = 300  # the longest claim taken
SEED = 31  # the draws' seed (issue 31)
SUPPORT = {"Complete": 1, "Partial": 0, "Incomplete": 0, "Missing": 0}
CITATION = re.compile(r"\s*\[\d+\]")


def candidates(source: Path) -> list[dict[str, object]]:
    """Every claim with a support label, evidence text and a short enough text, in file order."""
    found: list[dict[str, object]] = []
    with source.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            record = json.loads(line)
            for answer in record["answers"].values():
                for index, claim in enumerate(answer.get("claims") or []):
                    support = claim.get("support")
                    text = CITATION.sub("", claim.get("claim_string") or "").strip()
                    passages: list[str] = []
                    for evidence in claim.get("evidence") or []:
                        _head, sep, body = evidence.partition("\n\n")
                        body = " ".join(body.split())
                        if sep and body and body not in passages:
                            passages.append(body)
                    if support not in SUPPORT or not passages or not text:
                        continue
                    if len(text) > CLAIM_CHARS:
                        continue
                    found.append(
                        {
                            "id": f"c{number}.{index}",
                            "question": record["question"],
                            "claim": text,
                            "context": [cut(p) for p in passages[:PASSAGES]],
                            "expert_support": support,
                            "field": record["metadata"]["field"],
                        }
                    )
    return found


def main(source: Path) -> None:
    pool = candidates(source)
    rng = random.Random(SEED)
    supported = [c for c in pool if SUPPORT[str(c["expert_support"])] == 1]
    other = [c for c in pool if SUPPORT[str(c["expert_support"])] == 0]
    chosen = rng.sample(supported, CLAIMS // 2) + rng.sample(other, CLAIMS - CLAIMS // 2)
    rng.shuffle(chosen)
    labelled = {str(c["id"]) for c in rng.sample(chosen, LABELLED)}
    with TARGET.open("w", encoding="utf-8") as out:
        for claim in chosen:
            label = SUPPORT[str(claim["expert_support"])]
            row = {**claim, "supported": label if claim["id"] in labelled else ""}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(
        f"{len(chosen)} claims of {len(pool)} candidates ({len(supported)} supported), "
        f"{LABELLED} labelled -> {TARGET}"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE)
