"""A fingerprint of the code scorers' results on every text at hand: equal before and after a
change that must not change a single result (issue 35's speed work).

Texts: every distinct string of the shared data sets (ExpertQA, RAGChecker, BEGIN, STS-B of
``../shared/data`` and ``examples/stsb``: questions, answers, passages, sentences, whatever
their length, ASCII or not), in a fixed order; each text is scored as the output against the
next as the reference (``input``), by completeness, content similarity, textual difference,
keyword coverage and tone (each with its defaults; tone also against a reference tone, the
next text). The fingerprint of a scorer is the sha256 of its results as JSON lines (status,
score, reason and step results), one per text.

Run: ``.venv/bin/python benchmarks/code_scorer_fingerprint.py [--limit N]``; compare the
printed digests of two checkouts (``git worktree``).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from scorekit.pipeline import Scorer
from scorekit.scorers import (
    create_completeness_scorer,
    create_content_similarity_scorer,
    create_keyword_coverage_scorer,
    create_textual_difference_scorer,
    create_tone_scorer,
)

ROOT = Path(__file__).resolve().parent.parent
LCS_MAX = 20_000
"""Textual difference is quadratic: pairs longer than this (characters, both texts) skip it."""


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def texts() -> list[str]:
    """The distinct texts (module docstring), first occurrence first."""
    shared = Path(os.environ.get("SCOREKIT_SHARED", ROOT.parent / "shared")) / "data"
    found: dict[str, None] = {}
    stsb = ROOT / "examples" / "stsb" / "sts-test-non-msr.tsv"
    for path in [*sorted(shared.glob("*/*")), stsb]:
        if "ares" in path.parent.name:
            continue  # ARES documents are not to be read outside the benchmarks that need them
        if path.suffix == ".json":
            values: Any = json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".jsonl":
            values = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        elif path.suffix == ".tsv":
            with path.open(encoding="utf-8", newline="") as handle:
                values = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
        else:
            continue
        for text in _strings(values):
            found.setdefault(text, None)
    return list(found)


def _record(result: Any) -> str:
    return json.dumps(
        [result.status, result.score, result.reason, result.preprocess_step_result,
         result.analyze_step_result],
        sort_keys=True, default=repr, ensure_ascii=True,
    )  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N texts only")
    args = parser.parse_args()
    corpus = texts()[: args.limit]
    scorers: dict[str, Callable[[str], Scorer]] = {
        "completeness": lambda _: create_completeness_scorer(),
        "content-similarity": lambda _: create_content_similarity_scorer(),
        "textual-difference": lambda _: create_textual_difference_scorer(),
        "keyword-coverage": lambda _: create_keyword_coverage_scorer(),
        "tone": lambda _: create_tone_scorer(),
    }
    print(f"{len(corpus)} texts", file=sys.stderr)
    for name, make in scorers.items():
        digest = hashlib.sha256()
        scorer = make("")
        count = 0
        for index, output in enumerate(corpus):
            given = corpus[(index + 1) % len(corpus)]
            if name == "textual-difference" and len(given) + len(output) > LCS_MAX:
                continue
            result = scorer.run_sync(input=given, output=output)
            digest.update(_record(result).encode() + b"\n")
            count += 1
        print(f"{name:20} {count:6d} {digest.hexdigest()}")
    digest = hashlib.sha256()
    for index, output in enumerate(corpus):
        reference = corpus[(index + 1) % len(corpus)]
        try:
            result = create_tone_scorer(reference, language="en").run_sync(output=output)
            digest.update(_record(result).encode() + b"\n")
        except Exception as exc:  # a reference the factory refuses: record the refusal
            digest.update(f"{type(exc).__name__}: {exc}\n".encode())
    print(f"{'tone (reference)':20} {len(corpus):6d} {digest.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
