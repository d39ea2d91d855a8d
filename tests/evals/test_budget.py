"""Hard judge budgets (``max_judge_calls``, ``max_judge_tokens``) on the scripted judge server
and the real store: the run stops cleanly, loses nothing, and a resume finishes it."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from scorekit import create_scorer
from scorekit.cli import app
from scorekit.cli.exit_codes import BUDGET
from scorekit.errors import ConfigError
from scorekit.evals import run_evals_sync
from scorekit.judge import Judge
from scorekit.judge.spending import UNBUDGETED_REPLY_TOKENS, JudgeBudget, prompt_bound
from scorekit.pipeline import Scorer
from scorekit.prompt_step import PromptStep
from scorekit.store import Store
from tests.servers.scripted_openai import Reply, ScriptedServer

ITEMS = [{"id": f"i{n}", "output": f"answer {n}"} for n in range(10)]
TOKENS_PER_CALL = 11 + 7  # the scripted server's prompt and completion tokens


class Verdict(BaseModel):
    verdict: str


def _scorer(server: ScriptedServer, *, calls: int = 1) -> Scorer:
    """``calls`` judge calls per item (an analyze step, then a reason step when 2)."""
    judge = Judge(f"openai-compatible/b-{uuid.uuid4().hex[:8]}", base_url=server.base_url,
                  cache=False, max_retries=0)  # fmt: skip
    step = PromptStep(description="v", create_prompt=lambda ctx: f"Fine? {ctx.run.output}",
                      output_schema=Verdict)  # fmt: skip
    scorer = create_scorer("judged", description="asks", judge=judge).analyze(step)
    scorer = scorer.generate_score(lambda ctx: 1.0)
    if calls == 2:
        scorer = scorer.generate_reason(
            PromptStep(description="why", create_prompt=lambda ctx: "Why?")
        )
    return scorer


def test_a_call_budget_stops_the_run_and_a_resume_finishes_it_each_item_once(
    server: ScriptedServer, store_db: str | Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    scorer = _scorer(server)
    stopped = run_evals_sync(ITEMS, [scorer], store=store_db, max_judge_calls=7, concurrency=2)
    assert (stopped.status, stopped.verdict, stopped.total_items) == ("interrupted", "failed", 7)
    assert stopped.budget_stop == {
        "limit": "max_judge_calls",
        "budget": {"max_judge_calls": 7},
        "calls": 7,
        "tokens": 7 * TOKENS_PER_CALL,
        "unscored": 3,
    }
    assert len(server.requests) == 7  # no call past the budget was sent
    with Store(store_db) as store:
        run = store.get_run(stopped.run_id)
        assert (run.status, run.verdict) == ("interrupted", "failed")
        assert run.config["budget_stop"] == stopped.budget_stop
        assert len(list(store.results(run.id))) == 7
    done = run_evals_sync(
        ITEMS, [scorer], store=store_db, resume=stopped.run_id, max_judge_calls=100
    )
    assert (done.status, done.verdict, done.total_items, done.budget_stop) == (
        "finished", "passed", 10, None,
    )  # fmt: skip
    assert len(server.requests) == 10  # the 3 left, once each
    with Store(store_db) as store:
        rows = list(store.results(stopped.run_id))
        run = store.get_run(stopped.run_id)
    assert sorted(r.item_id for r in rows) == sorted(item["id"] for item in ITEMS)
    assert run.config["budget_stop"] is None and run.verdict == "passed"


def test_an_item_cut_between_its_calls_is_not_stored_and_is_scored_on_resume(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    scorer = _scorer(server, calls=2)
    db = tmp_path / "b.db"
    stopped = run_evals_sync(ITEMS[:3], [scorer], store=db, max_judge_calls=5, concurrency=1)
    # item 0: 2 calls, item 1: 2 calls, item 2: its first call, then its reason is refused
    assert (stopped.total_items, stopped.budget_stop["unscored"]) == (2, 1)  # type: ignore[index]
    with Store(db) as store:
        assert sorted(r.item_id for r in store.results(stopped.run_id)) == ["i0", "i1"]
    done = run_evals_sync(ITEMS[:3], [scorer], store=db, resume=stopped.run_id)
    assert (done.status, done.total_items) == ("finished", 3)


def test_a_token_budget_admits_a_call_only_when_its_upper_bound_fits(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    scorer = _scorer(server)
    run_evals_sync(ITEMS[:1], [scorer])  # one call to read what a call asks for
    body = server.requests[0].body
    prompt = prompt_bound(message["content"] for message in body["messages"])
    bound = prompt + body.get("max_tokens", UNBUDGETED_REPLY_TOKENS)
    server.reset()
    server.default = Reply('{"verdict": "yes"}')
    # 4 calls spent (4 x 18 tokens), then a fifth fits exactly, a sixth does not
    budget = 4 * TOKENS_PER_CALL + bound
    stopped = run_evals_sync(ITEMS, [scorer], store=tmp_path / "t.db", max_judge_tokens=budget,
                             concurrency=1)  # fmt: skip
    assert len(server.requests) == 5
    assert stopped.budget_stop is not None
    assert stopped.budget_stop["limit"] == "max_judge_tokens"
    assert stopped.budget_stop["tokens"] == 5 * TOKENS_PER_CALL <= budget
    assert (stopped.total_items, stopped.budget_stop["unscored"]) == (5, 5)


def test_a_budget_that_is_never_reached_changes_nothing(server: ScriptedServer) -> None:
    server.default = Reply('{"verdict": "yes"}')
    done = run_evals_sync(ITEMS, [_scorer(server)], max_judge_calls=10)
    assert (done.status, done.verdict, done.budget_stop) == ("finished", "passed", None)


@pytest.mark.parametrize("value", [0, -1, 2.5, True, "10"])
def test_a_bad_budget_is_refused_naming_it(value: object) -> None:
    with pytest.raises(ConfigError) as caught:
        JudgeBudget(max_judge_calls=value)  # type: ignore[arg-type]
    assert caught.value.field == "max_judge_calls"


def test_the_cli_exits_4_and_says_how_to_go_on(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
    monkeypatch.chdir(tmp_path)  # the judge cache lives under the working directory
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({**i, "input": "q"}) + "\n" for i in ITEMS[:4]))
    config = tmp_path / "run.yaml"
    config.write_text(
        "data: {path: d.jsonl}\nmodel: openai-compatible/budget\n"
        "scorers: [prompt-alignment]\nmax_judge_calls: 1\njudge: {cache: false}\n"
    )
    db = tmp_path / "c.db"
    done = CliRunner().invoke(app, ["run", str(config), "--db", str(db)])
    assert done.exit_code == BUDGET, done.output
    text = " ".join(done.output.split())
    assert "verdict: failed (stopped by its judge budget: max_judge_calls 1 (1 calls" in text
    assert "continue it: --resume" in text
    assert len(server.requests) == 1
    done_report = CliRunner().invoke(app, ["report", "latest", "--db", str(db), "-o",
                                           str(tmp_path / "r.html")])  # fmt: skip
    assert done_report.exit_code == 0, done_report.output
    page = (tmp_path / "r.html").read_text()
    assert "verdict failed: stopped by its judge budget: max_judge_calls 1" in page
    shown = CliRunner().invoke(app, ["show", "latest", "--db", str(db)])
    assert "verdict: failed (stopped by its judge budget: max_judge_calls 1" in " ".join(
        shown.output.split()
    )


def test_a_second_stop_counts_only_the_items_still_to_score(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    scorer = _scorer(server)
    db = tmp_path / "b.db"
    first = run_evals_sync(ITEMS, [scorer], store=db, max_judge_calls=4, concurrency=1)
    second = run_evals_sync(
        ITEMS, [scorer], store=db, resume=first.run_id, max_judge_calls=3, concurrency=1
    )
    # the 4 stored items need no call; 3 more are scored; 3 are left
    assert second.budget_stop is not None and second.budget_stop["unscored"] == 3
    assert (second.total_items, len(server.requests)) == (7, 7)
    last = run_evals_sync(ITEMS, [scorer], store=db, resume=first.run_id, max_judge_calls=3)
    assert (last.status, last.verdict, last.total_items, len(server.requests)) == (
        "finished", "passed", 10, 10,
    )  # fmt: skip


def test_retries_are_calls_the_budget_counts(server: ScriptedServer) -> None:
    server.default = Reply(status=500)
    judge = Judge(f"openai-compatible/r-{uuid.uuid4().hex[:8]}", base_url=server.base_url,
                  cache=False, max_retries=3, retry_backoff=0.0)  # fmt: skip
    step = PromptStep(description="v", create_prompt=lambda ctx: "Fine?", output_schema=Verdict)
    scorer = create_scorer("judged", description="asks", judge=judge).analyze(step)
    scorer = scorer.generate_score(lambda ctx: 1.0)
    stopped = run_evals_sync(ITEMS, [scorer], max_judge_calls=3, concurrency=1)
    assert len(server.requests) == 3  # the first item's attempt and 2 retries; then refused
    assert stopped.budget_stop is not None and stopped.budget_stop["calls"] == 3


def test_a_refused_trial_drops_the_items_results_and_a_resume_scores_them_whole(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    scorer = _scorer(server)
    db = tmp_path / "t.db"
    stopped = run_evals_sync(ITEMS[:4], [scorer], store=db, trials=3, max_judge_calls=7,
                             concurrency=1)  # fmt: skip
    # items 0 and 1 take 3 calls each; item 2's second trial is refused: it is not stored
    assert (stopped.total_items, stopped.budget_stop["unscored"]) == (2, 2)  # type: ignore[index]
    assert stopped.judge_usage.calls == 7  # the dropped item's call is still the run's
    done = run_evals_sync(ITEMS[:4], [scorer], store=db, resume=stopped.run_id)
    assert done.status == "finished"
    with Store(db) as store:
        from scorekit.store.repeats import trial_scores

        repeats = trial_scores(store, stopped.run_id)["judged"]
    assert sorted(repeats) == ["i0", "i1", "i2", "i3"]
    assert all(scores == [1.0, 1.0, 1.0] for scores in repeats.values())
