"""Agreement of scorekit's completeness scorer with Mastra evals 1.10.2 (compromise 14.17).

Runs every completeness case of the conformance corpus (shared/conformance) and prints the
share of cases whose score equals Mastra's exactly and the largest absolute difference.
Usage: ``python benchmarks/completeness_parity.py [-v]`` (``-v`` lists the mismatches).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conformance import cases_for, run_args

from scorekit.scorers.completeness import create_completeness_scorer


def measure(verbose: bool = False) -> tuple[int, int, float]:
    """Return (exact matches, scored cases, largest absolute difference)."""
    scorer = create_completeness_scorer()
    exact = total = 0
    worst = 0.0
    for case, expected in cases_for("completeness"):
        if "error" in expected:
            continue
        result = scorer.run_sync(**run_args(case))
        total += 1
        diff = abs((result.score or 0.0) - expected["score"])
        worst = max(worst, diff)
        if result.score == expected["score"]:
            exact += 1
        elif verbose:
            mastra = expected["preprocessStepResult"]
            ours = result.preprocess_step_result
            print(f"{case['id']}: ours {result.score} mastra {expected['score']}")
            print(f"  ours   {ours['input_elements']} / {ours['output_elements']}")
            print(f"  mastra {mastra['inputElements']} / {mastra['outputElements']}")
    return exact, total, worst


def main() -> None:
    exact, total, worst = measure(verbose="-v" in sys.argv)
    print(f"completeness parity: {exact}/{total} exact ({100 * exact / total:.1f} %)")
    print(f"largest absolute difference: {worst:.4f}")


if __name__ == "__main__":
    main()
