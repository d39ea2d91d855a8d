from __future__ import annotations

import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scorekit import create_scorer
from scorekit.evals import run_evals_sync
from scorekit.pipeline import StepContext
from scorekit.report import histogram, render_report, write_report
from scorekit.store import Store

from ..evalkit import CachingModel, failing_on, judged_scorer, length_scorer

EVIL = '<script>alert("x")</script>'


class Page(HTMLParser):
    """Collects tags, attributes and text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)
        else:
            self.text.append(data)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def test_histogram_bins() -> None:
    found = histogram([0.0, 0.09, 0.1, 0.55, 0.99, 1.0, -0.2], bins=10)
    assert [b.count for b in found] == [3, 1, 0, 0, 0, 1, 0, 0, 0, 2]
    assert (found[0].low, found[-1].high) == (0.0, 1.0)
    wide = histogram([0.0, 5.0], bins=5)
    assert [b.count for b in wide] == [1, 0, 0, 0, 1]
    assert wide[-1].high == 5.0
    assert [b.count for b in histogram([], bins=2)] == [0, 0]


def test_report_escapes_every_text_from_data_and_models(tmp_path: Path) -> None:
    def evil_reason(ctx: StepContext) -> str:
        return f"reason {EVIL}"

    evil_scorer = (
        create_scorer(f"x{EVIL}", description=EVIL, name=f"name {EVIL}")
        .generate_score(lambda ctx: 0.5)
        .generate_reason(evil_reason)
    )
    data = [
        {
            "id": f"id{EVIL}",
            "input": f"in {EVIL}",
            "output": f"out {EVIL}",
            "ground_truth": f"gt {EVIL}",
            "context": [f"ctx {EVIL}"],
            "metadata": {"m": EVIL},
        }
    ]
    result = run_evals_sync(
        data,
        [evil_scorer, judged_scorer(CachingModel()), failing_on({f"out {EVIL}"})],
        store=tmp_path / "e.db",
        run_name=f"run {EVIL}",
        config={"note": EVIL},
    )
    with Store(tmp_path / "e.db") as store:
        html = render_report(store, result.run_id)
    page = parse(html)
    # exactly one script element: the report's own filter code
    assert page.tags.count("script") == 1
    assert "alert" not in "".join(page.scripts)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    text = "".join(page.text)
    for expected in (
        f"run {EVIL}",
        f"id{EVIL}",
        f"in {EVIL}",
        f"out {EVIL}",
        f"gt {EVIL}",
        f"ctx {EVIL}",
        f"reason {EVIL}",
        f"name {EVIL}",
        f"Is this fine? out {EVIL}",  # the judge prompt
        f"cannot score out {EVIL}",  # the error message
    ):
        assert expected in text, expected
    # no attribute may carry an event handler or a javascript: URL from the data
    for name, value in page.attrs:
        assert not name.startswith("on")
        assert "javascript:" not in (value or "")


def test_report_is_self_contained(tmp_path: Path) -> None:
    data = [{"id": "a", "output": "see https://example.com/x", "input": "q"}]
    result = run_evals_sync(data, [length_scorer()], store=tmp_path / "s.db")
    with Store(tmp_path / "s.db") as store:
        path = write_report(store, result.run_id, tmp_path / "out" / "report.html")
    html = path.read_text(encoding="utf-8")
    page = parse(html)
    assert not {"link", "img", "iframe", "object", "embed"} & set(page.tags)
    for name, value in page.attrs:
        if name in ("src", "href", "action", "data"):
            raise AssertionError(f"external reference {name}={value}")
    assert "@import" not in html
    assert "url(" not in html
    assert "default-src 'none'" in html  # the CSP forbids any request even if one slipped in
    assert "https://example.com/x" in "".join(page.text)  # data text is kept, not linked


def test_report_summary_histogram_and_items(tmp_path: Path) -> None:
    data = [
        {"id": "a", "output": "abcde"},
        {"id": "b", "output": "ab"},
        {"id": "c", "output": "abcdefghi"},
    ]
    result = run_evals_sync(
        data,
        [length_scorer(), failing_on({"ab"})],
        store=tmp_path / "r.db",
        thresholds={"length": 0.9},
        concurrency=1,
        run_name="three",
    )
    with Store(tmp_path / "r.db") as store:
        html = render_report(store, result.run_id)
        short = render_report(store, "latest", max_items=1)
    page = parse(html)
    text = " ".join(" ".join(page.text).split())
    assert "three" in text
    assert "failed" in text  # the verdict: mean 0.5333 < 0.9
    assert "0.5333" in text  # mean of length
    assert "≥ 0.90" in text  # the threshold, and the gate that failed with its reason
    assert "fail mean 0.5333 < 0.9" in text
    assert page.tags.count("svg") == 2
    assert page.tags.count("rect") == 20  # ten bins per scorer
    titles = [t for t in page.text if t.startswith("[")]
    assert "[0.20, 0.30): 1" in titles
    assert "[0.90, 1.00]: 1" in titles
    # one expandable entry per item, each with its scorers' details
    assert "3 of 3 items shown" in text
    assert "cannot score ab" in text
    assert "1 of 3 items shown" in " ".join(" ".join(parse(short).text).split())


def test_report_of_unknown_run_fails(tmp_path: Path) -> None:
    from scorekit.errors import StoreError

    with Store(tmp_path / "n.db") as store, pytest.raises(StoreError, match="no run"):
        render_report(store, "nope")


def test_histogram_bins_common_scores_exactly() -> None:
    from scorekit.report.histogram import histogram

    scores = [i / 10 for i in range(11)] * 3
    counts = [b.count for b in histogram(scores)]
    assert counts == [3, 3, 3, 3, 3, 3, 3, 3, 3, 6]  # 1.0 joins the last bin [0.9, 1.0]


def test_report_shows_sub_results_of_the_trajectory_scorer(tmp_path: Path) -> None:
    from scorekit.scorers.trajectory import create_trajectory_scorer_code

    evil_step = {"stepType": "tool_call", "name": EVIL}
    data = [
        {
            "id": "t1",
            "output": {
                "steps": [
                    {"stepType": "agent_run", "name": "agent", "children": [evil_step]},
                    {"stepType": "tool_call", "name": "search"},
                ]
            },
            "expected_trajectory": {
                "steps": [{"name": "agent", "children": {"steps": [{"name": EVIL}]}}],
                "maxSteps": 1,
            },
        }
    ]
    result = run_evals_sync(
        data, [create_trajectory_scorer_code()], store=tmp_path / "t.db", concurrency=1
    )
    with Store(tmp_path / "t.db") as store:
        html = render_report(store, result.run_id)
    page = parse(html)
    assert EVIL not in html  # escaped, in the parts table too
    cells = [" ".join(t.split()) for t in page.text if t.strip()]
    assert "Parts" in cells
    for name in ("accuracy", "efficiency", "tool_failures", "nested: agent"):
        assert name in cells
    assert page.tags.count("table") >= 1
    assert "<script>alert(" not in html
    assert any("<script>alert(" in t for t in page.text)  # the step name, shown as text


def test_report_gates_agree_with_the_verdict(tmp_path: Path) -> None:
    # an all-error scorer: the verdict fails, its gate says why, its error rate is 100%
    db = tmp_path / "g.db"
    items = [{"id": i, "input": "q", "output": out} for i, out in enumerate(["a", "b"])]
    result = run_evals_sync(
        items, [failing_on({"a", "b"}), length_scorer()], store=db, max_error_rate=0.5
    )
    assert result.verdict == "failed"
    with Store(db) as store:
        text = " ".join(" ".join(parse(render_report(store, result.run_id)).text).split())
    with sqlite3.connect(db) as conn:  # as a stopped run is stored: no verdict
        conn.execute("update runs set status = 'interrupted', verdict = null")
    with Store(db) as store:
        stopped = " ".join(" ".join(parse(render_report(store, result.run_id)).text).split())
    assert "failed" in text
    assert "fail no ok result; error rate 100% > 50%" in text  # picky: every result an error
    assert "≤ 50%" in text  # the stored limit is shown
    summary = stopped.split("Summary", 1)[1].split("Judge", 1)[0]
    assert "no verdict" in stopped
    assert "fail" not in summary and "pass" not in summary  # no gate is judged


def test_report_shows_the_items_trajectory_and_contexts(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    item = {
        "input": "q",
        "output": "abc",
        "expected_trajectory": {"steps": [{"stepType": "tool_call", "name": "search"}]},
        "request_context": {"rubric": "Be brief"},
        "additional_context": {"note": EVIL},
    }
    result = run_evals_sync([item], [length_scorer()], store=db)
    with Store(db) as store:
        html = render_report(store, result.run_id)
    text = " ".join(parse(html).text)
    for heading in ("Expected trajectory", "Request context", "Additional context"):
        assert heading in text
    assert '"name": "search"' in text and '"rubric": "Be brief"' in text
    assert EVIL not in html  # escaped like every text from data
