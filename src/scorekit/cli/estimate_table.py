"""``scorekit run ... --estimate``: what the run would cost, as a terminal table.

The figures come from :func:`scorekit.cost.estimate_run`; this module only lays them out:
one row per LLM scorer and a total, each figure as ``expected (at most upper)``.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from scorekit._sync import run_sync
from scorekit.cli import exit_codes
from scorekit.cli.plan import RunPlan
from scorekit.cost.estimate import RunEstimate, ScorerEstimate, estimate_run
from scorekit.notebook import dollars_text
from scorekit.store.engines import DEFAULT_DB_PATH

__all__ = ["EstimateOption", "estimate_lines", "estimate_table", "plan_estimate", "print_estimate"]

EstimateOption = Annotated[
    bool,
    typer.Option(
        "--estimate",
        help="Print the judge calls, tokens, money and time the run would cost; run nothing",
    ),
]
"""``scorekit run --estimate``."""


def print_estimate(found: RunEstimate, console: Console) -> int:
    """Print the estimate's table and notes; return the exit code (4: a budget is crossed)."""
    console.print(estimate_table(found))
    for line in estimate_lines(found):
        console.print(line, markup=False, highlight=False)
    return exit_codes.BUDGET if found.over_budget else exit_codes.OK


def plan_estimate(plan: RunPlan, db: str | None, *, use_store: bool = True) -> RunEstimate:
    """Estimate ``plan``'s run (:func:`scorekit.cost.estimate_run`); nothing is sent or written.

    The store's earlier runs are read from ``db`` (the default database when ``None``) unless
    ``use_store`` is off.

    Raises:
        ConfigError: as :func:`~scorekit.cost.estimate_run` does.
    """
    return run_sync(
        estimate_run(
            plan.items,
            plan.scorers,
            target=plan.target,
            trials=plan.trials,
            concurrency=plan.concurrency,
            max_text_chars=plan.max_text_chars,
            store=(db or DEFAULT_DB_PATH) if use_store else None,
            max_judge_calls=plan.budget.get("max_judge_calls"),
            max_judge_tokens=plan.budget.get("max_judge_tokens"),
            max_cost=plan.max_cost,
            prices=plan.prices,
        )
    )


def _pair(expected: float | int | None, upper: float | int | None, money: bool = False) -> str:
    def one(value: float | int | None) -> str:
        if value is None:
            return "—" if not money else "— (no price)"
        return dollars_text(float(value)) if money else f"{value:,}"

    if expected is None and money:
        return one(None)
    most = "no bound" if upper is None else one(upper)
    return f"{one(expected)} (≤ {most})"


def _seconds(value: float | None) -> str:
    if value is None:
        return "— (no earlier run)"
    if value < 120:
        return f"{value:.0f} s"
    return f"{value / 60:.1f} min"


def _row(s: ScorerEstimate) -> list[str]:
    calls = f"{s.calls:,}" + ("" if s.exact else " ~")
    return [
        s.scorer_id,
        s.judge or "—",
        f"{calls} (≤ {s.calls_upper:,})",
        f"{s.cache_hits:,}",
        _pair(s.prompt_tokens, s.prompt_tokens_upper) + ("" if s.counted else " ≈"),
        _pair(s.completion_tokens, s.completion_tokens_upper)
        + (" h" if s.completion_from == "history" else ""),
        _pair(s.cost, s.cost_upper, money=True),
        _seconds(s.seconds),
    ]


def estimate_table(estimate: RunEstimate) -> Table:
    """The estimate per LLM scorer and in total."""
    table = Table(title=f"estimate: {estimate.items:,} items, nothing sent to a judge")
    for name in ("scorer", "judge", "calls", "cached", "prompt tokens", "completion tokens",
                 "money", "time"):  # fmt: skip
        table.add_column(name, overflow="fold")
    for scorer in estimate.scorers:
        table.add_row(*_row(scorer))
    if len(estimate.scorers) > 1:
        seconds = [s.seconds for s in estimate.scorers]
        table.add_row(
            "total",
            "",
            f"{estimate.total('calls'):,}{'' if all(s.exact for s in estimate.scorers) else ' ~'}"
            f" (≤ {estimate.total('calls_upper'):,})",
            f"{estimate.total('cache_hits'):,}",
            _pair(estimate.total("prompt_tokens"), estimate.total("prompt_tokens_upper"))
            + ("" if all(s.counted for s in estimate.scorers) else " ≈"),
            _pair(estimate.total("completion_tokens"), estimate.total("completion_tokens_upper")),
            _pair(estimate.total("cost"), estimate.total("cost_upper"), money=True),
            # the scorers' calls share the judge: their times add up
            _seconds(None if None in seconds else sum(s or 0.0 for s in seconds)),
        )
    return table


def estimate_lines(estimate: RunEstimate) -> list[str]:
    """The notes under the table: how to read it, what it could not know, budgets crossed."""
    lines = [
        "each figure: expected (≤ the most the repair rules allow); ~ calls that depend on an "
        "earlier reply; ≈ prompts approximated (no offline tokenizer for this judge); h "
        "completion tokens measured in earlier runs (else typical replies)",
    ]
    if not estimate.scorers:
        lines.append("no LLM scorer: the run sends nothing to a judge")
    lines.extend(f"note: {note}" for note in estimate.notes)
    lines.extend(f"over budget: {text}" for text in estimate.over_budget)
    lines.extend(f"may cross its budget: {text}" for text in estimate.may_cross)
    return lines
