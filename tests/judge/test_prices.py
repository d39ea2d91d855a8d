"""Prices and the money budget's ledger, unit by unit (the doctests of the modules included)."""

from __future__ import annotations

import doctest
import types

import pytest

import scorekit.judge.prices as prices_module
import scorekit.judge.spending as spending_module
import scorekit.report.costs as costs_module
from scorekit import create_scorer
from scorekit.errors import ConfigError, JudgeBudgetError
from scorekit.judge import Judge
from scorekit.judge.prices import PRICE_TABLE, Price, PriceTable, parse_price, resumed_prices
from scorekit.judge.scripted import ScriptedJudge
from scorekit.judge.spending import JudgeBudget, SpendingLedger, budget_text, check_prices
from scorekit.notebook import dollars_text
from scorekit.prompt_step import PromptStep
from scorekit.testing.session import SessionScores
from scorekit.usage import JudgeUsage


@pytest.mark.parametrize(
    "module",
    [prices_module, spending_module, costs_module],
    ids=lambda m: m.__name__,
)
def test_the_doctests_hold(module: types.ModuleType) -> None:
    outcome = doctest.testmod(module)
    assert outcome.attempted > 0 and outcome.failed == 0


@pytest.mark.parametrize(
    ("dollars", "text"),
    [
        (None, "—"),
        (0, "$0"),
        (0.0042, "$0.0042"),
        (0.01234, "$0.0123"),
        (0.5, "$0.5000"),
        (1.234, "$1.23"),
        (1234.5, "$1,234.50"),
        (0.00001, "<$0.0001"),  # a small cost never reads as nothing
    ],
)
def test_the_views_one_money_formatter(dollars: float | None, text: str) -> None:
    assert dollars_text(dollars) == text


def test_a_price_override_wins_over_the_table_and_a_snapshot_takes_its_models_price() -> None:
    table = PriceTable({"openai/gpt-4o-mini": [1, 2]}, source="--price")
    assert table.price("openai/gpt-4o-mini-2024-07-18") == Price(1, 2, "--price")
    assert PriceTable().price("openai/gpt-4o-mini") == PRICE_TABLE["openai/gpt-4o-mini"]
    assert PriceTable().price("local/smollm2") == Price(0.0, 0.0, "local model")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["openai/x", 1, 2], "prices map each judge model (provider/model) to its price"),
        ({"gpt-4o": [1, 2]}, "prices are keyed by the judge's model string"),
        ({"openai/x": [1]}, "a price is [input, output] dollars per million tokens"),
        ({"openai/x": {"input": 1}}, "a price is {input_per_mtok: N, output_per_mtok: N}"),
        ({"openai/x": [1, float("nan")]}, "output_per_mtok must be a finite number >= 0"),
    ],
)
def test_bad_prices_are_refused_naming_the_field(overrides: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        PriceTable(overrides)  # type: ignore[arg-type]
    assert caught.value.field == "prices" and message in str(caught.value)


def test_parse_price_and_its_errors() -> None:
    assert parse_price(" openai/o3 =2,8") == ("openai/o3", Price(2.0, 8.0, "--price"))
    for bad in ("openai/o3", "openai/o3=2", "o3=2,8", "openai/o3=a,b", "openai/o3=-1,2",
                "openai/o3=1,2=3,4"):  # fmt: skip
        with pytest.raises(ConfigError) as caught:
            parse_price(bad)
        assert caught.value.field == "--price"


def test_a_resume_keeps_the_stored_prices_of_the_models_it_still_has() -> None:
    stored = {"x/a": {"input_per_mtok": 1, "output_per_mtok": 1}, "x/gone": [9, 9]}
    kept = resumed_prices(stored, PriceTable({"x/b": [2, 2]}), ["x/a", "x/b"])
    assert kept == {
        "x/a": {"input_per_mtok": 1, "output_per_mtok": 1},
        "x/b": {"input_per_mtok": 2, "output_per_mtok": 2, "source": "user"},
    }


# -- the ledger --------------------------------------------------------------------------------

PRICES = PriceTable({"x/m": [1_000.0, 10_000.0]})  # $0.001 a prompt token, $0.01 a reply token


def test_a_money_budget_admits_while_spent_plus_held_plus_the_bound_fit() -> None:
    ledger = SpendingLedger(JudgeBudget(max_cost=0.05), PRICES)
    first = ledger.admit(10, 2, "x/m")  # bound: $0.01 + $0.02
    assert (first.cost, first.price) == (pytest.approx(0.03), PRICES.price("x/m"))
    with pytest.raises(JudgeBudgetError) as caught:
        ledger.admit(10, 2, "x/m")  # $0.03 held + $0.03 > $0.05
    assert (caught.value.limit, caught.value.budget) == ("max_cost", 0.05)
    assert "$0 spent, $0.0300 held by calls in flight, this call needs up to $0.0300" in str(
        caught.value
    )
    # once refused, every later call is too
    ledger.settle(first, JudgeUsage(calls=1, input_tokens=10, output_tokens=1))
    assert ledger.cost == pytest.approx(0.02) and ledger.exhausted
    with pytest.raises(JudgeBudgetError):
        ledger.admit(1, 1, "x/m")
    assert ledger.to_dict() == {
        "limit": "max_cost",
        "budget": {"max_cost": 0.05},
        "calls": 1,
        "tokens": 11,
        "cost": pytest.approx(0.02),
    }


def test_spending_the_whole_money_budget_exhausts_it() -> None:
    ledger = SpendingLedger(JudgeBudget(max_cost=0.03), PRICES)
    ticket = ledger.admit(10, 2, "x/m")
    ledger.settle(ticket, JudgeUsage(calls=1, input_tokens=10, output_tokens=2))
    assert ledger.exhausted and ledger.stopped_by == "max_cost"


def test_a_cache_hit_costs_nothing_and_a_model_without_a_price_is_refused() -> None:
    ledger = SpendingLedger(JudgeBudget(max_cost=1.0), PRICES)
    ticket = ledger.admit(10, 2, "x/m")
    ledger.settle(ticket, JudgeUsage(calls=1, cache_hits=1))
    assert (ledger.calls, ledger.cost, ledger._cost_held) == (0, 0.0, 0.0)
    with pytest.raises(JudgeBudgetError, match="needs the price of the judge model 'y/m'"):
        ledger.admit(10, 2, "y/m")
    assert ledger.stopped_by == "max_cost"


def test_without_a_money_budget_the_ledger_counts_no_money() -> None:
    ledger = SpendingLedger(JudgeBudget(max_judge_calls=2))
    ticket = ledger.admit(10, 2, "y/unpriced")  # no price needed
    ledger.settle(ticket, JudgeUsage(calls=1, input_tokens=10, output_tokens=2))
    assert ledger.cost == 0.0 and "cost" not in ledger.to_dict()


def test_a_money_budget_is_shared_in_equal_parts_between_workers() -> None:
    parts = [SpendingLedger.share(JudgeBudget(max_cost=0.3), i, 3, PRICES) for i in range(3)]
    assert [p.budget.max_cost for p in parts] == [pytest.approx(0.1)] * 3
    assert all(p.prices is PRICES and p.stopped_by is None for p in parts)


def test_the_shares_spending_adds_up_with_its_money() -> None:
    scores = SessionScores()
    for cost in (0.1, 0.2):
        share = {"limit": "max_cost", "budget": {"max_cost": 0.15}, "calls": 2, "tokens": 30,
                 "cost": cost}  # fmt: skip
        scores.spent(share, 1)
    assert scores.budget_stop == {
        "limit": "max_cost",
        "budget": {"max_cost": 0.3},
        "calls": 4,
        "tokens": 60,
        "unscored": 2,
        "cost": pytest.approx(0.3),
    }
    assert budget_text(scores.budget_stop).endswith(
        "max_cost 0.3 (4 calls, 60 tokens, $0.3000 spent); 2 items not scored"
    )


@pytest.mark.parametrize("value", [0, -1.0, float("inf"), float("nan"), True, "0.5"])
def test_a_bad_max_cost_is_refused(value: object) -> None:
    with pytest.raises(ConfigError) as caught:
        JudgeBudget(max_cost=value)  # type: ignore[arg-type]
    assert caught.value.field == "max_cost"


def test_check_prices_names_every_model_without_one() -> None:
    with pytest.raises(ConfigError) as caught:
        check_prices(JudgeBudget(max_cost=1), PriceTable(), ["y/b", "openai/o3", "y/a", "y/b"])
    assert "'y/a', 'y/b' have none: give one with --price MODEL=IN,OUT" in str(caught.value)
    check_prices(JudgeBudget(max_judge_calls=1), PriceTable(), ["y/b"])  # no money budget
    check_prices(None, PriceTable(), ["y/b"])


def test_a_scorer_names_each_judge_it_asks() -> None:
    main, other = Judge(ScriptedJudge(name="main")), Judge(ScriptedJudge(name="other"))
    plain = create_scorer("len", description="d").generate_score(lambda ctx: 1.0)
    assert plain.judge_models == []
    step = PromptStep(description="s", create_prompt=lambda ctx: "x", judge=other,
                      output_schema={"type": "object"})  # fmt: skip
    mixed = create_scorer("mixed", description="d", judge=main).analyze(step)
    assert mixed.generate_score(lambda ctx: 1.0).judge_models == ["test/main", "test/other"]
