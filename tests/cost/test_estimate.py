"""``estimate_run`` and ``scorekit run --estimate`` against the scripted judge server and the
real store: nothing sent, nothing stored, and the figures those of the run that follows."""

from __future__ import annotations

import json
import math
import uuid
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from scorekit import create_scorer
from scorekit._sync import run_sync
from scorekit.cli import app
from scorekit.cli.exit_codes import BUDGET, OK, USAGE
from scorekit.cost import estimate_run
from scorekit.cost.estimate import APPROX_UPPER_FACTOR, REPAIR_TOKENS
from scorekit.errors import ConfigError
from scorekit.evals import run_evals_sync
from scorekit.judge import Judge
from scorekit.judge.dry_run import approx_prompt_tokens
from scorekit.judge.model import ChatMessage
from scorekit.pipeline import Scorer
from scorekit.prompt_step import PromptStep
from scorekit.scorers import build_scorer
from scorekit.store import Store
from tests.servers.scripted_openai import Reply, ScriptedServer

ITEMS = [{"id": f"i{n}", "output": f"answer number {n} " * (n + 1)} for n in range(5)]
COMPLETION = 7


class Verdict(BaseModel):
    verdict: str


def _tokenizing(reply: str) -> Any:
    """A server default that bills the prompt as :func:`approx_prompt_tokens` counts it."""

    def answer(body: Any) -> Reply:
        messages = [ChatMessage(m["role"], m["content"]) for m in body["messages"]]
        return Reply(reply, prompt_tokens=approx_prompt_tokens(messages),
                     completion_tokens=COMPLETION)  # fmt: skip

    return answer


def _judge(server: ScriptedServer, **options: Any) -> Judge:
    options.setdefault("cache", False)
    return Judge(f"openai-compatible/e-{uuid.uuid4().hex[:8]}", base_url=server.base_url,
                 max_retries=0, **options)  # fmt: skip


def _scorer(judge: Judge, *, reason: bool = False) -> Scorer:
    step = PromptStep(description="v", create_prompt=lambda ctx: f"Fine? {ctx.run.output}",
                      output_schema=Verdict)  # fmt: skip
    scorer = create_scorer("judged", description="asks", judge=judge).analyze(step)
    scorer = scorer.generate_score(lambda ctx: 1.0)
    if reason:
        scorer = scorer.generate_reason(
            PromptStep(description="why", create_prompt=lambda ctx: "Why?")
        )
    return scorer


def test_the_estimate_sends_nothing_and_its_exact_figures_are_the_runs(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = _tokenizing('{"verdict": "yes"}')
    scorer = _scorer(_judge(server, max_tokens=64))
    found = run_sync(estimate_run(ITEMS, [scorer]))
    assert server.requests == []  # nothing sent
    (only,) = found.scorers
    assert (found.items, only.items, only.calls, only.exact, only.cache_hits) == (5, 5, 5, True, 0)
    done = run_evals_sync(ITEMS, [scorer], store=tmp_path / "s.db")
    usage = done.judge_usage
    assert usage.calls == len(server.requests) == 5
    assert only.prompt_tokens == usage.input_tokens  # exact: the same prompts, counted alike
    budgets = [r.body["max_tokens"] for r in server.requests]
    assert only.completion_tokens_upper == 3 * sum(budgets)
    prompts = [
        approx_prompt_tokens([ChatMessage(m["role"], m["content"]) for m in r.body["messages"]])
        for r in server.requests
    ]
    assert only.prompt_tokens_upper == sum(
        3 * math.ceil(p * APPROX_UPPER_FACTOR) + b + REPAIR_TOKENS
        for p, b in zip(prompts, budgets, strict=True)
    )
    assert only.prompt_tokens_upper >= usage.input_tokens
    assert only.completion_tokens_upper >= usage.output_tokens
    assert only.calls_upper == 15 and only.calls_upper >= usage.calls
    assert (only.completion_from, only.price, only.cost) == ("typical", None, None)


def test_a_later_step_is_an_expectation_and_free_text_has_no_completion_bound(
    server: ScriptedServer,
) -> None:
    scorer = _scorer(_judge(server), reason=True)
    (only,) = run_sync(estimate_run(ITEMS, [scorer])).scorers
    assert (only.calls, only.calls_upper, only.exact) == (10, 25, False)
    assert only.completion_tokens_upper is None and only.cost_upper is None
    assert server.requests == []


def test_what_the_judge_cache_holds_costs_nothing(server: ScriptedServer, tmp_path: Path) -> None:
    server.default = _tokenizing('{"verdict": "yes"}')
    judge = _judge(server, cache=True, cache_dir=tmp_path / "cache")
    scorer = _scorer(judge)
    before = run_sync(estimate_run(ITEMS[:3], [scorer])).scorers[0]
    assert (before.calls, before.cache_hits) == (3, 0)
    run_evals_sync(ITEMS[:3], [scorer], store=tmp_path / "s.db")
    sent = len(server.requests)
    after = run_sync(estimate_run(ITEMS, [scorer])).scorers[0]
    assert (after.calls, after.cache_hits, after.exact) == (2, 3, True)
    # a repeated trial samples anew: the cache answers none of the repeats
    repeated = run_sync(estimate_run(ITEMS, [scorer], trials=3)).scorers[0]
    assert (repeated.calls, repeated.cache_hits) == (2 + 2 * 5, 3)
    assert len(server.requests) == sent


def test_completion_tokens_and_seconds_come_from_earlier_runs_of_the_scorer(
    server: ScriptedServer, store_db: str | Path
) -> None:
    server.default = _tokenizing('{"verdict": "yes"}')
    judge = _judge(server)
    scorer = _scorer(judge)
    run_evals_sync(ITEMS[:4], [scorer], store=store_db)
    with Store(store_db) as store:
        runs_before = [r.id for r in store.list_runs(None)]
        found = run_sync(estimate_run(ITEMS, [scorer], store=store, concurrency=2))
        assert [r.id for r in store.list_runs(None)] == runs_before  # nothing written
    (only,) = found.scorers
    assert (only.completion_from, only.completion_tokens) == ("history", 5 * COMPLETION)
    assert only.history.results == 4 and only.history.calls == 4
    assert only.seconds is not None and only.seconds > 0


def test_money_comes_from_the_price_given_for_the_judge(server: ScriptedServer) -> None:
    judge = _judge(server, max_tokens=64)
    scorer = _scorer(judge)
    (only,) = run_sync(estimate_run(ITEMS, [scorer], prices={judge.model_id: [2.0, 10.0]})).scorers
    assert only.price is not None and only.price.source == "prices"
    assert only.cost == pytest.approx(
        (only.prompt_tokens * 2.0 + only.completion_tokens * 10.0) / 1e6
    )
    assert only.cost_upper == pytest.approx(
        (only.prompt_tokens_upper * 2.0 + only.completion_tokens_upper * 10.0) / 1e6
    )


def test_budgets_the_run_would_or_could_cross_are_named(server: ScriptedServer) -> None:
    scorer = _scorer(_judge(server, max_tokens=64))
    crossed = run_sync(estimate_run(ITEMS, [scorer], max_judge_calls=3))
    assert crossed.over_budget == ("max_judge_calls 3: the run would spend about 5 calls",)
    close = run_sync(estimate_run(ITEMS, [scorer], max_judge_calls=6))
    assert close.over_budget == ()
    assert close.may_cross == ("max_judge_calls 6: the run may spend more (up to 15 calls)",)
    roomy = run_sync(estimate_run(ITEMS, [scorer], max_judge_calls=15, max_judge_tokens=10**6))
    assert (roomy.over_budget, roomy.may_cross) == ((), ())
    unbounded = run_sync(estimate_run(ITEMS, [_scorer(_judge(server))], max_judge_tokens=10**6))
    assert unbounded.may_cross == (
        "max_judge_tokens 1,000,000: the run may spend more (its tokens have no upper bound)",
    )


def test_label_readers_read_the_typical_replies(server: ScriptedServer) -> None:
    judge = _judge(server)
    scorer = build_scorer("context-relevance", model=judge, scoring="expected")
    items = [{"id": "a", "input": "What is Paris?", "output": "A city.",
              "context": ["Paris is the capital of France.", "Bread is baked."]}]  # fmt: skip
    (only,) = run_sync(estimate_run(items, [scorer])).scorers
    assert (only.calls, only.errors, only.exact) == (1, 0, True)


def test_cli_estimate_prints_the_table_and_exits_4_over_a_budget(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
    data = tmp_path / "d.jsonl"
    data.write_text(
        "".join(json.dumps({"input": "What is Paris?", "output": "A city in France.",
                            "context": ["Paris is in France."]}) + "\n" for _ in range(3)),
        encoding="utf-8",
    )  # fmt: skip
    args = ["run", str(data), "-s", "context-relevance", "--model", "openai-compatible/m",
            "--estimate"]  # fmt: skip
    over = CliRunner().invoke(app, [*args, "--max-judge-calls", "2"])
    assert over.exit_code == BUDGET, over.output
    assert "over budget: max_judge_calls 2: the run would spend about 3 calls" in over.output
    fine = CliRunner().invoke(app, args)
    assert fine.exit_code == OK, fine.output
    resumed = CliRunner().invoke(app, [*args, "--resume", "latest"])
    assert resumed.exit_code == USAGE and "drop --resume" in resumed.output
    assert "estimate: 3 items, nothing sent to a judge" in fine.output
    assert server.requests == []
    assert not (tmp_path / ".scorekit" / "scorekit.db").exists()  # no store written


def test_a_large_run_is_estimated_from_a_seeded_sample_scaled_to_every_item(
    server: ScriptedServer,
) -> None:
    scorer = _scorer(_judge(server, max_tokens=64))
    items = [{"id": f"n{n}", "output": "same length"} for n in range(30)]
    found = run_sync(estimate_run(items, [scorer], sample_items=10))
    (only,) = found.scorers
    assert (found.items, found.sampled, only.items, only.calls, only.exact) == (
        30, 10, 30, 30, False,
    )  # fmt: skip
    whole = run_sync(estimate_run(items, [scorer], sample_items=None)).scorers[0]
    assert (whole.calls, whole.prompt_tokens, whole.exact) == (30, only.prompt_tokens, True)
    assert found.notes == (
        "dry run of a seeded sample of 10 of the 30 items; the figures are scaled to all of them",
    )


def test_a_failed_result_does_not_pull_the_measured_means_down(
    server: ScriptedServer, tmp_path: Path
) -> None:
    scorer = _scorer(_judge(server))
    server.enqueue(Reply(status=500, body={"error": {"message": "down"}}))
    server.default = _tokenizing('{"verdict": "yes"}')
    done = run_evals_sync(ITEMS[:3], [scorer], store=tmp_path / "s.db", concurrency=1)
    counts = done.summaries[scorer.id].counts
    assert (counts["ok"], counts["error"]) == (2, 1)
    with Store(tmp_path / "s.db") as store:
        history = run_sync(estimate_run(ITEMS, [scorer], store=store)).scorers[0].history
    assert (history.results, history.calls, history.output_tokens) == (2, 2, 2 * COMPLETION)


def test_typical_replies_fit_a_small_reply_budget(server: ScriptedServer) -> None:
    judge = _judge(server, max_tokens=100)
    scorer = build_scorer("toxicity", model=judge)
    found = run_sync(estimate_run([{"id": "a", "output": "the answer is 42"}], [scorer]))
    (only,) = found.scorers
    assert (only.calls, only.errors, found.notes) == (2, 0, ())


def test_items_that_would_call_no_judge_and_failed_dry_runs_are_said(
    server: ScriptedServer,
) -> None:
    scorer = build_scorer("faithfulness", model=_judge(server))
    items = [{"id": "a", "input": "q", "output": "Paris is in France."}]  # no context
    found = run_sync(estimate_run(items, [scorer]))
    assert found.scorers[0].calls == 0
    assert found.notes[0].startswith("faithfulness-scorer: 1 item(s) would call no judge")


def test_the_estimate_checks_its_options_as_a_run_does(server: ScriptedServer) -> None:
    scorer = _scorer(_judge(server))
    for options, field in (
        ({"max_judge_calls": 0}, "max_judge_calls"),
        ({"max_cost": float("nan")}, "max_cost"),
        ({"concurrency": 0}, "concurrency"),
        ({"max_cost": 1.0}, "prices"),  # the judge has no price
    ):
        with pytest.raises(ConfigError) as caught:
            run_sync(estimate_run(ITEMS, [scorer], **options))
        assert caught.value.field == field, options


def test_money_over_budget_is_written_in_dollars(server: ScriptedServer) -> None:
    judge = _judge(server, max_tokens=64)
    found = run_sync(estimate_run(ITEMS, [_scorer(judge)], max_cost=0.0001,
                                  prices={judge.model_id: [100.0, 100.0]}))  # fmt: skip
    assert found.over_budget[0].startswith("max_cost $0.0001: the run would spend about $0.")
