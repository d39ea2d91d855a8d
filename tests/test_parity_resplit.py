"""The parity tests on each half of a seeded re-split of the conformance corpora (issue 33).

Each half is used as if it were the only corpus (``SCOREKIT_CONFORMANCE_HALF``,
``tests/conformance.py``): a parity test that encodes the shared corpus's shapes (its size,
a case it expects to find, a predicate that only knows the cases at hand) fails on a half
before it fails on cases nobody has seen.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conformance import REPO_ROOT

PARITY = ["tests/scorers", "tests/checks", "tests/text"]
SELECT = "conformance or corpus"


@pytest.mark.parametrize("half", ["0", "1"])
def test_parity_holds_on_each_half_of_the_corpora(half: str) -> None:
    env = {**os.environ, "SCOREKIT_CONFORMANCE_HALF": half}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         "-k", SELECT, *PARITY],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    tail = (done.stdout + done.stderr)[-3000:]
    assert done.returncode == 0, tail
    assert " passed" in tail
