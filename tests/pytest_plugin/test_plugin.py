"""The pytest plugin in real pytest sessions, each in a subprocess (``pytester``)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scorekit.store import Store
from tests.servers.scripted_openai import Reply, ScriptedServer

pytest_plugins = ["pytester"]

SCORERS = """
from scorekit import create_scorer, not_scorable

length = create_scorer("length", description="len / 10").generate_score(
    lambda ctx: len(ctx.run.output) / 10
).generate_reason(lambda ctx: f"{len(ctx.run.output)} characters")

def _nothing(ctx):
    return not_scorable("no reference to compare with")

empty = create_scorer("needs-reference", description="skips").generate_score(_nothing)
"""

ASSERTIONS = """
import pytest
from scorers import length, empty
from scorekit.testing import assert_score, assert_scores

def test_long_enough():
    assert_score(length, input="q", output="hello", min=0.5)

def test_too_short():
    assert_score(length, input="q", output="hi", min=0.5)

def test_too_long():
    assert_score(length, output="x" * 9, max=0.8)

def test_skipped_fails():
    assert_score(empty, output="anything")

def test_skipped_allowed():
    assert_score(empty, output="anything", allow_skipped=True)

def test_two_scorers():
    assert_scores([length, empty], output="abcdefg", min={"length": 0.6}, allow_skipped=True)

def test_two_calls():
    assert_score(length, output="abcdef")
    assert_score(length, output="abcdefgh")
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(scorers=SCORERS)
    # the child session is a user's project: the asyncio plugin's warning is not ours to test
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


def _store(pytester: pytest.Pytester) -> Store:
    return Store(pytester.path / ".scorekit" / "scorekit.db", create=False)


def test_assertions_pass_and_fail_with_each_score_bound_and_reason(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_scores=ASSERTIONS)
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=3)
    assert result.ret == 1
    out = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*ScoreAssertionError: 1 of 1 scores failed",
            "*[[]FAIL] length: 0.2000 (min 0.5)",
            "*reason: 2 characters",
        ]
    )
    assert "[FAIL] length: 0.9000 (max 0.8)" in out
    assert "[FAIL] needs-reference: skipped (no bound)" in out
    assert "reason: no reference to compare with" in out
    assert "skipped results fail unless allow_skipped=True" in out
    # the terminal summary: counts by status, mean, min, and the failing items with reasons
    summary = out.split("= scorekit =", 1)[1]
    assert "8 scored items" in summary
    assert "test_scores.py::test_too_short length: 0.2000 < min 0.5" in summary
    assert "test_scores.py::test_too_long length: 0.9000 > max 0.8" in summary
    assert "test_scores.py::test_skipped_fails needs-reference: skipped" in summary
    assert "reason: no reference to compare with" in summary
    assert "stored: run " in summary


def _summary_row(out: str, scorer_id: str) -> list[str]:
    summary = out.split("= scorekit =", 1)[1]
    for line in summary.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) > 2 and cells[1] == scorer_id:
            return cells[2:-1]
    raise AssertionError(f"no row {scorer_id} in {summary}")


def test_summary_counts_by_status_and_the_statistics(project: pytest.Pytester) -> None:
    project.makepyfile(test_scores=ASSERTIONS)
    out = project.runpytest_subprocess("-p", "no:cacheprovider").stdout.str()
    # columns: ok, skipped, error, error rate, mean, mean 95 % (seeded bootstrap), median, min, max
    assert _summary_row(out, "length") == [
        "6",
        "0",
        "0",
        "0%",
        "0.6167",
        "[0.4333, 0.7833]",
        "0.6500",
        "0.2000",
        "0.9000",
    ]
    assert _summary_row(out, "needs-reference") == ["0", "3", "0", "0%", "—", "—", "—", "—", "—"]


def test_one_stored_run_with_the_node_ids_as_item_ids(project: pytest.Pytester) -> None:
    project.makepyfile(test_scores=ASSERTIONS)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--scorekit-run-name", "ci")
    assert result.ret == 1
    with _store(project) as store:
        (run,) = store.list_runs()
        assert (run.name, run.source, run.status, run.verdict) == (
            "ci",
            "TEST",
            "finished",
            "failed",
        )
        assert run.total_items == 8
        assert run.scorer_ids == ["length", "needs-reference"]
        rows = list(store.results(run.id))
    pairs = sorted((r.item_id, r.scorer_id, r.status, r.score) for r in rows)
    assert pairs == [
        ("test_scores.py::test_long_enough", "length", "ok", 0.5),
        ("test_scores.py::test_skipped_allowed", "needs-reference", "skipped", None),
        ("test_scores.py::test_skipped_fails", "needs-reference", "skipped", None),
        ("test_scores.py::test_too_long", "length", "ok", 0.9),
        ("test_scores.py::test_too_short", "length", "ok", 0.2),
        ("test_scores.py::test_two_calls", "length", "ok", 0.6),
        ("test_scores.py::test_two_calls#2", "length", "ok", 0.8),
        ("test_scores.py::test_two_scorers", "length", "ok", 0.7),
        ("test_scores.py::test_two_scorers", "needs-reference", "skipped", None),
    ]
    short = next(r for r in rows if r.item_id.endswith("test_too_short"))
    assert (short.input, short.output, short.reason) == ("q", "hi", "2 characters")
    # scorekit show reads the session like any run
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from scorekit.cli import main; main()",
            "show",
            "ci",
            "--db",
            str(project.path / ".scorekit" / "scorekit.db"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "verdict failed" in shown.stdout, shown.stderr


def test_junit_xml_has_each_score_as_a_property(project: pytest.Pytester) -> None:
    project.makepyfile(test_scores=ASSERTIONS)
    project.runpytest_subprocess("-p", "no:cacheprovider", "--junitxml=report.xml")
    tree = ET.parse(project.path / "report.xml")
    found = {
        case.get("name"): [(p.get("name"), p.get("value")) for p in case.iter("property")]
        for case in tree.iter("testcase")
    }
    assert found["test_too_short"] == [("scorekit:length", "0.2")]
    assert found["test_two_scorers"] == [
        ("scorekit:length", "0.7"),
        ("scorekit:needs-reference", "skipped"),
    ]
    assert found["test_two_calls"] == [("scorekit:length", "0.6"), ("scorekit:length", "0.8")]


MARKED = """
import pytest
from scorers import length
from scorekit.testing import assert_score

@pytest.mark.scorekit(thresholds={"length": 0.5})
@pytest.mark.parametrize("text", ["abcde", "abcdefgh", "ab"])
def test_mean_passes(text):
    assert_score(length, output=text)

@pytest.mark.scorekit(thresholds={"length": 0.6, "other": 0.1})
@pytest.mark.parametrize("text", ["abcde", "abcdef", "ab"])
def test_mean_fails(text):
    assert_score(length, output=text)
"""


def test_marker_checks_the_mean_over_all_cases_at_the_end(project: pytest.Pytester) -> None:
    project.makepyfile(test_marked=MARKED)
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    assert result.ret == 1  # every case passed; the mean of one test did not
    out = result.stdout.str()
    assert (
        "FAILED gates of test_marked.py::test_mean_fails: other: no score recorded in its "
        "3 cases; length: mean 0.4333 < 0.6 over 3 cases" in out
    )
    assert "gates of test_marked.py::test_mean_passes" not in out


def test_marker_passing_keeps_exit_code_zero(project: pytest.Pytester) -> None:
    project.makepyfile(test_marked=MARKED)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-k", "passes")
    assert result.ret == 0
    assert "FAILED gates" not in result.stdout.str()


UNSCORED = """
import pytest

@pytest.mark.scorekit(thresholds={"length": 0.5})
@pytest.mark.parametrize("text", ["abcde", "ab"])
def test_never_scores(text):
    assert text

@pytest.mark.scorekit(thresholds={"length": 0.5})
@pytest.mark.parametrize("text", ["abcde"])
def test_all_skipped(text):
    pytest.skip("no judge")
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_marker_whose_cases_scored_nothing_says_its_thresholds_were_not_checked(
    project: pytest.Pytester, workers: list[str]
) -> None:
    project.makepyfile(test_unscored=UNSCORED)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", *workers)
    result.assert_outcomes(passed=2, skipped=1)
    assert result.ret == 0  # nothing failed; nothing was gated either, and the summary says so
    out = result.stdout.str()
    for test in ("test_never_scores", "test_all_skipped"):
        assert (
            f"gates of test_unscored.py::{test} not checked: none of its cases recorded "
            "a score" in out
        )
    assert not (project.path / ".scorekit" / "scorekit.db").exists()  # no score, no run


def test_a_bad_marker_is_an_error_naming_the_field(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_bad="""
import pytest
from scorers import length
from scorekit.testing import assert_score

@pytest.mark.scorekit(thresholds={"length": "high"})
def test_it():
    assert_score(length, output="abcde")
"""
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ConfigError: test_bad.py::test_it: threshold 'length': 'high'*"])


def test_xdist_one_run_every_item_once_one_summary(project: pytest.Pytester) -> None:
    project.makepyfile(test_scores=ASSERTIONS, test_marked=MARKED)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=10, failed=3)
    out = result.stdout.str()
    assert out.count("= scorekit =") == 1
    assert out.count("stored: run ") == 1
    assert "FAILED gates of test_marked.py::test_mean_fails" in out
    assert result.ret == 1
    assert _summary_row(out, "length")[:2] == ["12", "0"]
    with _store(project) as store:
        (run,) = store.list_runs()
        rows = list(store.results(run.id))
    assert run.total_items == 14
    pairs = [(r.item_id, r.scorer_id) for r in rows]
    assert len(pairs) == len(set(pairs)) == 15
    assert {r.item_id for r in rows if "test_marked" in r.item_id} == {
        f"test_marked.py::test_mean_{kind}[{text}]"
        for kind, texts in (
            ("passes", ("abcde", "abcdefgh", "ab")),
            ("fails", ("abcde", "abcdef", "ab")),
        )
        for text in texts
    }


JUDGED = """
def test_relevant(scorekit_scorer):
    scorer = scorekit_scorer("answer-relevancy")
    from scorekit.testing import assert_score
    assert_score(scorer, input="Capital of France?", output="Paris.", allow_skipped=True)

def test_judge_fixture(scorekit_judge):
    assert scorekit_judge.model_id
"""


def test_missing_judge_skips_with_the_three_ways(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SCOREKIT_MODEL", raising=False)
    project.makepyfile(test_judged=JUDGED)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*no scorekit judge model is configured: pass --scorekit-model provider/model, set "
            "SCOREKIT_MODEL, or set scorekit_model in the pytest ini options*"
        ]
    )
    assert not (project.path / ".scorekit" / "scorekit.db").exists()  # nothing was scored


@pytest.mark.parametrize("how", ["option", "env", "ini", "pyproject"])
def test_judge_model_from_each_source(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.delenv("SCOREKIT_MODEL", raising=False)
    project.makepyfile(test_judged=JUDGED)
    args = ["-p", "no:cacheprovider"]
    if how == "option":
        args += ["--scorekit-model", "test/scripted"]
    elif how == "env":
        monkeypatch.setenv("SCOREKIT_MODEL", "test/scripted")
    elif how == "ini":
        project.makeini(
            "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
            "scorekit_model = test/scripted\n"
        )
    else:
        (project.path / "pyproject.toml").write_text('[tool.scorekit]\nmodel = "test/scripted"\n')
    result = project.runpytest_subprocess(*args)
    result.assert_outcomes(passed=2)
    with _store(project) as store:
        (run,) = store.list_runs()
        assert run.scorer_ids == ["answer-relevancy-scorer"]


def test_a_judge_error_fails_with_the_raw_reply(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedServer(Reply(content="I think it is relevant, mostly")) as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
        project.makepyfile(test_judged=JUDGED)
        result = project.runpytest_subprocess(
            "-p",
            "no:cacheprovider",
            "--scorekit-model",
            "openai-compatible/judge",
            "-k",
            "relevant",
        )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "[FAIL] answer-relevancy-scorer: error (no bound)" in out
    assert "error: JudgeOutputError in step preprocess:" in out
    assert "judge's raw reply: 'I think it is relevant, mostly'" in out
    assert "test_judged.py::test_relevant answer-relevancy-scorer: error" in out


def test_no_store_stores_nothing(project: pytest.Pytester) -> None:
    project.makepyfile(test_scores=ASSERTIONS)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--scorekit-no-store")
    assert "= scorekit =" in result.stdout.str()
    assert "stored: run" not in result.stdout.str()
    assert not (project.path / ".scorekit").exists()


def test_db_option_and_variable_choose_the_database(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_scores=ASSERTIONS)
    monkeypatch.setenv("SCOREKIT_DB", str(project.path / "from-env.db"))
    project.runpytest_subprocess("-p", "no:cacheprovider")
    project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--scorekit-db", "sqlite:///from-option.db"
    )
    for name in ("from-env.db", "from-option.db"):
        with sqlite3.connect(project.path / name) as conn:
            assert conn.execute("select count(*) from runs").fetchone() == (1,)
    assert not (project.path / ".scorekit" / "scorekit.db").exists()


def test_inert_without_scores(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
import json, sys
def pytest_unconfigure(config):
    names = ("sqlalchemy", "openai", "pandas", "scorekit.store.store", "scorekit.testing.session")
    heavy = [m for m in names if m in sys.modules]
    with open("modules.json", "w") as f:
        json.dump(heavy, f)
"""
    )
    project.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n")
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "= scorekit =" not in result.stdout.str()
    assert not (project.path / ".scorekit").exists()
    assert json.loads((project.path / "modules.json").read_text()) == []


def test_import_scorekit_imports_neither_pytest_nor_pandas(tmp_path: Path) -> None:
    code = (
        "import sys, scorekit, scorekit.testing; "
        "print(sorted(m for m in ('pytest', '_pytest', 'pandas') if m in sys.modules))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert found.stdout.strip() == "[]"
