"""The parity tests on each half of a seeded re-split of the conformance corpora (issue 33).

Each half is used as if it were the only corpus (``SCOREKIT_CONFORMANCE_HALF``,
``tests/conformance.py``): a parity test that encodes the shared corpus's shapes (its size,
a case it expects to find, a predicate that only knows the cases at hand) fails on a half
before it fails on cases nobody has seen. Left out: the tests that measure a corpus rather
than apply a rule to its cases (that it is there, that it exercises every outcome, the share
of real texts scored exactly), whose figures a half need not reach.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conformance import REPO_ROOT

PARITY = ["tests/scorers", "tests/checks", "tests/text"]
SELECT = (
    "(conformance or corpus) and not is_present and not exercises_every_outcome "
    "and not real_corpus_share"
)


@pytest.mark.parametrize("half", ["0", "1"])
def test_parity_holds_on_each_half_of_the_corpora(half: str) -> None:
    env = {**os.environ, "SCOREKIT_CONFORMANCE_HALF": half}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-k", SELECT, *PARITY],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    tail = (done.stdout + done.stderr)[-3000:]
    assert done.returncode == 0, tail
    assert " passed" in tail.splitlines()[-1], tail


def test_the_halves_split_every_corpus() -> None:
    # each half holds some of the cases, and the two hold all of them once
    code = (
        "from tests.conformance import cases_for, MAIN, CATALOG;"
        "print(sum(len(cases_for(s, corpus=c)) for c in (MAIN, CATALOG) for s in "
        "{'faithfulness','answer-relevancy','content-similarity','keyword-coverage','tone',"
        "'completeness','checks','bias','toxicity','rubric'}))"
    )
    counts = []
    for half in (None, "0", "1"):
        env = {k: v for k, v in os.environ.items() if k != "SCOREKIT_CONFORMANCE_HALF"}
        if half is not None:
            env["SCOREKIT_CONFORMANCE_HALF"] = half
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        counts.append(int(done.stdout))
    whole, first, second = counts
    assert 0 < first < whole and 0 < second < whole
    assert first + second == whole
