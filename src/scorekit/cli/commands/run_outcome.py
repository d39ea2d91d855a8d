"""What ``scorekit run`` prints when a run ends: its verdict, or how it was stopped."""

from __future__ import annotations

from rich.markup import escape

from scorekit.cli import console
from scorekit.cli.commands.common import err as _err
from scorekit.cli.commands.common import out as _out
from scorekit.evals import EvalRunResult
from scorekit.judge.spending import budget_text

__all__ = ["print_interrupted", "print_verdict"]


def print_interrupted(partial: EvalRunResult, stored_run: bool) -> None:
    """The partial summary of a run Ctrl-C stopped, and how to continue it."""
    _out().print(console.summary_table(partial.summaries, title=f"{partial.total_items} items"))
    where = (
        f"; stored as run {partial.run_id} ({partial.status}). Continue it with the same "
        f"command and --resume {partial.run_id[:8]}"
        if stored_run
        else ""
    )
    _err().print(
        f"[yellow]interrupted[/yellow] after {partial.total_items} items, no verdict{where}"
    )


def print_verdict(result: EvalRunResult) -> None:
    """The run's verdict with the failed gates, or the budget that stopped it."""
    if result.budget_stop is not None:
        _out().print(f"verdict: [red]failed[/red] ({escape(budget_text(result.budget_stop))})")
        if result.store_url is not None:  # a run that was not stored cannot be resumed
            _out().print(
                f"continue it: --resume {result.run_id} with a larger budget", markup=False
            )
        return
    failed = {sid: why for sid, why in result.failures.items() if why}
    if result.verdict == "passed":
        _out().print("verdict: [green]passed[/green]")
        return
    reasons = "; ".join(f"{sid}: {', '.join(why)}" for sid, why in failed.items())
    _out().print(f"verdict: [red]failed[/red] ({escape(reasons)})")
