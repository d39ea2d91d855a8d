from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from scorekit.cli import app
from scorekit.cli.config import load_config
from scorekit.errors import ConfigError
from scorekit.store import Store

ROWS = [
    {"id": "a", "question": "q1", "answer": "the cat sat", "ref": "the cat sat", "ctx": ["c"]},
    {"id": "b", "question": "q2", "answer": "a dog", "ref": "the cat sat", "ctx": ["c", "d"]},
]


@pytest.fixture(autouse=True)
def _no_env_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCOREKIT_MODEL", raising=False)


@pytest.fixture(autouse=True)
def _out_of_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a run without --db stores in .scorekit/ under the working directory: keep the test
    # runs out of the checkout's own results database
    monkeypatch.chdir(tmp_path)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_config(tmp_path: Path, body: str) -> Path:
    write_jsonl(tmp_path / "data.jsonl", ROWS)
    path = tmp_path / "run.yaml"
    path.write_text(body, encoding="utf-8")
    return path


CONFIG = """
name: demo
data:
  path: data.jsonl
  fields: {input: question, output: answer, ground_truth: ref, context: ctx}
scorers:
  - content-similarity
  - name: keyword-coverage
thresholds:
  content-similarity: 0.5
"""


def test_config_run_stores_reports_and_passes(tmp_path: Path) -> None:
    config = write_config(tmp_path, CONFIG)
    db = tmp_path / "db.sqlite"
    result = invoke("run", str(config), "--db", str(db), "--report", str(tmp_path / "r.html"))
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "content-similarity" in line)
    # ok, skipped, error, error rate, mean, mean 95 %, median, min, max, min. mean, max. errors,
    # gate; the interval: 2,000 seeded resamples of two items scored 0 and 1
    assert [c.strip() for c in row.split("│")[2:-1]] == (
        ["2", "0", "0", "0%", "0.5000", "[0.0000, 1.0000]", "0.5000", "0.0000", "1.0000", "0.5",
         "0%", "pass"]
    )  # fmt: skip
    assert "verdict: passed" in result.stdout
    assert "stored: run " in result.stdout
    assert f"report: {tmp_path / 'r.html'}" in result.stdout
    with Store(db) as store:
        (run,) = store.list_runs()
        rows = {(r.item_id, r.scorer_id): r for r in store.results(run.id)}
    assert run.name == "demo"
    assert run.verdict == "passed"
    assert run.config["data"]["fields"]["output"] == "answer"
    assert rows[("a", "content-similarity-scorer")].score == 1.0
    assert rows[("b", "content-similarity-scorer")].context == ["c", "d"]
    assert rows[("b", "keyword-coverage-scorer")].ground_truth == "the cat sat"
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_threshold_failure_exits_1(tmp_path: Path) -> None:
    config = write_config(
        tmp_path, CONFIG.replace("content-similarity: 0.5", "content-similarity: 0.6")
    )
    result = invoke("run", str(config), "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 1, result.output
    assert "FAIL: mean 0.5000 < 0.6" in result.stdout
    assert "verdict: failed (content-similarity-scorer: mean 0.5000 < 0.6)" in result.stdout


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("data: {path: data.jsonl}\nscorers: [nope]\n", "unknown scorer 'nope'"),
        ("data: {path: data.jsonl}\nscorers: []\n", "scorers: List should have at least 1 item"),
        ("data: {path: data.jsonl}\nscorers: [tone]\nconcurrency: 0\n", "concurrency:"),
        ("data: {path: data.jsonl}\nscorers: [tone]\nextra_key: 1\n", "extra_key: Extra inputs"),
        ("data: {path: missing.jsonl}\nscorers: [tone]\n", "missing.jsonl: no such file"),
        ("data: [1\n", "not valid YAML"),
        (
            "data: {path: data.jsonl}\nscorers: [{name: tone, options: {nonsense: 1}}]\n",
            "nonsense",
        ),
        (
            "data: {path: data.jsonl}\nscorers: [tone]\ntarget: no_such_module:f\n",
            "cannot import no_such_module",
        ),
        ("data: {path: data.jsonl}\nscorers: [tone]\nthresholds: {tone: high}\n", "thresholds"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, body: str, message: str) -> None:
    config = write_config(tmp_path, body)
    result = invoke("run", str(config), "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())


@pytest.mark.parametrize(
    ("body", "key", "lines"),
    [
        # issue 34 #6: PyYAML kept the last `scorers:` silently (a scorer vanished)
        ("data: {path: data.jsonl}\nscorers: [tone]\nscorers: [content-similarity]\n",
         "scorers", "lines 2 and 3"),
        ("data: {path: data.jsonl}\nscorers:\n  - name: tone\n    options: {}\n"
         "    name: completeness\n", "name", "lines 3 and 5"),
    ],
)  # fmt: skip
def test_a_key_given_twice_is_refused_with_its_lines(
    tmp_path: Path, body: str, key: str, lines: str
) -> None:
    config = write_config(tmp_path, body)
    result = invoke("run", str(config), "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert f"the key '{key}' appears twice in one mapping ({lines})" in message
    assert str(config) in message
    assert not (tmp_path / "x.db").exists()
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert info.value.field == key


def test_merge_keys_and_complex_keys_are_yaml_not_duplicates(tmp_path: Path) -> None:
    # a merge key brings keys the mapping may override: not a repeated key
    merged = write_config(
        tmp_path,
        "data: &base {path: data.jsonl}\nscorers: [content-similarity]\n"
        "name: merged\nthresholds:\n  <<: {content-similarity: 0.1}\n"
        "  content-similarity: 0.2\n",
    )
    assert load_config(merged).thresholds == {"content-similarity": 0.2}
    # a key that is a list: a YAML error (exit 2), never a traceback
    odd = write_config(tmp_path, "data: {path: data.jsonl}\nscorers: [tone]\n? [a, b]\n: 1\n")
    result = invoke("run", str(odd), "--db", str(tmp_path / "y.db"))
    assert result.exit_code == 2, result.output
    assert "not valid YAML" in result.stderr and "unhashable key" in result.stderr


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("data: {path: data.jsonl}\nscorers:\n  - name: content-similarity\n"
         "    options: {ignore_case: maybe}\n",
         "scorers[0].options.ignore_case: ignore_case must be true or false"),
        ("data: {path: data.jsonl}\nscorers: [tone, {name: nope}]\n",
         "scorers[1].name: unknown scorer 'nope'"),
    ],
)  # fmt: skip
def test_a_scorer_error_in_a_config_names_the_file_and_the_field_path(
    tmp_path: Path, body: str, where: str
) -> None:
    # issue 34: the error said "ignore_case must be true or false" with neither file nor path
    config = write_config(tmp_path, body)
    result = invoke("run", str(config), "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 2, result.output
    assert f"{config}: {where}" in " ".join(result.stderr.split())


def test_flags_belong_to_the_dataset_form(tmp_path: Path) -> None:
    config = write_config(tmp_path, CONFIG)
    result = invoke("run", str(config), "--scorer", "tone")
    assert result.exit_code == 2
    assert "--scorer belong(s) in the config file" in result.stderr


def test_config_target_produces_outputs_and_context(tmp_path: Path) -> None:
    (tmp_path / "my_app.py").write_text(
        "def answer(question):\n"
        "    return {'output': 'the cat sat' if question == 'q1' else 'no', 'context': ['p']}\n",
        encoding="utf-8",
    )
    body = """
data:
  path: data.jsonl
  fields: {input: question, output: not_there, ground_truth: ref}
target: my_app:answer
scorers: [content-similarity]
"""
    config = write_config(tmp_path, body)
    db = tmp_path / "t.db"
    result = invoke("run", str(config), "--db", str(db))
    assert result.exit_code == 0, result.output
    with Store(db) as store:
        rows = {r.item_id: r for r in store.results(store.get_run("latest").id)}
    assert rows["a"].output == "the cat sat"
    assert rows["a"].score == 1.0
    assert rows["b"].output == "no"
    assert rows["b"].context == ["p"]


def test_flag_form_still_works_with_thresholds(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "d.jsonl",
        [
            {"id": "x", "input": "night", "output": "nacht"},
            {"id": "y", "input": "a", "output": "a"},
        ],
    )
    out = tmp_path / "out.jsonl"
    result = invoke(
        "run",
        str(data),
        "--scorer",
        "content-similarity",
        "--threshold",
        "content-similarity=0.6",
        "--out",
        str(out),
        "--no-store",
    )
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "content-similarity" in line)
    assert [c.strip() for c in row.split("│")[-4:-1]] == ["0.6", "0%", "pass"]
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2
    assert "stored:" not in result.stdout
    missing = invoke("run", str(data))
    assert missing.exit_code == 2
    assert "give --scorer" in missing.stderr


def test_runs_show_compare_and_report(tmp_path: Path, store_db: str | Path) -> None:
    db = store_db
    first = write_jsonl(
        tmp_path / "one.jsonl",
        [
            {"id": "x", "input": "night", "output": "nacht"},
            {"id": "y", "input": "ab", "output": "ab"},
        ],
    )
    second = write_jsonl(
        tmp_path / "two.jsonl",
        [
            {"id": "x", "input": "night", "output": "night"},
            {"id": "y", "input": "ab", "output": "b"},
        ],
    )
    for path, run_name in ((first, "before"), (second, "after")):
        done = invoke(
            "run", str(path), "-s", "content-similarity", "--db", str(db), "--name", run_name
        )
        assert done.exit_code == 0, done.output
    with Store(db) as store:
        after, before = (r.id for r in store.list_runs())

    listed = invoke("runs", "--db", str(db))
    assert listed.exit_code == 0
    lines = [line for line in listed.stdout.splitlines() if "finished" in line]
    assert [before[:8] in lines[1], after[:8] in lines[0]] == [True, True]
    assert "content-similarity-scorer=0.6250" in lines[1]

    shown = invoke("show", before[:6], "--db", str(db))
    assert shown.exit_code == 0, shown.output
    assert f"run {before}  before" in shown.stdout
    row = next(line for line in shown.stdout.splitlines() if "content-similarity" in line)
    assert row.split("│")[1:-1] == [
        " content-similarity-scorer ",
        "  2 ",
        "       0 ",
        "     0 ",
        "         0% ",
        " 0.6250 ",
        " [0.2500, 1.0000] ",
        " 0.6250 ",
        " 0.2500 ",
        " 1.0000 ",
        "         — ",
        "          0% ",
        " pass ",
    ]

    compared = invoke("compare", before, after, "--db", str(db))
    assert compared.exit_code == 0, compared.output
    text = compared.stdout
    change = next(line for line in text.splitlines() if "content-similarity-scorer" in line)
    assert [c.strip() for c in change.split("│")[1:-1]] == [
        "content-similarity-scorer",
        "0.6250",
        "0.5000",
        "-0.1250",
        "2",
        "0",
    ]
    worst = [line for line in text.splitlines() if line.startswith("│ y")]
    assert [c.strip() for c in worst[0].split("│")[1:-1]] == [
        "y",
        "content-similarity-scorer",
        "1.0000",
        "0.0000",
        "-1.0000",
    ]

    html = tmp_path / "rep" / "r.html"
    reported = invoke("report", after[:8], "-o", str(html), "--db", str(db))
    assert reported.exit_code == 0, reported.output
    assert "after" in html.read_text(encoding="utf-8")

    unknown = invoke("show", "zzzz", "--db", str(db))
    assert unknown.exit_code == 2
    assert "no run 'zzzz'" in unknown.stderr


def test_resume_from_the_command_line(tmp_path: Path, store_db: str | Path) -> None:
    db = store_db
    data = write_jsonl(tmp_path / "d.jsonl", [{"id": "x", "input": "a", "output": "a"}])
    first = invoke("run", str(data), "-s", "content-similarity", "--db", str(db))
    assert first.exit_code == 0
    with Store(db) as store:
        run_id = store.get_run("latest").id
    again = invoke(
        "run", str(data), "-s", "content-similarity", "--db", str(db), "--resume", run_id[:8]
    )
    assert again.exit_code == 0, again.output
    assert f"stored: run {run_id}" in again.stdout
    with Store(db) as store:
        assert len(store.list_runs()) == 1
        assert len(list(store.results(run_id))) == 1
    no_store = invoke("run", str(data), "-s", "content-similarity", "--no-store", "--resume", "x")
    assert no_store.exit_code == 2


def test_resume_with_another_dataset_is_refused_unless_asked_for(
    tmp_path: Path, store_db: str | Path
) -> None:
    # issue 34 #8: --resume with another file scored it into the old run (3 items became 13)
    db = store_db
    rows = [{"id": str(i), "input": "a", "output": "a"} for i in range(3)]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    other = write_jsonl(tmp_path / "other.jsonl", [*rows, {"id": "9", "input": "b", "output": "c"}])
    assert invoke("run", str(data), "-s", "content-similarity", "--db", str(db)).exit_code == 0
    with Store(db) as store:
        run = store.get_run("latest")
    assert run.config["dataset_identity"]["path"] == str(data.resolve())
    assert run.config["dataset_identity"]["size"] == data.stat().st_size
    refused = invoke(
        "run", str(other), "-s", "content-similarity", "--db", str(db), "--resume", run.id[:8]
    )
    assert refused.exit_code == 2, refused.output
    message = " ".join(refused.stderr.split())
    assert f"run {run.id[:8]} was scored on {data.resolve()}" in message
    assert str(other.resolve()) in message and "--resume-other-data" in message
    with Store(db) as store:
        assert len(list(store.results(run.id))) == 3  # nothing was scored into it
    # the same content under another name resumes; --resume-other-data lets another through
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(data.read_bytes())
    same = invoke(
        "run", str(copy), "-s", "content-similarity", "--db", str(db), "--resume", run.id[:8]
    )
    assert same.exit_code == 0, same.output
    allowed = invoke("run", str(other), "-s", "content-similarity", "--db", str(db),
                     "--resume", run.id[:8], "--resume-other-data")  # fmt: skip
    assert allowed.exit_code == 0, allowed.output
    with Store(db) as store:
        assert len(list(store.results(run.id))) == 4


def test_resume_refuses_other_fields_other_sources_and_live_runs(
    tmp_path: Path, store_db: str | Path
) -> None:
    # found by the break-test: --output-field changed on resume scored the same file another
    # way into the run; a TRACE run took dataset rows; a run still going was resumed twice
    db = store_db
    rows = [{"id": str(i), "input": "a", "output": "a", "ground_truth": "b"} for i in range(2)]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    assert invoke("run", str(data), "-s", "content-similarity", "--db", str(db)).exit_code == 0
    with Store(db) as store:
        first = store.get_run("latest").id
        store.start_run("trace-run", name=None, scorers=[{"id": "content-similarity-scorer"}],
                        source="TRACE")  # fmt: skip
        store.finish_run(
            "trace-run", status="finished", total_items=0, judge_usage={}, verdict=None
        )
        store.start_run("going", name=None, scorers=[{"id": "content-similarity-scorer"}])
    other = invoke("run", str(data), "-s", "content-similarity", "--output-field",
                   "ground_truth", "--db", str(db), "--resume", first[:8])  # fmt: skip
    assert other.exit_code == 2, other.output
    assert "read its records with other fields (output: 'output' → 'ground_truth')" in " ".join(
        other.stderr.split()
    )
    trace = invoke("run", str(data), "-s", "content-similarity", "--db", str(db),
                   "--resume", "trace-run")  # fmt: skip
    assert trace.exit_code == 2 and "holds TRACE results" in " ".join(trace.stderr.split())
    going = invoke("run", str(data), "-s", "content-similarity", "--db", str(db),
                   "--resume", "going")  # fmt: skip
    assert going.exit_code == 2
    assert "is still running in another process" in " ".join(going.stderr.split())


_SEEN: dict[str, object] = {}


def _context_factory(*, context=None, context_extractor=None, scale: float = 1.0):  # type: ignore[no-untyped-def]
    from scorekit import create_scorer

    _SEEN.update(context=context, context_extractor=context_extractor)
    return create_scorer("c", description="d").generate_score(lambda ctx: 1.0)


def test_context_scorers_get_the_item_context_extractor() -> None:
    # the rule moved from the CLI into the registry (build_scorer); the CLI builds through it
    from scorekit.cli.plan import JudgePool, build_scorers
    from scorekit.inputs.retrieval_context import item_context

    seen = _SEEN
    name = f"{__name__}:_context_factory"
    build_scorers([name], [], None, JudgePool({}))
    assert seen == {"context": None, "context_extractor": item_context}
    build_scorers([name], ['context=["fixed"]'], None, JudgePool({}))
    assert seen == {"context": ["fixed"], "context_extractor": None}


def test_judge_settings_are_shared_and_scorers_keep_their_instructions() -> None:
    from scorekit.cli.plan import JudgePool, build_scorers
    from scorekit.scorers.context_relevance_prompts import INSTRUCTIONS as RELEVANCE
    from scorekit.scorers.faithfulness import INSTRUCTIONS as FAITHFULNESS

    judges = JudgePool({"timeout": 7.5, "cache": False, "max_tokens": 300})
    scorers = build_scorers(["context-relevance", "faithfulness"], [], "test/demo", judges)
    made = judges.get("test/demo")
    assert made.settings.timeout == 7.5
    assert made.settings.max_tokens == 300
    assert made.settings.cache is False
    relevance_judge = scorers[0]._steps[0][1].judge or scorers[0].judge
    faithfulness_judge = scorers[1].judge
    assert relevance_judge.instructions == RELEVANCE
    assert faithfulness_judge.instructions == FAITHFULNESS
    assert relevance_judge.model is faithfulness_judge.model is made.model


def test_judge_flags_and_config_section(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(
        json.dumps({"input": "q", "output": "a", "context": ["a"]}) + "\n", encoding="utf-8"
    )
    # context relevance: the test judge's minimal reply (no evaluations) scores (row 19)
    flags = invoke(
        "run",
        str(data),
        "-s",
        "context-relevance",
        "--model",
        "test/demo",
        "--no-store",
        "--no-cache",
        "--judge-timeout",
        "5",
        "--judge-max-tokens",
        "64",
    )
    assert flags.exit_code == 0, flags.output
    config = tmp_path / "c.yaml"
    config.write_text(
        "data: {path: d.jsonl}\nmodel: test/demo\njudge: {timeout: 5, cache: false}\n"
        "scorers: [context-relevance]\n",
        encoding="utf-8",
    )
    assert invoke("run", str(config), "--no-store").exit_code == 0
    config.write_text(
        "data: {path: d.jsonl}\nmodel: test/demo\njudge: {timeout: -1}\nscorers: [faithfulness]\n",
        encoding="utf-8",
    )
    bad = invoke("run", str(config), "--no-store")
    assert bad.exit_code == 2
    assert "timeout" in bad.output


def test_config_field_names_must_exist(tmp_path: Path) -> None:
    config = write_config(tmp_path, CONFIG.replace("ground_truth: ref", "ground_truth: reff"))
    result = invoke("run", str(config), "--no-store")
    assert result.exit_code == 2
    assert "data.jsonl:1: no field 'reff' in the first record" in result.output


def test_out_may_not_overwrite_the_config(tmp_path: Path) -> None:
    config = write_config(tmp_path, CONFIG)
    before = config.read_text()
    result = invoke("run", str(config), "--no-store", "--out", str(config))
    assert result.exit_code == 2
    assert "is the config itself" in result.output
    assert config.read_text() == before


def test_report_needs_the_store(tmp_path: Path) -> None:
    config = write_config(tmp_path, CONFIG)
    result = invoke("run", str(config), "--no-store", "--report", str(tmp_path / "r.html"))
    assert result.exit_code == 2
    assert "--report reads the stored run" in result.output


def test_config_db_path_is_relative_to_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    config = write_config(sub, CONFIG + "db: rel.db\n")
    monkeypatch.chdir(tmp_path)
    assert invoke("run", str(config)).exit_code == 0
    assert (sub / "rel.db").is_file()
    assert not (tmp_path / "rel.db").exists()


@pytest.mark.parametrize("value", ['"0.5"', "true"])
def test_config_thresholds_must_be_numbers(tmp_path: Path, value: str) -> None:
    config = write_config(
        tmp_path, CONFIG.replace("content-similarity: 0.5", f"content-similarity: {value}")
    )
    result = invoke("run", str(config), "--no-store")
    assert result.exit_code == 2
    assert "thresholds" in result.output


def _means_in_runs(stdout: str, run_id: str) -> dict[str, str]:
    import re

    line = next(line for line in stdout.splitlines() if line.startswith(f"│ {run_id[:8]}"))
    return dict(re.findall(r"([\w-]+)=([0-9.]+|—)", line))


def _means_in_show(stdout: str, scorer_ids: list[str]) -> dict[str, str]:
    found = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and cells[0] in scorer_ids and cells[0] not in found:  # the summary table
            found[cells[0]] = cells[5]  # scorer, ok, skipped, error, error rate, mean
    return found


def test_runs_and_show_print_the_same_means(tmp_path: Path, store_db: str | Path) -> None:
    from datetime import datetime, timezone

    from scorekit import create_scorer
    from scorekit.evals import run_evals_sync

    db = store_db
    thirds = create_scorer("thirds", description="len / 3").generate_score(
        lambda ctx: len(ctx.run.output) / 3
    )
    finished = run_evals_sync(
        [{"id": str(i), "output": "x" * n} for i, n in enumerate((1, 2, 2))], [thirds], store=db
    )
    with Store(db) as store:
        # a run whose totals were never written: started, two result rows, never finished
        store.start_run("f" * 8 + "-live", name="live", scorers=[{"id": "thirds"}, {"id": "n"}])
        now = datetime.now(timezone.utc)
        store.write_results(
            [
                {"run_id": "f" * 8 + "-live", "item_id": item, "scorer_id": "thirds"}
                | {"scorer_run_id": item, "status": "ok", "score": score, "created_at": now}
                for item, score in (("a", 0.1), ("b", 0.2))
            ]
        )
        live = store.get_run("f" * 8 + "-live")
        assert (live.status, live.totals) == ("running", {})

    listed = invoke("runs", "--db", str(db))
    assert listed.exit_code == 0, listed.output
    for run_id, expected in ((finished.run_id, "0.5556"), (live.id, "0.1500")):
        shown = invoke("show", run_id, "--db", str(db))
        assert shown.exit_code == 0, shown.output
        in_show = _means_in_show(shown.stdout, ["thirds", "n"])
        assert _means_in_runs(listed.stdout, run_id) == in_show
        assert in_show["thirds"] == expected
    assert _means_in_runs(listed.stdout, live.id) == {"thirds": "0.1500", "n": "—"}


_OWN_SCORER = '''
from scorekit import create_scorer


def create_length_scorer(*, limit: int = 10):
    """Output length / limit."""
    return create_scorer("own-length", description="length").generate_score(
        lambda ctx: min(len(ctx.run.output) / limit, 1.0)
    )
'''


def test_a_users_factory_is_a_scorer_name_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "own_cli_scorers.py").write_text(_OWN_SCORER, encoding="utf-8")
    data = write_jsonl(tmp_path / "d.jsonl", [{"input": "q", "output": "abcd"}])
    monkeypatch.chdir(tmp_path)
    result = invoke(
        "run", str(data), "-s", "own_cli_scorers:create_length_scorer", "-o", "limit=8",
        "--db", str(tmp_path / "r.db"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "own-length" in result.stdout
    with Store(tmp_path / "r.db") as store:
        [run] = store.list_runs()
        [row] = store.results(run.id)
    assert (row.scorer_id, row.score) == ("own-length", 0.5)


def test_a_config_names_a_users_factory_importable_from_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "own_config_scorers.py").write_text(_OWN_SCORER, encoding="utf-8")
    write_jsonl(folder / "d.jsonl", [{"input": "q", "output": "abcdef"}])
    (folder / "run.yaml").write_text(
        "data: {path: d.jsonl}\n"
        "scorers:\n"
        "  - name: own_config_scorers:create_length_scorer\n"
        "    options: {limit: 4}\n"
        "thresholds: {own-length: 0.9}\n"
        "db: r.db\n",
        encoding="utf-8",
    )
    result = invoke("run", str(folder / "run.yaml"))
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "own-length" in line)
    assert [c.strip() for c in row.split("│")[-4:-1]] == ["0.9", "0%", "pass"]


def test_an_unknown_scorer_name_suggests_the_closest(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", [{"input": "q", "output": "a"}])
    result = invoke("run", str(data), "-s", "content-similarty", "--no-store")
    assert result.exit_code == 2
    assert "Did you mean content-similarity" in result.stderr


def test_config_names_the_trajectory_field(tmp_path: Path) -> None:
    steps = {"steps": [{"stepType": "tool_call", "name": "search"}]}
    (tmp_path / "d.jsonl").write_text(
        json.dumps({"input": "q", "output": steps, "expect": steps}) + "\n", encoding="utf-8"
    )
    config = tmp_path / "c.yaml"
    config.write_text(
        "data: {path: d.jsonl, fields: {expected_trajectory: expect}}\n"
        "scorers: [trajectory-accuracy]\n",
        encoding="utf-8",
    )
    ran = invoke("run", str(config), "--no-store")
    assert ran.exit_code == 0, ran.output
    assert "1.0000" in ran.output
    config.write_text(
        "data: {path: d.jsonl, fields: {expected_trajectory: expectt}}\n"
        "scorers: [trajectory-accuracy]\n",
        encoding="utf-8",
    )
    misspelt = invoke("run", str(config), "--no-store")
    assert misspelt.exit_code == 2
    assert "no field 'expectt'" in misspelt.output
