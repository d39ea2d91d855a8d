"""Labelling in the viewer (``--annotate``): the route's locks, and a person in real Chromium.

The plain viewer stays strictly read-only (no route takes a POST); the annotating one refuses
a form without the session's token or from another origin, refuses a bad label with its
reason, and appends good labels, keeping the history.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from scorekit.evals.run import run_evals_sync
from scorekit.scorers import create_content_similarity_scorer
from scorekit.store import Store
from scorekit.store.labels import current_labels, label_history
from scorekit.view import create_app
from scorekit.view.annotation import Annotator

SCORER = "content-similarity-scorer"


@pytest.fixture
def run_db(tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "x.db"
    items = [{"id": "q1", "input": "night", "output": "nacht"}, {"id": "q2", "output": "x"}]
    result = run_evals_sync(items, [create_content_similarity_scorer()], store=db)
    return db, result.run_id


def _token(html: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', html)
    assert found is not None, "no token in the page"
    return found.group(1)


def test_the_plain_viewer_takes_no_post(run_db: tuple[Path, str]) -> None:
    db, run_id = run_db
    with TestClient(create_app(db), base_url="http://127.0.0.1:8088") as client:
        page = client.get(f"/runs/{run_id}/item", params={"id": "q1"})
        assert page.status_code == 200 and 'name="token"' not in page.text
        # the label route does not exist, and the pages take no POST
        assert client.post(f"/runs/{run_id}/item/label", data={"label": "1"}).status_code == 404
        assert client.post(f"/runs/{run_id}/item", data={"label": "1"}).status_code == 405


def test_the_annotating_viewer_locks_and_appends(run_db: tuple[Path, str]) -> None:
    db, run_id = run_db
    with Store(db, create=False) as store:
        app = create_app(db, annotator=Annotator(store, "ana"))
        with TestClient(app, base_url="http://127.0.0.1:8088") as client:
            page = client.get(f"/runs/{run_id}/item", params={"id": "q1"})
            token = _token(page.text)
            assert "not labelled" in page.text
            form = {"token": token, "item_id": "q1", "scorer_id": SCORER, "label": "1"}
            address = f"/runs/{run_id}/item/label"
            assert client.post(address, data={**form, "token": "guess"}).status_code == 403
            foreign = client.post(address, data=form, headers={"origin": "http://evil.test"})
            assert foreign.status_code == 403
            assert current_labels(store, run_id) == {}
            bad = client.post(address, data={**form, "label": "maybe"})
            assert bad.status_code == 400 and "a number in [0, 1]" in bad.text
            unknown = client.post(address, data={**form, "item_id": "q9"})
            assert unknown.status_code == 400 and "the run has no item" in unknown.text
            done = client.post(address, data={**form, "note": "same word"},
                               follow_redirects=False)  # fmt: skip
            assert done.status_code == 303
            assert done.headers["location"] == f"/runs/{run_id}/item?id=q1#label-{SCORER}"
            client.post(address, data={**form, "label": "0.5"})
            history = label_history(store, run_id, "q1", SCORER)
            assert [(h.label, h.note, h.author, h.source) for h in history] == [
                (1.0, "same word", "ana", "viewer"),
                (0.5, None, "ana", "viewer"),
            ]
            shown = client.get(f"/runs/{run_id}/item", params={"id": "q1"}).text
            assert "0.5000" in shown and "1 earlier label" in shown


# -- a person labelling in headless Chromium --------------------------------------------------

from tests.view.data import serving  # noqa: E402
from tests.view.test_browser import _REASON, CHROMIUM, CHROMIUM_ARGS  # noqa: E402


@pytest.fixture
def served(run_db: tuple[Path, str]) -> Iterator[tuple[str, Path, str]]:
    db, run_id = run_db
    with (
        Store(db, create=False) as store,
        serving(create_app(db, annotator=Annotator(store, "bo"))) as base,
    ):
        yield base, db, run_id


@pytest.mark.skipif(_REASON is not None, reason=_REASON or "")
def test_a_person_sets_and_changes_a_label_in_the_browser(
    served: tuple[str, Path, str], tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    base, db, run_id = served
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page: Any = browser.new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(f"{base}/runs/{run_id}/item?id=q1")
        form = page.locator("form.label-form")
        form.locator("input.label-value").fill("1")
        form.locator("input.label-note").fill("the same word, translated")
        with page.expect_navigation():
            form.locator("button").click()
        assert page.url.endswith(f"/runs/{run_id}/item?id=q1#label-{SCORER}"), page.url
        assert "the same word, translated" in page.locator(f"#label-{SCORER}").inner_text()
        page.locator("form.label-form input.label-value").fill("0")
        with page.expect_navigation():
            page.locator("form.label-form button").click()
        page.screenshot(path=str(tmp_path / "annotate.png"), full_page=True)
        browser.close()
    assert problems == []
    with Store(db) as store:
        history = label_history(store, run_id, "q1", SCORER)
    assert [(h.label, h.author, h.source) for h in history] == [
        (1.0, "bo", "viewer"),
        (0.0, "bo", "viewer"),
    ]
