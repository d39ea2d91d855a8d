"""The prediction-powered mean on real judge scores: a labelled slice against all the labels.

Reads a results file of the judge-quality harness (``benchmarks/judge_agreement.py --json``),
takes one variant's scored rows (score and human label each), draws a seeded random slice of
``--labelled`` rows as "labelled" and treats the rest as unlabelled, and compares:

* the rate of positive labels over all the rows (what the slice should recover);
* the judge's raw mean over all the rows (biased as the judge is);
* the PPI++ estimate from the slice and the judge's scores (``scorekit.trust.ppi_mean``), with
  its 95 % interval; and the labels-only estimate (the slice's own mean, its normal interval);
* over ``--draws`` random slices: how often each interval covers the all-rows rate, and their
  mean widths.

    .venv/bin/python benchmarks/trust/ppi_on_judge_run.py RESULTS.json \\
        --task expertqa-faithfulness --variant scorer:expected --labelled 50
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from scorekit.trust import ppi_mean


def rows_of(path: Path, task: str, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """The (score, label) of every ``ok`` row of one task and variant."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for run in data["runs"]:
        if run["task"] == task and run["variant"] == variant and not run.get("repeat"):
            ok = [o for o in run["outcomes"] if o["status"] == "ok" and o["score"] is not None]
            scores = np.array([float(o["score"]) for o in ok])
            labels = np.array([float(o["label"]) for o in ok])
            return scores, labels
    raise SystemExit(f"{path}: no run of {task} / {variant}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--task", required=True)
    parser.add_argument("--variant", default="scorer:expected")
    parser.add_argument("--labelled", type=int, default=50)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    scores, labels = rows_of(args.results, args.task, args.variant)
    n, truth = len(scores), float(labels.mean())
    rng = np.random.default_rng(args.seed)
    pick = rng.permutation(n)[: args.labelled]
    rest = np.setdiff1d(np.arange(n), pick)
    one = ppi_mean(labels[pick], scores[pick], scores[rest])
    half = 1.959963984540054 * float(labels[pick].std()) / math.sqrt(args.labelled)
    print(f"{args.results.name}: {args.task} / {args.variant}, {n} scored rows, "
          f"{args.labelled} labelled at random (seed {args.seed})")  # fmt: skip
    print(f"  rate of positive labels, all rows: {truth:.3f}")
    print(f"  judge's raw mean, all rows:        {float(scores.mean()):.3f}")
    print(f"  PPI++ from the slice:              {one.mean:.3f} [{one.low:.3f}, {one.high:.3f}]"
          f"  (lambda {one.power:.2f})")  # fmt: skip
    print(
        f"  the slice's labels alone:          {float(labels[pick].mean()):.3f} "
        f"[{float(labels[pick].mean()) - half:.3f}, {float(labels[pick].mean()) + half:.3f}]"
    )
    covered = {"ppi": 0, "labels": 0}
    widths: dict[str, list[float]] = {"ppi": [], "labels": []}
    for draw in range(args.draws):
        pick = np.random.default_rng(args.seed + 1 + draw).permutation(n)[: args.labelled]
        rest = np.setdiff1d(np.arange(n), pick)
        est = ppi_mean(labels[pick], scores[pick], scores[rest])
        covered["ppi"] += est.low <= truth <= est.high
        widths["ppi"].append(est.high - est.low)
        mean = float(labels[pick].mean())
        half = 1.959963984540054 * float(labels[pick].std()) / math.sqrt(args.labelled)
        covered["labels"] += mean - half <= truth <= mean + half
        widths["labels"].append(2 * half)
    for name in ("ppi", "labels"):
        print(f"  {args.draws} random slices, {name:6}: covers the all-rows rate in "
              f"{covered[name]} ({covered[name] / args.draws:.1%}), mean width "
              f"{float(np.mean(widths[name])):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
