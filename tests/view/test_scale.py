"""Pagination, sorting and filtering on a run of 100,000 items, checked against exact pages.

The response times are printed by benchmarks/bench_view.py, never asserted here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from scorekit.view import create_app

from .bulk import alpha, beta, build_big_run, item_id
from .html import item_ids

ITEMS = 100_000


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("big") / "big.db"
    return db, build_big_run(db, ITEMS)


@pytest.fixture(scope="module")
def client(big: tuple[Path, str]) -> Iterator[TestClient]:
    with TestClient(create_app(big[0]), base_url="http://127.0.0.1") as client:
        yield client


def test_first_and_last_pages_by_id(client: TestClient, big: tuple[Path, str]) -> None:
    run = big[1]
    first = client.get(f"/runs/{run}?sort=id")
    assert item_ids(first.text) == [item_id(n) for n in range(50)]
    assert "1–50 of 100000 · page 1 of 2000" in " ".join(first.text.split())
    last = client.get(f"/runs/{run}?sort=id&page=2000")
    assert item_ids(last.text) == [item_id(n) for n in range(99_950, 100_000)]
    past = client.get(f"/runs/{run}?sort=id&page=2001&size=50")
    assert item_ids(past.text) == []


def test_sort_by_a_scorer_lists_items_without_its_result_last(
    client: TestClient, big: tuple[Path, str]
) -> None:
    run = big[1]
    scored = sorted((s, item_id(n)) for n in range(ITEMS) if (s := beta(n)) is not None)
    missing = [item_id(n) for n in range(ITEMS) if beta(n) is None]
    order = [i for _, i in scored] + missing  # 99,900 scored, then 100 without a beta row
    for page in (1, 1000, 1998, 1999, 2000):
        got = item_ids(client.get(f"/runs/{run}?sort=score:beta&page={page}").text)
        assert got == order[(page - 1) * 50 : page * 50], page
    descending = [i for _, i in sorted(scored, key=lambda p: (-p[0], p[1]))] + missing
    got = item_ids(client.get(f"/runs/{run}?sort=score:beta&order=desc&page=3").text)
    assert got == descending[100:150]


def test_filters_on_the_big_run(client: TestClient, big: tuple[Path, str]) -> None:
    run = big[1]
    errors = [item_id(n) for n in range(ITEMS) if alpha(n) is None]
    response = client.get(f"/runs/{run}?status=error&sort=id&size=500")
    assert item_ids(response.text) == errors[:500]
    assert f"1–500 of {len(errors)}" in response.text
    band = sorted(
        (s, item_id(n)) for n in range(ITEMS) if (s := alpha(n)) is not None and 0.25 <= s <= 0.26
    )
    url = f"/runs/{run}?scorer=alpha&min=0.25&max=0.26&sort=score:alpha&size=20"
    assert item_ids(client.get(url).text) == [i for _, i in band[:20]]
    found = client.get(f"/runs/{run}?q=question+number+4242&sort=id")
    assert item_ids(found.text) == [item_id(4242), *[item_id(n) for n in range(42420, 42430)]]
