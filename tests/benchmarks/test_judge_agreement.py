"""The harness's command (benchmarks/judge_agreement.py) end to end on a scripted judge."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from judge_quality import cli, data  # noqa: E402


def test_list_names_every_task() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "judge_agreement.py"), "--model", "test/x", "--list"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 10
    assert lines[0].split()[:3] == ["*", "ares-context-relevance", "12"]
    assert sum(line.startswith("*") for line in lines) == 5


def test_run_writes_figures_and_no_row_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not data.DATA.is_dir():
        pytest.skip(f"the datasets are not at {data.DATA} (../shared/data or SCOREKIT_SHARED)")
    out = tmp_path / "results.json"
    argv = ["--model", "test/x", "--tasks", "ares-context-relevance", "ares-answer-relevancy"]
    argv += ["--rows", "2", "--repeat-rows", "1", "--json", str(out)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "first 512 tokens" not in printed  # a scripted judge has no tokenizer
    assert "first 2048 characters (~512 tokens)" in printed
    result = json.loads(out.read_text(encoding="utf-8"))
    assert [(f["task"], f["variant"], f["rows"]) for f in result["figures"]] == [
        ("ares-context-relevance", "scorer:label", 2),
        ("ares-context-relevance", "baseline", 2),
        ("ares-answer-relevancy", "scorer:label", 2),
        ("ares-answer-relevancy", "baseline", 2),
    ]
    assert all(f["rep"] == 1 and f["error"] == 0.0 for f in result["figures"])
    assert result["meta"]["rows"] == {"ares-context-relevance": 2, "ares-answer-relevancy": 2}
    # ids and figures only: the ARES documents (Databricks' text) never leave shared/
    text = out.read_text(encoding="utf-8")
    for row in data.load_ares("context_relevance"):
        assert row.contexts[0][:200] not in text
        assert row.question not in text
