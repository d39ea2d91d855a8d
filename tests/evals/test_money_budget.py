"""The money budget (``max_cost``) and the prices a run keeps, on the scripted judge server and
the real store: the run stops at the call whose bound would cross the budget, a resume ends
with the items of an unstopped run each once, a judge without a price is refused before
anything starts, ``--price`` wins over the table, and the CLI exits 4."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from scorekit import create_scorer
from scorekit.cli import app
from scorekit.cli.exit_codes import BUDGET, USAGE
from scorekit.errors import ConfigError
from scorekit.evals import run_evals_sync
from scorekit.judge import Judge
from scorekit.judge.prices import PRICES_AS_OF, PriceTable
from scorekit.judge.scripted import ScriptedJudge
from scorekit.judge.spending import UNBUDGETED_REPLY_TOKENS, budget_text, prompt_bound
from scorekit.pipeline import Scorer
from scorekit.prompt_step import PromptStep
from scorekit.store import Store
from tests.servers.scripted_openai import Reply, ScriptedServer

ITEMS = [{"id": f"i{n}", "output": f"answer {n}"} for n in range(10)]
PRICE = [100.0, 1000.0]  # dollars per million prompt, completion tokens (a made-up judge)
CALL_COST = (11 * 100.0 + 7 * 1000.0) / 1_000_000  # the scripted server's 11 + 7 tokens: $0.0081
REPLY_BUDGET = 50  # the judge's max_tokens: each call reserves 50 completion tokens


class Verdict(BaseModel):
    verdict: str


def _scorer(
    server: ScriptedServer, sid: str = "judged", model: str | None = None
) -> tuple[Scorer, str]:
    """A scorer of one judge call per item, on a judge model of its own; and that model."""
    model = model or f"openai-compatible/m-{uuid.uuid4().hex[:8]}"
    judge = Judge(model, base_url=server.base_url, cache=False, max_retries=0,
                  max_tokens=REPLY_BUDGET)  # fmt: skip
    step = PromptStep(description="v", create_prompt=lambda ctx: f"Fine? {ctx.run.output}",
                      output_schema=Verdict)  # fmt: skip
    scorer = create_scorer(sid, description="asks", judge=judge).analyze(step)
    return scorer.generate_score(lambda ctx: 1.0), model


def _bound(body: dict[str, Any]) -> float:
    """The money a request reserves: its prompt bound and reply budget at :data:`PRICE`."""
    prompt = prompt_bound(message["content"] for message in body["messages"])
    reply = body.get("max_tokens", UNBUDGETED_REPLY_TOKENS)
    return (prompt * PRICE[0] + reply * PRICE[1]) / 1_000_000


def test_a_money_budget_stops_at_the_call_that_could_cross_it_and_a_resume_finishes_it(
    server: ScriptedServer, store_db: str | Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    scorer, model = _scorer(server)
    prices = {model: PRICE}
    run_evals_sync(ITEMS[:1], [scorer], prices=prices)  # one call, to read what a call asks
    bound = _bound(server.requests[0].body)
    assert bound > CALL_COST  # a call reserves more than it spends
    server.reset()
    server.default = Reply('{"verdict": "yes"}')
    # 4 calls spent ($0.0324), then a fifth fits exactly; a sixth does not
    budget = 4 * CALL_COST + bound
    stopped = run_evals_sync(ITEMS, [scorer], store=store_db, max_cost=budget, prices=prices,
                             concurrency=1)  # fmt: skip
    assert len(server.requests) == 5  # no call past the budget was sent
    assert (stopped.status, stopped.verdict, stopped.total_items) == ("interrupted", "failed", 5)
    assert stopped.budget_stop is not None
    assert stopped.budget_stop["cost"] == pytest.approx(5 * CALL_COST)
    assert {k: v for k, v in stopped.budget_stop.items() if k != "cost"} == {
        "limit": "max_cost",
        "budget": {"max_cost": budget},
        "calls": 5,
        "tokens": 5 * 18,
        "unscored": 5,
    }
    assert budget_text(stopped.budget_stop) == (
        f"stopped by its judge budget: max_cost {budget} (5 calls, 90 tokens, $0.0405 spent); "
        "5 items not scored"
    )
    with Store(store_db) as store:
        run = store.get_run(stopped.run_id)
        assert (run.status, run.verdict) == ("interrupted", "failed")
        assert run.config["budget_stop"] == stopped.budget_stop
        assert run.config["prices"] == {
            model: {"input_per_mtok": 100.0, "output_per_mtok": 1000.0, "source": "run_evals"}
        }
        assert len(list(store.results(run.id))) == 5
    done = run_evals_sync(ITEMS, [scorer], store=store_db, resume=stopped.run_id, max_cost=1.0,
                          prices=prices)  # fmt: skip
    assert (done.status, done.verdict, done.total_items, done.budget_stop) == (
        "finished", "passed", 10, None,
    )  # fmt: skip
    assert len(server.requests) == 10  # the 5 left, once each
    with Store(store_db) as store:
        rows = list(store.results(stopped.run_id))
        run = store.get_run(stopped.run_id)
        usage = store.scorer_usage(run)
    assert sorted(r.item_id for r in rows) == sorted(item["id"] for item in ITEMS)
    assert run.config["budget_stop"] is None and run.verdict == "passed"
    assert (usage["judged"].calls, usage["judged"].input_tokens) == (10, 110)


def test_calls_in_flight_hold_their_bound_so_concurrency_never_crosses_the_budget(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}', delay=0.05)
    scorer, model = _scorer(server)
    run_evals_sync(ITEMS[:1], [scorer], prices={model: PRICE})
    bound = _bound(server.requests[0].body)
    server.reset()
    server.default = Reply('{"verdict": "yes"}', delay=0.05)
    budget = 3 * bound  # 3 bounds fit at once; what the 3 spend frees room for more
    stopped = run_evals_sync(ITEMS, [scorer], store=tmp_path / "c.db", max_cost=budget,
                             prices={model: PRICE}, concurrency=4)  # fmt: skip
    assert stopped.budget_stop is not None
    spent = stopped.budget_stop["cost"]
    assert spent == pytest.approx(len(server.requests) * CALL_COST)
    assert spent <= budget  # every call's bound held: the money reported never crossed it


def test_a_money_budget_over_a_judge_without_a_price_is_refused_before_anything_starts(
    server: ScriptedServer, tmp_path: Path
) -> None:
    scorer, model = _scorer(server)
    db = tmp_path / "refused.db"
    with pytest.raises(ConfigError) as caught:
        run_evals_sync(ITEMS, [scorer], store=db, max_cost=1.0)
    assert caught.value.field == "prices"
    assert str(caught.value) == (
        f"max_cost needs the price of every judge model, and {model!r} has none: give one "
        "with --price MODEL=IN,OUT or `prices:` in the config (run_evals prices=; under "
        "pytest, `prices` in [tool.scorekit]), in US dollars per million input and output "
        "tokens"
    )
    assert server.requests == [] and not db.exists()  # nothing sent, no run stored


def test_a_local_or_test_judge_costs_nothing_so_a_money_budget_never_stops_it(
    tmp_path: Path,
) -> None:
    judge = Judge(ScriptedJudge(lambda request: {"verdict": "yes"}))
    step = PromptStep(description="v", create_prompt=lambda ctx: "Fine?", output_schema=Verdict)
    scorer = create_scorer("judged", description="asks", judge=judge).analyze(step)
    scorer = scorer.generate_score(lambda ctx: 1.0)
    done = run_evals_sync(ITEMS, [scorer], store=tmp_path / "free.db", max_cost=1e-9)
    assert (done.status, done.verdict, done.budget_stop) == ("finished", "passed", None)
    with Store(tmp_path / "free.db") as store:
        run = store.get_run(done.run_id)
    assert run.config["prices"] == {
        "test/scripted": {"input_per_mtok": 0.0, "output_per_mtok": 0.0, "source": "local model"}
    }


def test_a_run_keeps_its_prices_and_a_resume_keeps_them_unless_given_others(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    priced, model = _scorer(server, "priced")
    unpriced, other = _scorer(server, "unpriced")
    table = create_scorer("length", description="len").generate_score(lambda ctx: 0.5)
    db = tmp_path / "p.db"
    first = run_evals_sync(ITEMS[:2], [priced, unpriced, table], store=db,
                           prices={model: {"input_per_mtok": 1, "output_per_mtok": 2}})  # fmt: skip
    with Store(db) as store:
        kept = store.get_run(first.run_id).config["prices"]
    # the unpriced judge is not stored as free: it is absent; the code scorer has no judge
    assert kept == {model: {"input_per_mtok": 1, "output_per_mtok": 2, "source": "run_evals"}}
    scorers = [priced, unpriced, table]
    run_evals_sync(ITEMS[:2], scorers, store=db, resume=first.run_id)  # no prices given
    with Store(db) as store:
        assert store.get_run(first.run_id).config["prices"] == kept
    given = PriceTable({model: [3, 4], other: [5, 6]}, source="--price")
    run_evals_sync(ITEMS[:2], scorers, store=db, resume=first.run_id, prices=given)
    with Store(db) as store:
        assert store.get_run(first.run_id).config["prices"] == {
            model: {"input_per_mtok": 3, "output_per_mtok": 4, "source": "--price"},
            other: {"input_per_mtok": 5, "output_per_mtok": 6, "source": "--price"},
        }


@pytest.mark.parametrize("value", [0, -0.5, float("nan"), float("inf"), True, "1"])
def test_a_bad_max_cost_is_refused_naming_it(value: object) -> None:
    scorer = create_scorer("length", description="len").generate_score(lambda ctx: 0.5)
    with pytest.raises(ConfigError) as caught:
        run_evals_sync(ITEMS, [scorer], max_cost=value)  # type: ignore[arg-type]
    assert caught.value.field == "max_cost"


# -- the command line ---------------------------------------------------------------------------


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})


@pytest.fixture
def openai_on_server(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """``openai/...`` judges answered by the scripted server; a dataset of 4 items."""
    server.default = Reply('{"verdict": "yes"}')
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)  # the judge cache lives under the working directory
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({**i, "input": "q"}) + "\n" for i in ITEMS[:4]))
    return data


def test_price_overrides_the_table_and_a_money_stop_exits_4(
    server: ScriptedServer, openai_on_server: Path, tmp_path: Path
) -> None:
    flags = ["run", str(openai_on_server), "--scorer", "prompt-alignment", "--model",
             "openai/gpt-4o-mini", "--no-cache", "--concurrency", "1", "--judge-max-tokens",
             "50", "--max-cost", "0.05"]  # fmt: skip
    # at the table's price ($0.15, $0.60) a call reserves about $0.0002: the run goes through
    db = tmp_path / "table.db"
    done = _invoke(*flags, "--db", str(db))
    assert done.exit_code not in (BUDGET, USAGE), done.output
    assert len(server.requests) >= 4
    with Store(db) as store:
        (run,) = store.list_runs()
    assert run.config["prices"] == {
        "openai/gpt-4o-mini": {
            "input_per_mtok": 0.15, "output_per_mtok": 0.6, "source": f"list price, {PRICES_AS_OF}"
        }
    }  # fmt: skip
    # at $100 and $1,000 its first call could cost more than $0.05: refused, nothing sent
    server.reset()
    db = tmp_path / "priced.db"
    stopped = _invoke(*flags, "--db", str(db), "--price", "openai/gpt-4o-mini=100,1000")
    assert stopped.exit_code == BUDGET, stopped.output
    assert server.requests == []
    text = " ".join(stopped.output.split())
    assert (
        "verdict: failed (stopped by its judge budget: max_cost 0.05 (0 calls, 0 tokens, $0 "
        "spent); 4 items not scored)" in text
    )
    assert "continue it: --resume" in text
    with Store(db) as store:
        (run,) = store.list_runs()
    assert run.config["prices"] == {
        "openai/gpt-4o-mini": {"input_per_mtok": 100.0, "output_per_mtok": 1000.0,
                               "source": "--price"}
    }  # fmt: skip
    shown = _invoke("show", run.id, "--db", str(db))
    assert "verdict: failed (stopped by its judge budget: max_cost 0.05 (0 calls, 0 tokens, $0 " \
        "spent); 4 items not scored)" in " ".join(shown.output.split())  # fmt: skip


def test_a_config_gives_max_cost_and_prices_and_a_flag_wins(
    server: ScriptedServer, openai_on_server: Path, tmp_path: Path
) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(
        "data: {path: d.jsonl}\nmodel: openai/gpt-4o-mini\nscorers: [prompt-alignment]\n"
        "judge: {cache: false, max_tokens: 50}\nconcurrency: 1\nmax_cost: 0.05\n"
        "prices:\n  openai/gpt-4o-mini: {input_per_mtok: 100, output_per_mtok: 1000}\n"
    )
    stopped = _invoke("run", str(config), "--db", str(tmp_path / "c.db"))
    assert stopped.exit_code == BUDGET, stopped.output
    assert server.requests == []
    with Store(tmp_path / "c.db") as store:
        (run,) = store.list_runs()
    assert run.config["prices"]["openai/gpt-4o-mini"] == {
        "input_per_mtok": 100, "output_per_mtok": 1000, "source": "config",
    }  # fmt: skip
    # --price wins over the config's price; --max-cost over its max_cost
    done = _invoke("run", str(config), "--db", str(tmp_path / "d.db"), "--max-cost", "5",
                   "--price", "openai/gpt-4o-mini=0.1,0.2")  # fmt: skip
    assert done.exit_code not in (BUDGET, USAGE), done.output
    with Store(tmp_path / "d.db") as store:
        (run,) = store.list_runs()
    assert run.config["prices"]["openai/gpt-4o-mini"]["source"] == "--price"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-cost", "1", "--model", "openai-compatible/nobody"],
         "max_cost needs the price of every judge model, and 'openai-compatible/nobody' has "
         "none: give one with --price MODEL=IN,OUT"),
        (["--max-cost", "0", "--model", "openai/gpt-4o-mini"],
         "--max-cost / max_cost: max_cost must be a finite number > 0 (US dollars), not 0.0"),
        (["--price", "gpt-4o-mini=1,2", "--model", "openai/gpt-4o-mini"],
         "--price takes MODEL=IN,OUT"),
        (["--price", "openai/gpt-4o-mini=1,-2", "--model", "openai/gpt-4o-mini"],
         "a price's output_per_mtok must be a finite number >= 0"),
    ],
)  # fmt: skip
def test_a_bad_money_option_is_a_usage_error_before_anything_starts(
    server: ScriptedServer, openai_on_server: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    db = tmp_path / "none.db"
    done = _invoke("run", str(openai_on_server), "--scorer", "prompt-alignment", "--db", str(db),
                   *args)  # fmt: skip
    assert done.exit_code == USAGE, done.output
    assert message in " ".join(done.output.split())
    assert server.requests == [] and not db.exists()


def test_a_bad_price_in_a_config_names_the_file_and_the_field(
    openai_on_server: Path, tmp_path: Path
) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(
        "data: {path: d.jsonl}\nmodel: openai/gpt-4o-mini\nscorers: [prompt-alignment]\n"
        "prices: {openai/gpt-4o-mini: [1]}\n"
    )
    done = _invoke("run", str(config), "--db", str(tmp_path / "x.db"))
    assert done.exit_code == USAGE, done.output
    text = " ".join(done.output.split())
    assert f"{config}: a price is [input, output] dollars per million tokens, not [1]" in text


def test_the_estimate_reads_max_cost_and_the_prices_given(
    server: ScriptedServer, openai_on_server: Path
) -> None:
    flags = ["run", str(openai_on_server), "--scorer", "prompt-alignment", "--model",
             "openai/gpt-4o-mini", "--estimate", "--max-cost", "0.01", "--no-store"]  # fmt: skip
    at_table = _invoke(*flags)  # $0.15 and $0.60 a million tokens: about $0.0018
    assert at_table.exit_code == 0, at_table.output
    priced = _invoke(*flags, "--price", "openai/gpt-4o-mini=100,1000")
    assert priced.exit_code == BUDGET, priced.output
    assert "over budget: max_cost $0.0100: the run would spend about $" in priced.output
    assert server.requests == []  # an estimate sends nothing


def test_a_resume_with_a_money_budget_uses_the_prices_stored_with_the_run(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    scorer, model = _scorer(server)
    db = tmp_path / "r.db"
    stopped = run_evals_sync(ITEMS, [scorer], store=db, max_cost=2 * CALL_COST,
                             prices={model: PRICE}, concurrency=1)  # fmt: skip
    assert stopped.budget_stop is not None
    # no price given now: the stored one counts, so the money budget can be checked
    done = run_evals_sync(ITEMS, [scorer], store=db, resume=stopped.run_id, max_cost=1.0)
    assert (done.status, done.total_items) == ("finished", 10)
    with pytest.raises(ConfigError):  # a run that never stored the price is still refused
        run_evals_sync(ITEMS, [_scorer(server)[0]], store=db, max_cost=1.0)


def test_a_resume_prices_a_dated_model_at_an_override_of_the_model_it_stands_for(
    server: ScriptedServer, tmp_path: Path
) -> None:
    # the run's budget and the prices it stores follow one rule: an override of the model a
    # dated snapshot stands for wins over the snapshot's stored price
    server.default = Reply('{"verdict": "yes"}')
    model = f"openai-compatible/m-{uuid.uuid4().hex[:8]}"
    dated = f"{model}-2024-08-06"
    scorer, _ = _scorer(server, model=dated)
    db = tmp_path / "d.db"
    stopped = run_evals_sync(ITEMS, [scorer], store=db, max_cost=2 * CALL_COST,
                             prices={dated: PRICE}, concurrency=1)  # fmt: skip
    assert stopped.budget_stop is not None
    done = run_evals_sync(ITEMS, [scorer], store=db, resume=stopped.run_id,
                          max_cost=2 * CALL_COST, prices={model: [0.0, 0.0]})  # fmt: skip
    assert (done.status, done.total_items) == ("finished", 10)
    kept = Store(db).get_run(done.run_id).config["prices"][dated]
    assert (kept["input_per_mtok"], kept["output_per_mtok"]) == (0.0, 0.0)
