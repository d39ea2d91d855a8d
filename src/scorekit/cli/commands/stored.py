"""``scorekit runs``, ``show``, ``compare`` and ``report``: the stored runs.

Each reads a run's per-scorer summaries through ``Store.run_summaries`` (so every view prints
the same numbers) and its item count through :func:`item_count`, and opens the database
without creating it: a mistyped ``--db`` is an error (exit 2), not a new empty file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scorekit.cli import console, exit_codes
from scorekit.cli.commands.common import DbOption, app, fail, open_store, out, scorer_numbers
from scorekit.cli.commands.listing import SourceOption, run_source
from scorekit.cli.correlation import AGREEMENT_KEY
from scorekit.errors import ConfigError, ScorekitError
from scorekit.judge.spending import stored_budget_text
from scorekit.judge_grade import judge_lines
from scorekit.report import DEFAULT_MAX_ITEMS, write_report
from scorekit.report.costs import cost_line, scorer_costs, stored_run_cost, total_text
from scorekit.store import Store
from scorekit.store.alignments import latest_alignments
from scorekit.store.labels import has_labels
from scorekit.store.records import RunRecord, ScorerChange, stored_error_limits
from scorekit.store.repeats import trial_scores
from scorekit.trust.alignment import align, stored_alignment_notes
from scorekit.trust.min_agreement import stored_agreement_failures
from scorekit.trust.paired import PairedComparison
from scorekit.trust.paired_runs import compare_runs
from scorekit.trust.trials import trial_summary
from scorekit.verdict import scorer_failures

__all__ = ["compare", "item_count", "print_usage", "report", "runs", "show"]


def item_count(store: Store, record: RunRecord) -> int:
    """The items of a run as every view counts them.

    An ended run's stored total (items processed); a run still ``running`` (or crashed) has
    no total yet: its distinct items with stored results.

    Raises:
        StoreError: the read failed.
    """
    if record.status == "running":
        return store.item_count(record.id)
    return record.total_items


def print_usage(usage: dict[str, object], wall_s: float | None = None) -> None:
    """Print a run's judge usage line, when it made judge calls (with its wall time if known)."""
    line = console.usage_text(usage, wall_s)
    if line is not None:
        out().print(line, markup=False)


@app.command()
def runs(
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="Most runs to list")] = 20,
    source: SourceOption = None,
) -> None:
    """List stored runs, newest first, with each scorer's mean (as ``show`` prints it)."""
    try:
        chosen = run_source(source)
    except ScorekitError as exc:
        raise fail(exc) from exc
    with open_store(db) as store:
        try:
            found = [
                (record, store.run_summaries(record), item_count(store, record))
                for record in store.list_runs(limit, source=chosen)
            ]
            costs = {
                record.id: total_text(stored_run_cost(record, store.scorer_usage))
                for record, _, _ in found
            }
        except ScorekitError as exc:
            raise fail(exc) from exc
    out().print(console.runs_table(found, title=f"runs in {store.url}", costs=costs))


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(help="Run id, unique prefix, name, or 'latest'")],
    db: DbOption = None,
) -> None:
    """Print a stored run's summary: counts and statistics per scorer, its gates and verdict."""
    with open_store(db) as store:
        try:
            record = store.get_run(run_id)
            summaries = store.run_summaries(record)
            items = item_count(store, record)
            # the trust figures read every score: only for a run with labels to align with
            trust = align(store, record.id) if has_labels(store, record.id) else {}
            borrowed = latest_alignments(store, record)
            repeats = trial_scores(store, record.id)
            cost = stored_run_cost(record, store.scorer_usage)
        except ScorekitError as exc:
            raise fail(exc) from exc
    for line in console.run_heading(record, items):
        out().print(line, markup=False, highlight=False)
    for line in judge_lines(record.scorers):
        out().print(line, markup=False, highlight=False)
    limits = stored_error_limits(record.config)
    failures = (
        scorer_failures(
            summaries, record.thresholds, limits, stored_agreement_failures(record.config)
        )
        if record.status == "finished"
        else None
    )
    out().print(
        console.summary_table(
            summaries,
            thresholds=record.thresholds,
            max_error_rates=limits,
            failures=failures,
            costs=scorer_costs(cost, record.scorers),
        )
    )
    stopped = stored_budget_text(record.config)
    if stopped is not None:  # the judge budget stopped it: a failed verdict, resumable
        out().print(f"verdict: failed ({stopped})", markup=False)
    elif record.status != "finished":
        out().print(f"no verdict: the run is {record.shown_status()}", markup=False)
    found = record.config.get(AGREEMENT_KEY) if isinstance(record.config, dict) else None
    if isinstance(found, dict):
        out().print(console.correlation_table(found))
    if trust:
        out().print(console.alignment_table(trust))
    for line in stored_alignment_notes(borrowed, own=record.id):
        out().print(line, markup=False, highlight=False)
    count = record.config.get("trials", 1) if isinstance(record.config, dict) else 1
    summaries_of_trials = {  # the items with the run's number of trials (a resume may differ)
        sid: found
        for sid, scores in repeats.items()
        if (found := trial_summary({i: r for i, r in scores.items() if len(r) == count}))
        is not None
    } if isinstance(count, int) and count > 1 else {}  # fmt: skip
    if summaries_of_trials:
        out().print(console.trials_table(summaries_of_trials))
    took = None
    if record.finished_at is not None:
        took = (record.finished_at - record.started_at).total_seconds()
    print_usage(record.judge_usage, took)
    costed = cost_line(cost, record.scorers)
    if costed is not None:
        out().print(costed, markup=False, highlight=False)


@app.command()
def compare(
    run_a: Annotated[str, typer.Argument(help="The baseline run (id, prefix, name or 'latest')")],
    run_b: Annotated[str, typer.Argument(help="The run to compare with it")],
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="Regressed items to list")] = 10,
    fail_on_regression: Annotated[
        float | None,
        typer.Option(
            min=0,
            metavar="DELTA",
            help="Exit 1 when a scorer's mean fell by more than DELTA, or was lost, in RUN_B",
        ),
    ] = None,
    significant: Annotated[
        bool,
        typer.Option(
            "--significant",
            help="With --fail-on-regression: a fall counts only when its paired 95 % "
            "interval lies below 0 and p <= 0.05",
        ),
    ] = False,
    threshold: Annotated[
        list[str] | None,
        typer.Option(help="SCORER=X: the pass threshold of McNemar's test (default 0.5)"),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Bootstrap and permutation seed")] = 0,
    markdown: Annotated[
        Path | None,
        typer.Option(help="Also write the comparison as Markdown here (a pull request comment)"),
    ] = None,
) -> None:
    """Show each scorer's change from RUN_A to RUN_B and the items that regressed most.

    The paired change per scorer comes with a 95 % bootstrap interval, a sign-flip
    permutation p-value and McNemar's test of the pass/fail flips (docs/trust.md).
    """
    if significant and fail_on_regression is None:
        raise fail(ConfigError("--significant qualifies --fail-on-regression: give both"))
    with open_store(db) as store:
        try:
            a, b = store.get_run(run_a), store.get_run(run_b)
            changes, regressions = store.compare(a.id, b.id, limit=limit)
            ids = [s["id"] for s in a.scorers]
            limits = scorer_numbers(threshold or [], ids, field="threshold")
            paired = compare_runs(store, a.id, b.id, thresholds=limits, seed=seed)
        except ScorekitError as exc:
            raise fail(exc) from exc
    out().print(console.compare_table(a, b, changes))
    if paired:
        out().print(console.paired_table(paired))
    if markdown is not None:
        from scorekit.cli.commands.ci_outputs import markdown_comparison, write_ci_file

        try:
            text = markdown_comparison(a, b, changes, paired)
            out().print(f"markdown: {write_ci_file(markdown, text, option='markdown')}")
        except ScorekitError as exc:
            raise fail(exc) from exc
    if not any(change.paired for change in changes):
        out().print("no item was scored ok in both runs: nothing to compare item by item")
    elif not regressions:
        out().print("no item scored lower in B")
    else:
        out().print(console.regressions_table(regressions))
    if fail_on_regression is not None:
        from scorekit.cli.commands.ci_outputs import mean_regressions

        gated = [c for c in changes if not significant or _beyond_noise(c, paired)]
        try:
            found = mean_regressions(gated, fail_on_regression)
        except ScorekitError as exc:
            raise fail(exc) from exc
        for line in found:
            out().print(f"regression: {line}", markup=False, highlight=False)
        if found:
            raise typer.Exit(exit_codes.FAILED)


def _beyond_noise(change: ScorerChange, paired: dict[str, PairedComparison]) -> bool:
    """Whether ``--significant`` lets a scorer's fall count.

    It does when its paired interval lies below 0, or when it has no paired items (a lost mean
    still regresses; no pairs at all is an error).
    """
    one = paired.get(change.scorer_id)
    return one is None or one.verdict == "B lower"


@app.command()
def report(
    run_id: Annotated[str, typer.Argument(help="Run id, unique prefix, name, or 'latest'")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write")] = Path(
        "report.html"
    ),
    db: DbOption = None,
    max_items: Annotated[
        int, typer.Option(min=0, help="Items listed in the per-item table")
    ] = DEFAULT_MAX_ITEMS,
) -> None:
    """Write a stored run as one self-contained HTML file (no network requests)."""
    with open_store(db) as store:
        try:
            path = write_report(store, run_id, output, max_items=max_items)
        except ScorekitError as exc:
            raise fail(exc) from exc
        except OSError as exc:  # a folder, a dangling link, no permission: say which file
            raise fail(ConfigError(f"--output {output}: cannot write it ({exc.strerror})")) from exc
    out().print(f"report: {path}")
