"""Issue 34's layout stumbles, measured in headless Chromium at 1,280 px: a long item id cannot
widen the page, the items table of five scorers fits (it scrolls inside itself, the item column
fixed), the report's column heads are not cut, a run scored against a reference shows it, and
what the score colours mean is stated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorekit.evals import run_evals_sync
from scorekit.report import write_report
from scorekit.report.formats import BAND_LEGEND
from scorekit.scorers import (
    create_completeness_scorer,
    create_content_similarity_scorer,
    create_keyword_coverage_scorer,
    create_textual_difference_scorer,
    create_tone_scorer,
)
from scorekit.store import Store
from scorekit.view import create_app

from . import test_browser
from .data import serving

pytestmark = test_browser.pytestmark

LONG_ID = "item-" + "x" * 300
WIDTH = 1280


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("layout") / "scorekit.db"
    data = [
        {
            "id": LONG_ID if n == 0 else f"item-{n}",
            "input": f"What is sentence {n} about? " * 20,
            "output": f"Sentence {n} is about the weather. It is sunny today. " * 10,
            "ground_truth": f"The reference for sentence {n}: rainy weather.",
        }
        for n in range(6)
    ]
    scorers = [
        create_content_similarity_scorer(),
        create_completeness_scorer(),
        create_keyword_coverage_scorer(),
        create_textual_difference_scorer(),
        create_tone_scorer(language="en"),
    ]
    result = run_evals_sync(data, scorers, store=path, run_name="five scorers")
    return path, result.run_id


@pytest.fixture(scope="module")
def page(database: tuple[Path, str]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(test_browser.CHROMIUM), args=test_browser.CHROMIUM_ARGS
        )
        yield browser.new_page(viewport={"width": WIDTH, "height": 900})
        browser.close()


def test_the_run_page_fits_1280_px_with_a_long_id_and_five_scorers(
    page: Any, database: tuple[Path, str]
) -> None:
    path, run_id = database
    with serving(create_app(path)) as base:
        page.goto(f"{base}/runs/{run_id}")
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
        cell = page.locator(f'td.id[title="{LONG_ID}"]')
        assert cell.inner_text() == LONG_ID
        assert cell.evaluate("el => el.scrollWidth > el.clientWidth")  # cut, whole on hover
        assert cell.evaluate("el => getComputedStyle(el).position") == "sticky"
        heads = page.locator("#items-table th").all_inner_texts()
        assert heads[:4] == ["item", "input", "output", "reference"]
        assert len(heads) == 4 + 5
        assert "The reference for sentence 1: rainy weather." in page.content()
        assert page.locator("p.legend").inner_text() == BAND_LEGEND


def test_the_report_fits_and_its_column_heads_are_whole(
    page: Any, database: tuple[Path, str], tmp_path: Path
) -> None:
    path, run_id = database
    report = tmp_path / "report.html"
    with Store(path) as store:
        write_report(store, run_id, report)
    page.goto(report.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    heads = page.locator(".items .head > span")
    assert heads.all_inner_texts()[3] == "reference"
    assert "Textual Difference Scorer" in heads.all_inner_texts()
    cut = heads.evaluate_all("spans => spans.filter(s => s.scrollWidth > s.clientWidth + 1)")
    assert cut == []
    assert page.locator("p.legend").inner_text() == BAND_LEGEND
