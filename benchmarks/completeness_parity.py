"""Agreement of scorekit's completeness scorer with Mastra evals 1.10.2 (compromise 14.17).

Runs every completeness case of two conformance corpora, the synthetic main corpus and the real
text corpus (STS-B, ExpertQA, BEGIN; read from ``shared/``, skipped when absent), and prints for
each the share of cases whose score equals Mastra's exactly and the largest absolute difference.
Usage: ``python benchmarks/completeness_parity.py [-v]`` (``-v`` lists the mismatches with the
words that differ between scorekit's element sets and Mastra's).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conformance import MAIN, REAL, cases_for, corpus_missing, run_args

from scorekit.scorers.completeness import create_completeness_scorer


def _diff(ours: list[str], mastra: list[str]) -> str:
    extra = [w for w in ours if w not in set(mastra)]
    lacking = [w for w in mastra if w not in set(ours)]
    return f"ours only {extra}, mastra only {lacking}"


def measure(corpus: str, verbose: bool = False) -> tuple[int, int, float]:
    """Return (exact matches, scored cases, largest absolute difference) on ``corpus``."""
    scorer = create_completeness_scorer()
    exact = total = 0
    worst = 0.0
    for case, expected in cases_for("completeness", corpus=corpus):
        if "error" in expected:
            continue
        result = scorer.run_sync(**run_args(case))
        if expected["preprocessStepResult"]["inputElements"] == []:
            continue  # divergences.md row 89: no element in the reference, the run is skipped
        total += 1
        diff = abs((result.score or 0.0) - expected["score"])
        worst = max(worst, diff)
        if result.score == expected["score"]:
            exact += 1
        elif verbose:
            mastra: dict[str, Any] = expected["preprocessStepResult"]
            ours: dict[str, Any] = result.preprocess_step_result
            print(f"{case['id']}: ours {result.score} mastra {expected['score']} (diff {diff:.3f})")
            print(f"  input:  {_diff(ours['input_elements'], mastra['inputElements'])}")
            print(f"  output: {_diff(ours['output_elements'], mastra['outputElements'])}")
    return exact, total, worst


def main() -> None:
    verbose = "-v" in sys.argv
    for corpus in (MAIN, REAL):
        missing = corpus_missing(corpus)
        if missing:
            print(f"{corpus}: skipped ({missing})")
            continue
        exact, total, worst = measure(corpus, verbose=verbose)
        print(f"{corpus}: {exact}/{total} exact ({100 * exact / total:.1f} %), ", end="")
        print(f"largest absolute difference {worst:.4f}")


if __name__ == "__main__":
    main()
