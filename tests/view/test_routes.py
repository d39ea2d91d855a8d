"""Every route of the viewer through Starlette's TestClient, on real runs made by run_evals."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from scorekit.view import create_app
from scorekit.view.app import CONTENT_SECURITY_POLICY

from .data import EVIL, ViewerRuns, add_live_results, finish_live_run, live_run
from .html import Page, item_ids

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def table_rows(html: str, table_id: str) -> list[str]:
    """The text of each body row of a table, cells joined by spaces."""
    table = html[html.index(f'id="{table_id}"') :]
    table = table[: table.index("</table>")]
    body = table[table.index("<tbody>") :]
    return [" ".join(Page("<tr" + row).all_text.split()) for row in body.split("<tr")[1:]]


def assert_safe(html: str) -> Page:
    """No script from the data: only the viewer's own file, no handler attributes."""
    page = Page(html)
    assert page.inline_scripts == []
    assert [s.get("src") for s in page.scripts] == ["/static/view.js"]
    assert "<script>alert" not in html
    for name, value in page.attrs:
        assert not name.startswith("on"), name
        assert "javascript:" not in (value or "")
    return page


# -- the runs page ---------------------------------------------------------------------------


def test_runs_page_lists_runs_newest_first_with_means_and_error_rates(
    client: TestClient, runs: ViewerRuns
) -> None:
    response = client.get("/")
    assert response.status_code == 200
    page = assert_safe(response.text)
    assert [text for _, text in page.links("run-link")] == ["candidate", "baseline", "live-sample"]
    assert [href for href, _ in page.links("run-link")] == [
        f"/runs/{runs.candidate}",
        f"/runs/{runs.baseline}",
        f"/runs/{runs.live}",
    ]
    text = " ".join(page.all_text.split())
    assert "content-similarity-scorer 0.5946" in text
    assert "answer-judge 0.7143 (12.5% errors)" in text
    assert "content-similarity-scorer 0.8305" in text
    assert "LIVE" in text and "running" in text and "no verdict" in text
    assert "1–3 of 3 · page 1 of 1" in text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("name=CAND", ["candidate"]),
        ("name=e", ["candidate", "baseline", "live-sample"]),
        ("source=live", ["live-sample"]),
        ("source=TEST", ["candidate", "baseline"]),
        ("since=2000-01-01&until=2000-12-31", []),
        ("since=2000-01-01", ["candidate", "baseline", "live-sample"]),
        ("name=%25", []),  # a LIKE wildcard typed as text matches only itself
    ],
)
def test_runs_page_filters(client: TestClient, query: str, expected: list[str]) -> None:
    page = Page(client.get(f"/?{query}").text)
    assert [text for _, text in page.links("run-link")] == expected


def test_runs_page_pages(client: TestClient) -> None:
    first = Page(client.get("/?size=2").text)
    assert [t for _, t in first.links("run-link")] == ["candidate", "baseline"]
    assert "1–2 of 3 · page 1 of 2" in " ".join(first.all_text.split())
    second = Page(client.get("/?size=2&page=2").text)
    assert [t for _, t in second.links("run-link")] == ["live-sample"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("source=BATCH", "source must be one of TEST, LIVE, TRACE, not &#39;BATCH&#39;"),
        ("since=yesterday", "since must be a day as YYYY-MM-DD"),
        ("until=9999-12-31", "until must be a day before 9999-12-31"),
        ("since=2020-02-02&until=2020-01-01", "since (2020-02-02) is after until (2020-01-01)"),
        ("page=0", "page must be from 1 to"),
        ("size=501", "size must be from 1 to 500, not 501"),
    ],
)
def test_runs_page_refuses_bad_parameters(client: TestClient, query: str, message: str) -> None:
    response = client.get(f"/?{query}")
    assert response.status_code == 400
    assert message in response.text


# -- a run -------------------------------------------------------------------------------------


def test_run_page_shows_summary_histograms_usage_and_items(
    client: TestClient, runs: ViewerRuns
) -> None:
    response = client.get(f"/runs/{runs.candidate}")
    assert response.status_code == 200
    page = assert_safe(response.text)
    text = " ".join(page.all_text.split())
    assert "candidate finished passed" in text
    # content similarity: 8 ok, mean 0.5946 (its seeded bootstrap interval under it), threshold
    # 0.5; answer-judge: 7 ok, 1 error; the cost column: a code scorer and the test judge, $0
    assert (
        "content-similarity-scorer 8 0 0 0% 0.5946 [0.3020, 0.8925] 0.7083 0.0000 1.0000 $0 "
        "≥ 0.50 ≤ 20%" in text
    )
    assert (
        "answer-judge 7 0 1 12.5% 0.7143 [0.4286, 1.0000] 1.0000 0.0000 1.0000 $0 — ≤ 20%" in text
    )
    assert "judge: 16 calls (0 from cache)" in text
    assert (
        "judge cost: $0 at the prices stored with the run (test/viewer: $0 in, $0 out per "
        "million tokens)" in text
    )
    assert response.text.count('<rect class="bar"') == 30  # 3 scorers x 10 bins
    # the written order: as the items finished (concurrently); every item once
    assert sorted(item_ids(response.text)) == [
        "author-hamlet",
        "boiling-point",
        "capital-fr",
        "largest-planet",
        "photosynthesis",
        "speed-light",
        "unicode-é",
        "xss-probe",
    ]
    assert f"Render this: {ESCAPED}" in response.text
    assert "1–8 of 8 · page 1 of 1" in text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # lowest first; ties by item id
        (
            "sort=score:content-similarity-scorer",
            [
                "speed-light",
                "boiling-point",
                "xss-probe",
                "capital-fr",
                "author-hamlet",
                "largest-planet",
                "photosynthesis",
                "unicode-é",
            ],
        ),
        (
            "sort=score:content-similarity-scorer&order=desc",
            [
                "author-hamlet",
                "largest-planet",
                "photosynthesis",
                "unicode-é",
                "capital-fr",
                "xss-probe",
                "boiling-point",
                "speed-light",
            ],
        ),
        # the error (no score) after every score, whichever the order
        (
            "sort=score:answer-judge",
            [
                "capital-fr",
                "speed-light",
                "author-hamlet",
                "largest-planet",
                "photosynthesis",
                "unicode-é",
                "xss-probe",
                "boiling-point",
            ],
        ),
        (
            "sort=id",
            [
                "author-hamlet",
                "boiling-point",
                "capital-fr",
                "largest-planet",
                "photosynthesis",
                "speed-light",
                "unicode-é",
                "xss-probe",
            ],
        ),
        ("status=error", ["boiling-point", "speed-light"]),
        ("status=error&scorer=picky", ["speed-light"]),
        ("status=error&scorer=content-similarity-scorer", []),
        (
            "scorer=content-similarity-scorer&min=0.1&max=0.5&sort=score:content-similarity-scorer",
            ["boiling-point", "xss-probe", "capital-fr"],
        ),
        (
            "min=0.99&scorer=answer-judge&sort=id&order=desc",
            ["xss-probe", "unicode-é", "photosynthesis", "largest-planet", "author-hamlet"],
        ),
        ("q=lyon", ["capital-fr"]),
        ("q=«+merci+»", ["unicode-é"]),  # non-ASCII text, stored as JSON escapes
        ("q=<script>", ["xss-probe"]),
        ("q=100%25", []),  # % is text, not a wildcard
        ("q=hamlet&status=ok&scorer=picky", ["author-hamlet"]),
    ],
)
def test_run_items_sort_and_filter(
    client: TestClient, runs: ViewerRuns, query: str, expected: list[str]
) -> None:
    response = client.get(f"/runs/{runs.candidate}?{query}")
    assert response.status_code == 200
    assert item_ids(response.text) == expected


def test_run_items_page_through(client: TestClient, runs: ViewerRuns) -> None:
    url = f"/runs/{runs.candidate}?sort=id&size=3"
    pages = [item_ids(client.get(f"{url}&page={n}").text) for n in (1, 2, 3, 4)]
    assert pages == [
        ["author-hamlet", "boiling-point", "capital-fr"],
        ["largest-planet", "photosynthesis", "speed-light"],
        ["unicode-é", "xss-probe"],
        [],
    ]
    text = " ".join(Page(client.get(f"{url}&page=3").text).all_text.split())
    assert "7–8 of 8 · page 3 of 3" in text


def test_run_by_prefix_name_or_latest_redirects_to_its_id(
    client: TestClient, runs: ViewerRuns
) -> None:
    for ref in (runs.baseline[:8], "baseline"):
        response = client.get(f"/runs/{ref}?sort=id", follow_redirects=False)
        assert response.status_code == 307
        assert response.headers["location"] == f"/runs/{runs.baseline}?sort=id"
    assert client.get("/runs/latest", follow_redirects=False).headers["location"] == (
        f"/runs/{runs.candidate}"
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("sort=score:nope", "sort: &#39;nope&#39; is not a scorer of this run"),
        ("sort=mean", "sort must be empty, &#39;id&#39; or &#39;score:&lt;scorer id&gt;&#39;"),
        ("order=up", "order must be asc or desc"),
        ("status=failed", "status must be one of ok, skipped, error"),
        ("min=abc", "min must be a number, not &#39;abc&#39;"),
        ("min=nan", "min must be a finite number"),
        ("min=0.8&max=0.2", "min (0.8) is above max (0.2)"),
        ("scorer=nope&status=ok", "scorer: &#39;nope&#39; is not a scorer of this run"),
    ],
)
def test_run_page_refuses_bad_parameters(
    client: TestClient, runs: ViewerRuns, query: str, message: str
) -> None:
    response = client.get(f"/runs/{runs.candidate}?{query}")
    assert response.status_code == 400
    assert message in response.text


def test_unknown_run_is_404(client: TestClient) -> None:
    response = client.get("/runs/ffffffff-0000")
    assert response.status_code == 404
    assert "no run &#39;ffffffff-0000&#39;" in response.text


# -- an item -----------------------------------------------------------------------------------


def test_item_page_shows_data_results_errors_and_other_runs(
    client: TestClient, runs: ViewerRuns
) -> None:
    response = client.get(f"/runs/{runs.candidate}/item", params={"id": "boiling-point"})
    assert response.status_code == 200
    page = assert_safe(response.text)
    text = " ".join(page.all_text.split())
    for expected in (
        "Input At what temperature does water boil at sea level?",
        "Output It boils when it is hot.",
        "Ground truth Water boils at 100 degrees Celsius at sea level.",
        "Context (1 pieces) At sea level water boils at 100 °C (212 °F).",
        '"topic": "physics"',
        "answer-judge answer-judge error",
        "Error in step analyze : JudgeOutputError",
        "The judge's raw reply I think so, yes.",
        "analyze prompt Does this answer the question? It boils when it is hot.",
        '"processed_output": "it boils when it is hot."',  # a step result
        "Content Similarity Scorer content-similarity-scorer ok 0.1404",
    ):
        assert expected in text, expected
    others = page.links("other-run")
    assert others == [(f"/runs/{runs.baseline}/item?id=boiling-point", "baseline")]


def test_item_page_escapes_payloads(client: TestClient, runs: ViewerRuns) -> None:
    response = client.get(f"/runs/{runs.baseline}/item", params={"id": "xss-probe"})
    page = assert_safe(response.text)
    text = page.all_text
    for expected in (
        f"Render this: {EVIL}",
        f"I will not render {EVIL}",
        f"context {EVIL}",
        f'"note": "{EVIL}"',
        f"The answer «I will not render {EVIL}» was judged against the question.",
    ):
        assert expected in text, expected
    assert response.text.count(ESCAPED) >= 5


def test_item_ids_with_any_characters_have_an_address(client: TestClient, runs: ViewerRuns) -> None:
    html = client.get(f"/runs/{runs.baseline}?sort=id").text
    hrefs = dict((text, href) for href, text in Page(html).links("item-link"))
    assert hrefs["unicode-é"] == f"/runs/{runs.baseline}/item?id=unicode-%C3%A9"
    assert client.get(hrefs["unicode-é"]).status_code == 200


def test_unknown_item_is_404(client: TestClient, runs: ViewerRuns) -> None:
    response = client.get(f"/runs/{runs.baseline}/item", params={"id": "nope"})
    assert response.status_code == 404
    assert "The run holds no item with this id." in response.text


# -- compare -----------------------------------------------------------------------------------


def test_compare_page_scorer_changes_and_pairs_by_regression(
    client: TestClient, runs: ViewerRuns
) -> None:
    response = client.get("/compare", params={"a": runs.baseline, "b": runs.candidate})
    assert response.status_code == 200
    page = assert_safe(response.text)
    text = " ".join(page.all_text.split())
    # mean A, mean B, change, error rate A, B, change, paired, lower, higher, newly failing
    assert "content-similarity-scorer 0.8305 0.5946 −0.2358 0% 0% 0 pp 8 3 1 0" in text
    assert "answer-judge 1.0000 0.7143 −0.2857 0% 12.5% +12.5 pp 7 2 0 1" in text
    assert "picky 1.0000 1.0000 0.0000 0% 12.5% +12.5 pp 7 0 0 1" in text
    rows = table_rows(response.text, "pairs-table")
    assert rows[:7] == [
        "boiling-point answer-judge 1.0000 error newly failing side by side",
        "speed-light picky 1.0000 error newly failing side by side",
        "capital-fr answer-judge 1.0000 0.0000 −1.0000 side by side",
        "speed-light answer-judge 1.0000 0.0000 −1.0000 side by side",
        "boiling-point content-similarity-scorer 1.0000 0.1404 −0.8596 side by side",
        "speed-light content-similarity-scorer 0.7273 0.0000 −0.7273 side by side",
        "capital-fr content-similarity-scorer 1.0000 0.4167 −0.5833 side by side",
    ]
    # then the unchanged pairs by item id, the improvement last
    assert rows[7] == "author-hamlet answer-judge 1.0000 1.0000 0.0000 side by side"
    assert rows[-1] == "photosynthesis content-similarity-scorer 0.7164 1.0000 +0.2836 side by side"
    sides = page.links("side-link")
    assert len(sides) == 24
    assert sides[0][0] == f"/compare/item?a={runs.baseline}&b={runs.candidate}&id=boiling-point"
    assert "1–24 of 24" in text


@pytest.mark.parametrize(
    ("query", "count"),
    [
        ("show=regressed", 7),
        ("show=changed", 8),
        ("scorer=picky", 8),
        ("scorer=picky&show=regressed", 1),
    ],
)
def test_compare_page_filters_pairs(
    client: TestClient, runs: ViewerRuns, query: str, count: int
) -> None:
    html = client.get(f"/compare?a={runs.baseline}&b={runs.candidate}&{query}").text
    assert len(Page(html).links("side-link")) == count


def test_compare_by_names_redirects_and_without_runs_offers_a_picker(
    client: TestClient, runs: ViewerRuns
) -> None:
    moved = client.get("/compare?a=baseline&b=candidate&show=changed", follow_redirects=False)
    assert moved.status_code == 307
    assert moved.headers["location"] == (
        f"/compare?a={runs.baseline}&b={runs.candidate}&show=changed"
    )
    picker = client.get("/compare")
    assert picker.status_code == 200
    assert 'id="pick-form"' in picker.text
    assert picker.text.count(f'value="{runs.baseline}"') == 2  # in both selects
    assert client.get("/compare?a=baseline&b=nope").status_code == 404
    assert client.get(f"/compare?a={runs.baseline}&b={runs.candidate}&show=x").status_code == 400


def test_compare_item_side_by_side(client: TestClient, runs: ViewerRuns) -> None:
    response = client.get(
        "/compare/item", params={"a": runs.baseline, "b": runs.candidate, "id": "capital-fr"}
    )
    assert response.status_code == 200
    text = " ".join(assert_safe(response.text).all_text.split())
    a, b = text.split("B: candidate")
    assert "A: baseline" in a and "Output Paris is the capital of France." in a
    assert "Output The capital is Lyon, I think." in b
    assert "answer-judge answer-judge ok 0.0000" in b
    missing = client.get(
        "/compare/item", params={"a": runs.baseline, "b": runs.candidate, "id": "nope"}
    )
    assert missing.status_code == 404


# -- live runs ---------------------------------------------------------------------------------


def test_a_running_run_page_polls_its_progress(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    run_id = live_run(db)
    with TestClient(create_app(db), base_url="http://127.0.0.1") as client:
        page = client.get(f"/runs/{run_id}").text
        url = f"/progress?run={run_id}"
        state = json.dumps({run_id: {"results": 3, "status": "running"}}, separators=(",", ":"))
        assert f'data-live-url="{url}"' in page
        assert f'data-live-state="{state.replace(chr(34), "&#34;")}"' in page
        assert client.get(url).text == state
        assert client.get(url).headers["cache-control"] == "no-store"
        add_live_results(db, run_id, 3, 2)
        assert client.get(url).json() == {run_id: {"results": 5, "status": "running"}}
        # the written order, oldest or newest first
        assert item_ids(client.get(f"/runs/{run_id}").text) == [f"call-{n}" for n in range(5)]
        newest = item_ids(client.get(f"/runs/{run_id}?order=desc").text)
        assert newest == [f"call-{n}" for n in (4, 3, 2, 1, 0)]
        assert "data-live-url" in client.get("/").text
        finish_live_run(db, run_id, 5)
        assert client.get(url).json() == {run_id: {"results": 5, "status": "finished"}}
        assert "data-live-url" not in client.get(f"/runs/{run_id}").text
        assert client.get("/progress?run=nope").json() == {"nope": {"results": 0, "status": None}}


# -- safety ------------------------------------------------------------------------------------


def test_every_response_carries_the_security_headers(client: TestClient, runs: ViewerRuns) -> None:
    for url in ("/", f"/runs/{runs.baseline}", "/static/view.js", "/runs/nope", "/?page=x"):
        headers = client.get(url).headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, url
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_assets_are_served_from_the_package(client: TestClient) -> None:
    script = client.get("/static/view.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert "data-live-url" in script.text
    style = client.get("/static/view.css")
    assert style.headers["content-type"].startswith("text/css")
    assert "http" not in style.text and "http" not in script.text.replace("https://", "")
    assert client.get("/static/favicon.svg").status_code == 200


def test_only_reads_and_only_this_host(client: TestClient, runs: ViewerRuns) -> None:
    assert client.post("/").status_code == 405
    assert client.post(f"/runs/{runs.baseline}").status_code == 405
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/", headers={"host": "localhost:8088"}).status_code == 200


def test_the_database_is_never_written(runs: ViewerRuns) -> None:
    before = hashlib.sha256(runs.db.read_bytes()).hexdigest()
    with TestClient(create_app(runs.db), base_url="http://127.0.0.1") as client:
        for url in (
            "/",
            f"/runs/{runs.candidate}?sort=score:picky",
            f"/runs/{runs.candidate}/item?id=capital-fr",
            f"/compare?a={runs.baseline}&b={runs.candidate}",
        ):
            assert client.get(url).status_code == 200
    assert hashlib.sha256(runs.db.read_bytes()).hexdigest() == before


@pytest.mark.parametrize(
    "name",
    [
        "scorekit.view",
        "scorekit.view.app",
        "scorekit.view.comparison",
        "scorekit.view.database",
        "scorekit.view.pages",
        "scorekit.view.paging",
        "scorekit.view.params",
        "scorekit.view.queries",
        "scorekit.view.templating",
        "scorekit.cli.commands.viewer",
    ],
)
def test_viewer_modules_export_their_public_names_with_docstrings(name: str) -> None:
    import importlib
    import inspect

    module = importlib.import_module(name)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", None) == module.__name__
    }
    assert public <= set(module.__all__), public - set(module.__all__)
    for attr in module.__all__:
        value = getattr(module, attr)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{name}.{attr}"
