from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from scorekit.judge import JudgeRequest, JudgeResponse, ScriptedJudge

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "judge_agreement.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("judge_agreement", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["judge_agreement"] = module
    spec.loader.exec_module(module)
    return module


def test_metrics_exact(bench: ModuleType) -> None:
    labels = [1, 1, 0, 0, 1]
    predictions = [1, 0, 0, 1, 1]
    assert bench.balanced_accuracy(labels, predictions) == (2 / 3 + 1 / 2) / 2
    # observed 3/5; chance 0.6*0.6 + 0.4*0.4 = 0.52
    assert bench.cohen_kappa(labels, predictions) == pytest.approx((0.6 - 0.52) / 0.48)
    assert bench.auroc(labels, [0.9, 0.5, 0.5, 0.1, 1.0]) == (2 + 1.5 + 2) / 6
    assert bench.auroc([1, 1], [0.1, 0.2]) is None
    assert bench.cohen_kappa([1, 1], [1, 1]) is None


def test_loaders_read_the_datasets_formats(bench: ModuleType, tmp_path: Path) -> None:
    # a few rows in the real files' formats (the datasets live in ../shared/data)
    begin_file = tmp_path / "begin.tsv"
    begin_file.write_text(
        "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n"
        "t5\twow\tcrayola made chalk first\twhy dark?\tcrayola began with chalk\t"
        "Fully attributable\n"
        "gpt2\twow\tthe garment is a kilt\tnice\tit is blue\tNot fully attributable\n"
        'gpt2\twow\t"quoted" text\thi\tgeneric\tGeneric\n',
        encoding="utf-8",
    )
    begin = bench.load_begin(begin_file)
    assert begin == [
        bench.Row(("crayola made chalk first",), "why dark?", "crayola began with chalk", 1),
        bench.Row(("the garment is a kilt",), "nice", "it is blue", 0),
    ]
    claim = {"claim_string": "Paris is big [1].", "support": "Complete"}
    record = {
        "question": "q?",
        "answers": {
            "a": {
                "claims": [
                    {**claim, "evidence": ["[1] title\n\n" + "x" * 20]},
                    {**claim, "support": "Partial", "evidence": ["[2] t\n\nshort"]},
                    {**claim, "support": "Missing", "evidence": ["[3] t"]},  # no passage text
                    {**claim, "support": None, "evidence": ["[4] t\n\nignored"]},
                ]
            }
        },
    }
    expertqa_file = tmp_path / "expertqa.jsonl"
    expertqa_file.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert bench.load_expertqa(expertqa_file, 10) == [
        bench.Row(("x" * 10,), "q?", "Paris is big.", 1),
        bench.Row(("short",), "q?", "Paris is big.", 0),
    ]


def test_loaders_and_balanced_sample_on_the_real_datasets(bench: ModuleType) -> None:
    if not bench.DATA.is_dir():
        pytest.skip(f"the datasets are not at {bench.DATA} (../shared/data or SCOREKIT_SHARED)")
    begin = bench.load_begin(bench.DATA / "begin_wow" / "begin_dev_wow.tsv")
    assert len(begin) == 430 and sum(r.label for r in begin) == 180
    expertqa = bench.load_expertqa(bench.DATA / "expertqa_lfqa" / "rand_test.jsonl", 1500)
    # 562 Complete + 175 Incomplete + 56 Partial (no Missing claim has passage text; the data
    # README counts 794)
    assert len(expertqa) == 793 and sum(r.label for r in expertqa) == 562
    assert all("[1]" not in r.output and all(len(p) <= 1500 for p in r.context) for r in expertqa)
    sample = bench.balanced_sample(begin, 10, seed=0)
    assert len(sample) == 10 and sum(r.label for r in sample) == 5
    assert sample == bench.balanced_sample(begin, 10, seed=0)


def oracle(request: JudgeRequest) -> object:
    """Claims = the output; supported when its first word appears in the context."""
    prompt = request.messages[1].content  # the step's prompt, also in a repair request
    if request.step == "preprocess":
        return {"claims": [prompt.rsplit("Text:\n", 1)[1].split("\n\nAnswer with JSON")[0]]}
    if request.step == "analyze":
        if len(request.messages) == 2 and "flaky" in prompt:
            return "not json"  # one failed reply, repaired on the next call
        context = prompt.split("Context:\n", 1)[1].split("\n\nClaims", 1)[0].lower()
        claim = prompt.rsplit("1. ", 1)[1].split("\n", 1)[0].lower()
        verdict = "yes" if claim.split()[0] in context else "no"
        return {"verdicts": [{"verdict": verdict, "reason": "r"}]}
    return "reason"


def test_harness_reports_figures(bench: ModuleType) -> None:
    rows = [
        bench.Row(("paris is in france",), "q", "paris is big", 1),
        bench.Row(("rome is in italy",), "q", "rome flaky", 1),
        bench.Row(("oslo is cold",), "q", "bergen is wet", 0),
        bench.Row(("lima is in peru",), "q", "quito is high", 0),
    ]
    judge = ScriptedJudge(oracle)
    report = asyncio.run(bench.score_rows("toy", rows, judge))
    figures = report.figures(1.0)
    assert figures["scored"] == 4
    assert (figures["balanced_accuracy"], figures["cohen_kappa"], figures["auroc"]) == (
        1.0,
        1.0,
        1.0,
    )
    assert report.calls == 13  # 3 per row plus one repair
    assert figures["failed_parse_share"] == 1 / 13
    assert figures["judge_calls_per_row"] == 13 / 4
    assert figures["tokens_per_row"] > 0
    assert figures["error_rows_share"] == 0.0
    json.dumps(figures)


def test_reply_failed(bench: ModuleType) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    asked = JudgeRequest(messages=(), output_schema=schema, schema_name="A")
    text = JudgeRequest(messages=())
    assert not bench.reply_failed(asked, JudgeResponse('{"a": 1}'))
    assert bench.reply_failed(asked, JudgeResponse('{"a": "x"}'))
    assert bench.reply_failed(asked, JudgeResponse('{"a": 1}', finish_reason="length"))
    assert not bench.reply_failed(text, JudgeResponse("why"))
    assert bench.reply_failed(text, JudgeResponse(" "))
