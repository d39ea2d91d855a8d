"""The viewer in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

The app is served by uvicorn on 127.0.0.1 (a free port) over the test database of real runs,
one of whose items carries ``<script>alert(1)</script>`` in its input, output and reason. Any
dialog fails the test (a payload that ran would open one); so does any request to another host
and any console error (a Content-Security-Policy violation is one). Each page is screenshotted
into the test's temporary folder; with ``SCOREKIT_VIEW_SCREENSHOTS=DIR`` the screenshots are
also copied to DIR (``docs/viewer`` holds the ones the docs show).

Skipped, with the reason, where the browser or the ``playwright`` package is missing; under CI
(``CI`` set) a missing browser fails instead, since ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorekit.view import create_app

from .data import EVIL, ViewerRuns, add_live_results, build_viewer_db, serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # without these Chromium waits on network services this closed machine cannot reach
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists():
        return "no browser: install Debian's chromium package (apt-get install chromium)"
    return None


_REASON = _missing()
if _REASON is not None and os.environ.get("CI"):
    pytest.fail(f"CI must run the browser tests: {_REASON}", pytrace=False)
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ViewerRuns]]:
    runs = build_viewer_db(tmp_path_factory.mktemp("browser") / "scorekit.db")
    with serving(create_app(runs.db)) as base:
        yield base, runs


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Watch:
    """A page whose dialogs, console errors and requests elsewhere fail the test."""

    def __init__(self, browser: Any, base: str, shots: Path) -> None:
        self.base = base
        self.shots = shots
        self.problems: list[str] = []
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("dialog", self._dialog)
        self.page.on("console", self._console)
        self.page.on("request", self._request)

    def _dialog(self, dialog: Any) -> None:
        self.problems.append(f"a dialog opened: {dialog.message!r}")
        dialog.dismiss()

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _request(self, request: Any) -> None:
        if not request.url.startswith(self.base):
            self.problems.append(f"a request to another host: {request.url}")

    def open(self, path: str) -> Any:
        response = self.page.goto(self.base + path)
        assert response is not None and response.status == 200, path
        return self.page

    def shoot(self, name: str) -> None:
        target = self.shots / f"{name}.png"
        self.page.screenshot(path=str(target), full_page=True)
        copy_to = os.environ.get("SCOREKIT_VIEW_SCREENSHOTS")
        if copy_to:
            Path(copy_to).mkdir(parents=True, exist_ok=True)
            shutil.copy(target, Path(copy_to) / target.name)

    def close(self) -> None:
        self.page.close()
        assert self.problems == []


@pytest.fixture
def watch(browser: Any, served: tuple[str, ViewerRuns], tmp_path: Path) -> Iterator[Watch]:
    watched = Watch(browser, served[0], tmp_path)
    yield watched
    watched.close()


def _ids(page: Any) -> list[str]:
    return [str(t).strip() for t in page.locator("a.item-link").all_inner_texts()]


def test_runs_page_then_a_run_sorted_and_filtered(
    watch: Watch, served: tuple[str, ViewerRuns], tmp_path: Path
) -> None:
    _, runs = served
    page = watch.open("/")
    assert page.locator("a.run-link").all_inner_texts() == ["candidate", "baseline", "live-sample"]
    watch.shoot("runs")
    page.fill("input[name=name]", "cand")
    page.click("#run-filters button[type=submit]")
    page.wait_for_url("**/?name=cand*")
    assert page.locator("a.run-link").all_inner_texts() == ["candidate"]

    page.click("a.run-link")
    page.wait_for_url(f"**/runs/{runs.candidate}")
    assert page.locator("h1").inner_text().startswith("candidate")
    assert page.locator("svg rect.bar").count() == 30
    # the payload is text in the items table
    row = page.locator("#items-table tr", has_text="xss-probe")
    assert f"Render this: {EVIL}" in row.inner_text()
    watch.shoot("run")

    # sort by a scorer's score: click its column, then again for descending
    page.click("#items-table th a.sort:has-text('Content Similarity Scorer')")
    page.wait_for_url("**sort=score%3Acontent-similarity-scorer*")
    assert _ids(page)[:3] == ["speed-light", "boiling-point", "xss-probe"]
    page.click("#items-table th a.sort:has-text('Content Similarity Scorer')")
    page.wait_for_url("**order=desc*")
    assert _ids(page)[-2:] == ["boiling-point", "speed-light"]

    # filter: the form's status and scorer, then a text search
    page.select_option("select[name=status]", "error")
    page.select_option("select[name=scorer]", "answer-judge")
    page.click("#item-filters button[type=submit]")
    page.wait_for_url("**status=error*")
    assert _ids(page) == ["boiling-point"]
    page.goto(watch.base + f"/runs/{runs.candidate}")
    page.fill("input[name=q]", "<script>")
    page.click("#item-filters button[type=submit]")
    page.wait_for_url("**q=*")
    assert _ids(page) == ["xss-probe"]
    assert page.input_value("input[name=q]") == "<script>"
    watch.shoot("run-filtered")


def test_an_item_shows_payloads_as_text_and_links_other_runs(
    watch: Watch, served: tuple[str, ViewerRuns]
) -> None:
    _, runs = served
    page = watch.open(f"/runs/{runs.baseline}?sort=id")
    page.click("a.item-link:has-text('xss-probe')")
    page.wait_for_url("**/item?id=xss-probe")
    data = page.locator("section.data").inner_text()
    assert f"Render this: {EVIL}" in data and f"I will not render {EVIL}" in data
    assert f"context {EVIL}" in data
    reason = page.locator("pre.reason").first.inner_text()
    assert reason == f"The answer «I will not render {EVIL}» was judged against the question."
    assert page.locator("main script").count() == 0  # the payloads made no element
    page.click("details.prompt summary:has-text('analyze prompt')")
    assert "Does this answer the question?" in page.locator("details.prompt[open]").inner_text()
    watch.shoot("item")
    page.click("a.other-run")
    page.wait_for_url(f"**/runs/{runs.candidate}/item?id=xss-probe")

    page = watch.open(f"/runs/{runs.candidate}/item?id=boiling-point")
    assert "I think so, yes." in page.locator("section.results").inner_text()  # raw reply
    watch.shoot("item-error")


def test_compare_two_runs_then_an_item_side_by_side(
    watch: Watch, served: tuple[str, ViewerRuns]
) -> None:
    _, runs = served
    page = watch.open("/")
    page.check(f"input[name=a][value='{runs.baseline}']")
    page.check(f"input[name=b][value='{runs.candidate}']")
    page.click("#compare-form button[type=submit]")
    page.wait_for_url("**/compare?**")
    assert f"a={runs.baseline}" in page.url and f"b={runs.candidate}" in page.url
    deltas = page.locator("table.deltas tbody tr").all_inner_texts()
    assert "−0.2358" in deltas[0] and "+12.5 pp" in deltas[1]
    first = page.locator("#pairs-table tbody tr").first.inner_text()
    assert first.split("\t")[:2] == ["boiling-point", "answer-judge"]
    assert "newly failing" in first
    watch.shoot("compare")
    page.select_option("select[name=show]", "regressed")
    page.click("#pair-filters button[type=submit]")
    page.wait_for_url("**show=regressed*")
    assert page.locator("#pairs-table tbody tr").count() == 7

    page.locator("a.side-link").nth(2).click()  # capital-fr, answer-judge
    page.wait_for_url("**/compare/item?*id=capital-fr")
    sides = page.locator("section.side").all_inner_texts()
    assert "Paris is the capital of France." in sides[0]
    assert "The capital is Lyon, I think." in sides[1]
    watch.shoot("compare-item")


def test_a_running_run_reloads_as_it_grows(watch: Watch, served: tuple[str, ViewerRuns]) -> None:
    _, runs = served
    page = watch.open(f"/runs/{runs.live}")
    assert page.locator("#live").is_visible()
    assert _ids(page) == ["call-0", "call-1", "call-2"]
    add_live_results(runs.db, runs.live, 3, 2)
    # the page's script polls /progress and reloads (no string eval here: the CSP forbids it)
    page.locator("a.item-link", has_text="call-4").wait_for(timeout=20_000)
    assert _ids(page) == [f"call-{n}" for n in range(5)]
    watch.shoot("live")
