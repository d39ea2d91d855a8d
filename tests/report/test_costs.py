"""A stored run's judge cost in every view (``runs``, ``show``, the HTML report, the viewer), from
runs scored on the scripted judge server and stored in SQLite: each scorer's stored usage at its
judge's stored price, ``—`` for an unpriced judge (the total then partial) and for a run stored
before runs kept their prices, $0 for a code scorer."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from scorekit import create_scorer
from scorekit.cli import app
from scorekit.evals import run_evals_sync
from scorekit.judge import Judge
from scorekit.pipeline import Scorer
from scorekit.prompt_step import PromptStep
from scorekit.report import render_report
from scorekit.report.costs import RunCost, cost_line, run_cost, scorer_costs, total_text
from scorekit.store import Store
from scorekit.usage import JudgeUsage
from tests.servers.scripted_openai import Reply, ScriptedServer

ITEMS = [{"id": f"i{n}", "output": f"answer {n}"} for n in range(4)]
PRICED, UNPRICED = "openai-compatible/priced", "openai-compatible/unpriced"
# 4 items x 1 call x (11 prompt tokens at $100 + 7 completion tokens at $1,000 per million)
PRICED_COST = "$0.0324"
PRICE_LIST = f"{PRICED}: $100 in, $1000 out per million tokens"


class Verdict(BaseModel):
    verdict: str


def _judged(server: ScriptedServer, sid: str, model: str) -> Scorer:
    judge = Judge(model, base_url=server.base_url, cache=False, max_retries=0)
    step = PromptStep(description="v", create_prompt=lambda ctx: f"Fine? {ctx.run.output}",
                      output_schema=Verdict)  # fmt: skip
    scorer = create_scorer(sid, description="asks", judge=judge).analyze(step)
    return scorer.generate_score(lambda ctx: 1.0)


@dataclass
class CostRuns:
    db: Path
    partial: str  # a priced judge, an unpriced one and a code scorer
    whole: str  # a priced judge, 2 trials an item
    old: str  # stored without prices (before runs kept them)


@pytest.fixture
def cost_runs(server: ScriptedServer, tmp_path: Path) -> CostRuns:
    server.default = Reply('{"verdict": "yes"}')
    db = tmp_path / "costs.db"
    length = create_scorer("length", description="len").generate_score(lambda ctx: 0.5)
    prices = {PRICED: [100, 1000]}
    partial = run_evals_sync(
        ITEMS,
        [_judged(server, "judged", PRICED), _judged(server, "other", UNPRICED), length],
        store=db, run_name="partial", prices=prices,
    )  # fmt: skip
    whole = run_evals_sync(ITEMS, [_judged(server, "judged", PRICED)], store=db, trials=2,
                           run_name="whole", prices=prices)  # fmt: skip
    old = str(uuid.uuid4())
    with Store(db) as store:
        store.start_run(old, name="old", scorers=[{"id": "judged", "judge": PRICED}], config={})
        store.finish_run(old, status="finished", total_items=0, judge_usage={}, verdict="passed")
    return CostRuns(db, partial.run_id, whole.run_id, old)


def _invoke(*args: str) -> str:
    done = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert done.exit_code == 0, done.output
    return done.output


def _line_of(output: str, marker: str) -> str:
    (line,) = [" ".join(line.split()) for line in output.splitlines() if marker in line]
    return line


def test_runs_lists_each_runs_cost(cost_runs: CostRuns) -> None:
    listed = _invoke("runs", "--db", str(cost_runs.db))
    assert "┃ items ┃ cost ┃ means" in _line_of(listed, "┃ id")
    assert f"│ 4 │ ≥ {PRICED_COST} (1 scorer unpriced) │" in _line_of(listed, cost_runs.partial[:8])
    assert "│ 4 │ $0.0648 │" in _line_of(listed, cost_runs.whole[:8])  # 2 trials: twice
    assert "│ 0 │ — │" in _line_of(listed, cost_runs.old[:8])


def test_show_gives_each_scorers_cost_and_the_total(cost_runs: CostRuns) -> None:
    shown = _invoke("show", cost_runs.partial, "--db", str(cost_runs.db))
    # ok skipped error, error rate, mean, its interval, median, min, max, then the cost
    assert _line_of(shown, "│ judged") == (
        "│ judged │ 4 │ 0 │ 0 │ 0% │ 1.0000 │ [1.0000, 1.0000] │ 1.0000 │ 1.0000 │ 1.0000 │ "
        "$0.0324 │ — │ 0% │ pass │"
    )
    assert _line_of(shown, "│ other") == (
        "│ other │ 4 │ 0 │ 0 │ 0% │ 1.0000 │ [1.0000, 1.0000] │ 1.0000 │ 1.0000 │ 1.0000 │ — │ "
        "— │ 0% │ pass │"
    )
    assert _line_of(shown, "│ length") == (
        "│ length │ 4 │ 0 │ 0 │ 0% │ 0.5000 │ [0.5000, 0.5000] │ 0.5000 │ 0.5000 │ 0.5000 │ $0 │ "
        "— │ 0% │ pass │"
    )
    assert _line_of(shown, "judge cost:") == (
        f"judge cost: ≥ {PRICED_COST} (1 scorer unpriced) at the prices stored with the run "
        f"({PRICE_LIST}); no stored price for {UNPRICED}"
    )
    whole = _invoke("show", cost_runs.whole, "--db", str(cost_runs.db))
    assert _line_of(whole, "judge cost:") == (
        f"judge cost: $0.0648 at the prices stored with the run ({PRICE_LIST})"
    )
    old = _invoke("show", cost_runs.old, "--db", str(cost_runs.db))
    assert _line_of(old, "judge cost:") == (
        "judge cost: — (the run was stored before runs kept their prices)"
    )


def test_the_report_gives_each_scorers_cost_and_the_total(cost_runs: CostRuns) -> None:
    with Store(cost_runs.db) as store:
        page = render_report(store, cost_runs.partial)
        old = render_report(store, cost_runs.old)
    cells = re.findall(r'<td class="num cost">[^<]*</td>', page)
    assert cells == [
        f'<td class="num cost">{PRICED_COST}</td>',
        '<td class="num cost">—</td>',
        '<td class="num cost">$0</td>',
    ]
    assert (
        f'<p class="muted cost">judge cost: ≥ {PRICED_COST} (1 scorer unpriced) at the prices '
        f"stored with the run ({PRICE_LIST}); no stored price for {UNPRICED}</p>" in page
    )
    assert '<td class="num cost">—</td>' in old
    assert "judge cost: — (the run was stored before runs kept their prices)" in old


def test_the_viewer_gives_the_cost_of_each_run_and_scorer(cost_runs: CostRuns) -> None:
    pytest.importorskip("starlette", reason="the viewer needs the view extra (starlette)")
    from starlette.testclient import TestClient

    from scorekit.view import create_app

    with TestClient(create_app(cost_runs.db), base_url="http://127.0.0.1") as client:
        listed = client.get("/").text
        page = client.get(f"/runs/{cost_runs.partial}").text
    costs = re.findall(r'<td class="num cost">[^<]*</td>', listed)
    # newest first: the old run, the whole one, the partial one
    assert costs == [
        '<td class="num cost">—</td>',
        '<td class="num cost">$0.0648</td>',
        f'<td class="num cost">≥ {PRICED_COST} (1 scorer unpriced)</td>',
    ]
    cells = re.findall(r'<td class="num cost">[^<]*</td>', page)
    assert cells == [
        f'<td class="num cost">{PRICED_COST}</td>',
        '<td class="num cost">—</td>',
        '<td class="num cost">$0</td>',
    ]
    assert (
        f'<p class="muted cost">judge cost: ≥ {PRICED_COST} (1 scorer unpriced) at the prices '
        f"stored with the run ({PRICE_LIST}); no stored price for {UNPRICED}</p>" in page
    )


def test_each_scorers_usage_is_kept_when_the_run_ends_and_equals_its_rows(
    cost_runs: CostRuns,
) -> None:
    from scorekit.store.scorer_usage import read_scorer_usage

    with Store(cost_runs.db) as store:
        run = store.get_run(cost_runs.whole)
        kept = store.scorer_usage(run)
        with store.engine.connect() as conn:
            rows = read_scorer_usage(conn, run.id)
    assert run.judge_usage["scorers"] == {
        "judged": {"calls": 8, "input_tokens": 88, "output_tokens": 56}
    }
    assert kept == rows == {"judged": JudgeUsage(calls=8, input_tokens=88, output_tokens=56)}


@pytest.mark.parametrize(
    ("scorers", "config", "usage", "total", "texts"),
    [
        # nothing priced but a judge: unknown, never $0
        ([{"id": "f", "judge": "x/a"}], {"prices": {}}, {}, "—", {"f": "—"}),
        # a code scorer alone costs nothing
        ([{"id": "len"}], {"prices": {}}, {}, "$0", None),
        # two unpriced of three judged
        ([{"id": "a", "judge": "x/a"}, {"id": "b", "judge": "x/b"}, {"id": "c", "judge": "x/b"}],
         {"prices": {"x/a": [1, 1]}}, {"a": JudgeUsage(input_tokens=10**6)},
         "≥ $1.00 (2 scorers unpriced)", {"a": "$1.00", "b": "—", "c": "—"}),
        # a scorer whose steps ask two judges: its usage is not split by model
        ([{"id": "m", "judge": "x/a", "judges": ["x/a", "x/b"]}],
         {"prices": {"x/a": [1, 1], "x/b": [1, 1]}}, {"m": JudgeUsage(input_tokens=5)}, "—",
         {"m": "—"}),
        # a stored price that is not a price reads as unpriced, never as free
        ([{"id": "f", "judge": "x/a"}], {"prices": {"x/a": "cheap"}}, {}, "—", {"f": "—"}),
    ],
)  # fmt: skip
def test_run_cost_never_shows_an_unknown_price_as_zero(
    scorers: list[dict[str, Any]],
    config: dict[str, Any],
    usage: dict[str, JudgeUsage],
    total: str,
    texts: dict[str, str] | None,
) -> None:
    cost = run_cost(scorers, config, usage)
    assert isinstance(cost, RunCost)
    assert total_text(cost) == total
    assert scorer_costs(cost, scorers) == texts


def test_a_run_stored_without_prices_has_no_cost() -> None:
    scorers = [{"id": "f", "judge": "openai/gpt-4o-mini"}]
    assert run_cost(scorers, {"model": "openai/gpt-4o-mini"}, {}) is None
    assert total_text(None) == "—"
    assert scorer_costs(None, scorers) == {"f": "—"}
    assert cost_line(None, [{"id": "len"}]) is None  # no judge: nothing to say


def test_a_scorer_whose_steps_ask_their_own_judge_is_stored_with_them(tmp_path: Path) -> None:
    from scorekit.judge.scripted import ScriptedJudge

    other = Judge(ScriptedJudge(lambda request: {"verdict": "yes"}, name="other"))
    step = PromptStep(description="v", create_prompt=lambda ctx: "Fine?", output_schema=Verdict,
                      judge=other)  # fmt: skip
    scorer = create_scorer("stepped", description="asks").analyze(step)
    done = run_evals_sync(ITEMS, [scorer.generate_score(lambda ctx: 1.0)], store=tmp_path / "s.db")
    with Store(tmp_path / "s.db") as store:
        run = store.get_run(done.run_id)
        cost = run_cost(run.scorers, run.config, store.scorer_usage(run))
    assert run.scorers[0]["judges"] == ["test/other"] and "judge" not in run.scorers[0]
    assert cost is not None and cost.scorer_text("stepped") == "$0"  # a test judge: free


def test_what_results_not_stored_spent_is_in_the_total() -> None:
    price = {"input_per_mtok": 1.0, "output_per_mtok": 2.0}
    rows = [{"id": "f", "judge": "openai/gpt-4o-mini"}]
    usage = {"f": JudgeUsage(calls=1, input_tokens=1_000, output_tokens=100)}
    total = JudgeUsage(calls=3, input_tokens=3_000, output_tokens=300)  # two calls dropped
    cost = run_cost(rows, {"prices": {"openai/gpt-4o-mini": price}}, usage, total)
    assert cost is not None
    assert (cost.scorer_text("f"), cost.dropped) == ("$0.0012", pytest.approx(0.0024))
    assert cost.total_text() == "$0.0036 ($0.0024 on results not stored)"
    two = [*rows, {"id": "g", "judge": "openai/gpt-4o"}]
    several = run_cost(two, {"prices": {"openai/gpt-4o-mini": price, "openai/gpt-4o": price}},
                       usage, total)  # fmt: skip
    assert several is not None and several.dropped is None
    assert several.total_text() == "≥ $0.0012 (results not stored unpriced)"
