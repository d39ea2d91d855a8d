"""Speed of the trust statistics (issue 31's targets; figures, never asserts).

    .venv/bin/python benchmarks/bench_trust.py

* agreement (balanced accuracy, κ, AUROC, best threshold, each with 2,000 bootstrap
  resamples) over 1,000,000 labelled items, binary labels, scores at 2 decimals and at full
  precision (the resampling grid);
* the prediction-powered mean over 1,000,000 items (1,000 labelled);
* a paired comparison with 10,000 resamples and sign flips over 100,000 paired items.
"""

from __future__ import annotations

import time

import numpy as np

from scorekit.trust import agreement, paired_comparison, ppi_mean


def timed(label: str, call: object) -> None:
    start = time.perf_counter()
    call()  # type: ignore[operator]
    print(f"{label:70} {time.perf_counter() - start:7.2f} s")


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    truth = (rng.random(n) < 0.6).astype(float)
    fine = np.clip(truth * 0.3 + rng.random(n) * 0.7, 0, 1)
    coarse = np.round(fine, 2)
    timed("agreement, 1M items, scores at 2 decimals", lambda: agreement(coarse, truth))
    timed("agreement, 1M items, scores at full precision", lambda: agreement(fine, truth))
    timed("ppi_mean, 1M items (1,000 labelled)",
          lambda: ppi_mean(truth[:1000], fine[:1000], fine[1000:]))  # fmt: skip
    a = rng.random(100_000)
    b = np.clip(a + rng.normal(0.002, 0.05, 100_000), 0, 1)
    timed("paired_comparison, 100k paired items, 10,000 resamples",
          lambda: paired_comparison(a, b, threshold=0.5))  # fmt: skip


if __name__ == "__main__":
    main()
