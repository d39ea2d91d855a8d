"""Write ppi-python's PPI++ mean estimates on fixed data: the reference tests/trust checks.

Run in a throw-away environment with the reference package (never a scorekit dependency):

    python3 -m venv /tmp/ppienv && /tmp/ppienv/bin/pip install ppi-python==0.2.3
    /tmp/ppienv/bin/python benchmarks/trust/ppi_reference.py > tests/trust/ppi_reference.json

Each case is a seeded simulation (tests/trust/simulated.py: a judge with a known bias and noise
against binary or graded labels); the test regenerates the data from the seed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import ppi_py

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.trust.simulated import case_data  # the test's own generator

CASES = [
    # (seed, labelled n, unlabelled N, kind)
    (1, 50, 500, "binary"),
    (2, 200, 2000, "binary"),
    (3, 30, 300, "graded"),
    (4, 100, 5000, "graded"),
    (5, 25, 25, "binary"),
]


def main() -> None:
    out = []
    for seed, n, big_n, kind in CASES:
        y, yhat, unlabelled = case_data(seed, n, big_n, kind)
        mean = float(ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled)[0])
        low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05)
        out.append(
            {
                "seed": seed,
                "n": n,
                "N": big_n,
                "kind": kind,
                "mean": mean,
                "low": float(np.ravel(low)[0]),
                "high": float(np.ravel(high)[0]),
            }
        )
    json.dump({"ppi_python": "0.2.3", "numpy": np.__version__, "cases": out}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
