"""The conformance corpus kept with the tests is the shared one, byte for byte."""

from __future__ import annotations

import pytest

from tests.conformance import BESIDE, BUNDLED


def test_the_bundled_corpus_has_cases_and_expected_results() -> None:
    assert sorted(p.name for p in BUNDLED.iterdir()) == ["cases.jsonl", "expected.jsonl"]


@pytest.mark.skipif(not BESIDE.is_dir(), reason="no shared/ folder beside this checkout")
@pytest.mark.parametrize("name", ["cases.jsonl", "expected.jsonl"])
def test_the_bundled_corpus_matches_the_shared_one(name: str) -> None:
    assert (BUNDLED / name).read_bytes() == (BESIDE / name).read_bytes()
