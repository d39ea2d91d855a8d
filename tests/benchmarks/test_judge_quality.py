"""The judge-quality harness's pure parts: metrics, loaders, subsets, cutting, tasks, runner."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from scorekit.judge import JudgeRequest, ScriptedJudge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from judge_quality import baselines, data, metrics, report, runner, tasks
from judge_quality.cutting import CHARS_PER_TOKEN, Cutter


def test_metrics_exact() -> None:
    labels = [1, 1, 0, 0, 1]
    predictions = [1, 0, 0, 1, 1]
    assert metrics.balanced_accuracy(labels, predictions) == (2 / 3 + 1 / 2) / 2
    # observed 3/5; chance 0.6 * 0.6 + 0.4 * 0.4 = 0.52
    assert metrics.cohen_kappa(labels, predictions) == pytest.approx((0.6 - 0.52) / 0.48)
    # positives 0.9, 0.5, 1.0 against negatives 0.5, 0.1: 2 + 1.5 + 2 wins of 6
    assert metrics.auroc(labels, [0.9, 0.5, 0.5, 0.1, 1.0]) == 5.5 / 6
    assert metrics.cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1]) == -1.0
    assert metrics.same_label_share([1, 0, None, 1], [1, 1, 0, 1]) == 2 / 3


def test_metrics_undefined_and_bad_input() -> None:
    assert metrics.auroc([1, 1], [0.1, 0.2]) is None
    assert metrics.balanced_accuracy([0, 0], [0, 1]) is None
    assert metrics.cohen_kappa([1, 1], [1, 1]) is None
    assert metrics.cohen_kappa([], []) is None
    assert metrics.same_label_share([None], [1]) is None
    with pytest.raises(ValueError, match="differ in length"):
        metrics.auroc([1, 0], [0.5])
    with pytest.raises(ValueError, match="differ"):
        metrics.same_label_share([1], [1, 0])


def test_loaders_read_the_files_formats(tmp_path: Path) -> None:
    begin = tmp_path / "begin.tsv"
    begin.write_text(
        "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n"
        "t5\twow\tcrayola made chalk\twhy?\tcrayola began with chalk\tFully attributable\n"
        'gpt2\twow\t"quoted" text\thi\tgeneric\tGeneric\n'
        "gpt2\twow\ta kilt\tnice\tit is blue\tNot fully attributable\n",
        encoding="utf-8",
    )
    assert data.load_begin(begin) == [
        data.Row("begin:0", "why?", ("crayola made chalk",), "crayola began with chalk", 1),
        data.Row("begin:2", "nice", ("a kilt",), "it is blue", 0),
    ]
    claim = {"claim_string": "Paris is big [1].", "support": "Complete"}
    record = {
        "question": "q?",
        "answers": {
            "a": {
                "claims": [
                    {**claim, "evidence": ["[1] title\n\npassage one", "[2] url only"]},
                    {**claim, "support": "Partial", "evidence": ["[2] t\n\nshort"]},
                    {**claim, "support": "Missing", "evidence": ["[3] t"]},  # no passage text
                    {**claim, "support": None, "evidence": ["[4] t\n\nignored"]},
                ]
            }
        },
    }
    expertqa = tmp_path / "expertqa.jsonl"
    expertqa.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert data.load_expertqa_claims(expertqa) == [
        data.Row("expertqa:0.0", "q?", ("passage one",), "Paris is big.", 1),
        data.Row("expertqa:0.1", "q?", ("short",), "Paris is big.", 0),
    ]
    pair = {"query": "q", "gt_answer": "ref", "model1": {"response": "r1"}}
    pair |= {"model2": {"response": "r2"}}
    records = [
        {**pair, "instance_id": 0, "correctness_label": 1},
        {**pair, "instance_id": 0, "correctness_label": 0},
        {**pair, "instance_id": 1, "correctness_label": -1},
        {**pair, "instance_id": 1, "correctness_label": 1},  # a tie: dropped
        {**pair, "instance_id": 2, "correctness_label": -2},
        {**pair, "instance_id": 2, "correctness_label": -1},
    ]
    ragchecker = tmp_path / "ragchecker.json"
    ragchecker.write_text(json.dumps(records), encoding="utf-8")
    assert data.load_ragchecker(ragchecker) == [
        data.Row("ragchecker:0", "q", (), "r1", 1, reference="ref", other="r2"),
        data.Row("ragchecker:2", "q", (), "r1", 0, reference="ref", other="r2"),
    ]


def test_loaders_on_the_shared_data() -> None:
    if not data.DATA.is_dir():
        pytest.skip(f"the datasets are not at {data.DATA} (../shared/data or SCOREKIT_SHARED)")
    counts = {label: data.load_ares(label) for label in data.ARES_LABELS}
    assert {k: (len(v), sum(r.label for r in v)) for k, v in counts.items()} == {
        "context_relevance": (104, 54),
        "answer_faithfulness": (104, 90),
        "answer_relevance": (104, 93),
    }
    ares = counts["context_relevance"]
    assert all(len(r.contexts) == 1 and r.contexts[0] for r in ares)
    assert len({r.key for r in ares}) == 104
    begin = data.load_begin()
    assert (len(begin), sum(r.label for r in begin)) == (430, 180)
    claims = data.load_expertqa_claims()
    # 562 Complete + 175 Incomplete + 56 Partial: no Missing claim has passage text
    assert (len(claims), sum(r.label for r in claims)) == (793, 562)
    assert all("[1]" not in r.answer for r in claims)
    assert len({r.key for r in claims}) == 793
    pairs = data.load_ragchecker()
    assert (len(pairs), sum(r.label for r in pairs)) == (195, 93)


def _rows(positives: int, negatives: int) -> list[data.Row]:
    labels = [1] * positives + [0] * negatives
    return [data.Row(f"t:{i}", "q", ("d",), "a", y) for i, y in enumerate(labels)]


def test_balanced_sample_is_seeded_and_balanced() -> None:
    rows = _rows(30, 20)
    sample = data.balanced_sample(rows, 10, seed=0)
    assert len(sample) == 10
    assert sum(r.label for r in sample) == 5
    assert sample == data.balanced_sample(rows, 10, seed=0)
    assert sample != data.balanced_sample(rows, 10, seed=1)
    odd = data.balanced_sample(rows, 7, seed=3)
    assert sum(r.label for r in odd) == 4
    # too few negatives: all of them, the positives fill the rest
    scarce = data.balanced_sample(_rows(30, 3), 10, seed=0)
    assert (len(scarce), sum(r.label for r in scarce)) == (10, 7)
    assert len(data.balanced_sample(_rows(2, 1), 10, seed=0)) == 3


def test_the_default_subsets_are_fixed() -> None:
    if not data.DATA.is_dir():
        pytest.skip(f"the datasets are not at {data.DATA}")
    task = tasks.TASKS["ares-context-relevance"]
    first = [r.key for r in data.balanced_sample(task.load(), task.rows, 0)]
    assert first == [r.key for r in data.balanced_sample(task.load(), task.rows, 0)]
    assert len(first) == 12
    assert sum(r.label for r in data.balanced_sample(task.load(), 12, 0)) == 6


def test_cutter_by_characters() -> None:
    cut = Cutter(3)
    long_text = "x" * (3 * CHARS_PER_TOKEN + 5)
    assert cut(long_text) == "x" * 12
    assert cut("short") == "short"
    assert cut(long_text) == "x" * 12  # memoised, counted once
    assert cut.cut_count == 1
    assert cut.method == "first 12 characters (~3 tokens)"
    with pytest.raises(ValueError, match="limit"):
        Cutter(0)


def test_cutter_with_the_judges_tokenizer() -> None:
    pytest.importorskip("xllamacpp")
    from judge_quality.cutting import judge_server

    from scorekit.judge import Judge

    server = judge_server(Judge("local/smollm2", cache=False))
    assert server is not None
    cut = Cutter(4, server)
    text = "The quick brown fox jumps over the lazy dog near the river bank."
    ids = server.post("/tokenize", {"content": text, "add_special": False})["tokens"]
    expected = server.post("/detokenize", {"tokens": ids[:4]})["content"]
    assert cut(text) == expected
    assert text.startswith(expected)
    assert len(server.post("/tokenize", {"content": expected, "add_special": False})["tokens"]) == 4
    assert cut("Hi.") == "Hi."


def test_task_orientation_and_prediction() -> None:
    hallucination = tasks.TASKS["begin-hallucination"]
    assert hallucination.orient(0.0) == 1.0
    assert hallucination.predict(hallucination.orient(0.0)) == 1
    assert hallucination.predict(hallucination.orient(0.25)) == 0
    faithfulness = tasks.TASKS["begin-faithfulness"]
    assert (faithfulness.predict(1.0), faithfulness.predict(0.99)) == (1, 0)
    pair = tasks.TASKS["ragchecker-answer-similarity"]
    assert (pair.predict(0.5), pair.predict(0.51)) == (0, 1)
    relevance = tasks.TASKS["ares-context-relevance"]
    assert (relevance.predict(0.7), relevance.predict(0.3)) == (1, 0)
    assert set(tasks.DEFAULT_TASKS) <= set(tasks.TASKS)


def test_baseline_prompts_ask_one_label() -> None:
    prompt = baselines.context_relevance.prompt("Q?", ("doc",), "THE ANSWER", None, None)
    assert prompt == (
        "Question: Q?\n\nDocument:\ndoc\n\nDoes the document contain information relevant to "
        'answering the question? Reply with JSON: {"label": "yes"} or {"label": "no"}.'
    )
    assert "THE ANSWER" not in prompt  # relevance is judged against the question only
    two = baselines.faithfulness.prompt("Q?", ("a", "b"), "claim", None, None)
    assert two.startswith("Document 1:\na\n\nDocument 2:\nb\n\nQuestion: Q?\n\nAnswer: claim")
    assert baselines.pair_correctness.positive({"better": "2"}) == 1


def _oracle(request: JudgeRequest) -> object:
    """Relevant when the document says "Paris is in France"; the baseline answers the same."""
    relevant = "Paris is in France" in request.messages[-1].content
    if request.step == "baseline":
        return {"label": "yes" if relevant else "no"}
    level = "high" if relevant else "none"
    evaluation = {"context_index": 0, "relevance_level": level, "was_used": relevant}
    return {
        "evaluations": [{**evaluation, "reasoning": "r"}],
        "missing_context": [],
        "overall_assessment": "o",
    }


def _runner(judge: ScriptedJudge) -> runner.VariantRunner:
    return runner.VariantRunner(runner.JudgeOptions(judge))


def test_runner_scores_variants_and_shares_the_baseline() -> None:
    rows = [
        data.Row("t:0", "Where is the Louvre?", ("Paris is in France.",), "In Paris.", 1),
        data.Row("t:1", "Where is the Louvre?", ("Oslo is cold.",), "Unknown.", 0),
        data.Row("t:2", "Where is the Prado?", ("Lima is in Peru.",), "Unknown.", 1),
    ]
    judge = ScriptedJudge(_oracle)
    run = _runner(judge)
    task = tasks.TASKS["ares-context-relevance"]
    scored = asyncio.run(runner.run_variant(run, task, "scorer:label", rows, repeat_rows=2))
    assert [(o.status, o.score, o.predicted) for o in scored.outcomes] == [
        ("ok", 1.0, 1),
        ("ok", 0.0, 0),
        ("ok", 0.0, 0),
    ]
    figures = report.figures(scored)
    # labels 1, 0, 1; predictions 1, 0, 0: TPR 1/2, TNR 1
    assert (figures["ba"], figures["auroc"], figures["same"], figures["rep"]) == (
        0.75,
        0.75,
        1.0,
        2,
    )
    assert (figures["calls"], figures["error"], figures["skip"]) == (1.0, 0.0, 0.0)
    assert figures["prompt_tok"] > 0
    calls = len(judge.calls)
    base = asyncio.run(runner.run_variant(run, task, "baseline", rows, repeat_rows=0))
    assert [o.predicted for o in base.outcomes] == [1, 0, 0]
    assert len(judge.calls) == calls + 3
    # another task asking the same baseline question of the same rows makes no new call
    precision = tasks.TASKS["ares-context-precision"]
    again = asyncio.run(runner.run_variant(run, precision, "baseline", rows, repeat_rows=0))
    assert [o.predicted for o in again.outcomes] == [1, 0, 0]
    assert len(judge.calls) == calls + 3
    assert "| ares-context-relevance | baseline | 3 | 2 | 0.75 |" in report.format_table(
        [report.figures(base)]
    )


def test_expected_scoring_is_skipped_where_the_factory_has_no_option() -> None:
    task = tasks.TASKS["ares-answer-relevancy"]
    run = _runner(ScriptedJudge())
    result = asyncio.run(runner.run_variant(run, task, "scorer:expected", [], repeat_rows=0))
    if tasks.accepts(task.factory, "scoring"):
        assert result.skipped is None
    else:
        assert result.skipped == "create_answer_relevancy_scorer takes no scoring= option"
        assert report.figures(result)["variant"] == "scorer:expected (skipped)"
