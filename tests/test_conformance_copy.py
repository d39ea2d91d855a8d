"""The conformance corpora kept with the tests are the shared ones, byte for byte."""

from __future__ import annotations

import pytest

from tests.conformance import BESIDE_ROOT, BUNDLED_CORPORA, BUNDLED_ROOT


@pytest.mark.parametrize("corpus", BUNDLED_CORPORA)
def test_the_bundled_corpus_has_cases_and_expected_results(corpus: str) -> None:
    names = {p.name for p in (BUNDLED_ROOT / corpus).iterdir()}
    data = {"cases.jsonl", "expected.jsonl"}
    assert data <= names <= data | {"README.md"}


@pytest.mark.skipif(not BESIDE_ROOT.is_dir(), reason="no shared/ folder beside this checkout")
@pytest.mark.parametrize("corpus", BUNDLED_CORPORA)
@pytest.mark.parametrize("name", ["cases.jsonl", "expected.jsonl", "README.md"])
def test_the_bundled_corpus_matches_the_shared_one(corpus: str, name: str) -> None:
    if not (BESIDE_ROOT / corpus / name).exists():
        assert not (BUNDLED_ROOT / corpus / name).exists()
        return
    assert (BUNDLED_ROOT / corpus / name).read_bytes() == (BESIDE_ROOT / corpus / name).read_bytes()
