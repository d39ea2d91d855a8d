"""The ``scorekit`` command line: thin; it parses, calls the API and prints.

Commands: ``run`` (a dataset with flags, or a YAML config), ``runs``, ``show``, ``compare``,
``report`` (the stored runs), ``scorers`` (the registered scorers), ``judges`` (the judge
providers). The run itself is planned by :mod:`scorekit.plan`, run by
:func:`scorekit.evals.run_evals_sync`, logged by :mod:`scorekit.run_log` and printed by
:mod:`scorekit.console`.

Exit codes: 0 success, 1 a run finished but its verdict failed (a threshold missed, or a scorer
produced no ok result at all), 2 a usage error (bad option, missing file or column, unknown
run), 130 the run was interrupted by Ctrl-C (what finished is stored; ``--resume`` continues
it).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from scorekit import console
from scorekit.config import load_config
from scorekit.errors import ConfigError, ScorekitError
from scorekit.evals import EvalInterrupted, EvalItem, EvalRunResult, run_evals_sync
from scorekit.plan import DataFlags, RunPlan, plan_from_config, plan_from_flags, threshold_ids
from scorekit.plan import parse_pairs as _parse_pairs
from scorekit.report import DEFAULT_MAX_ITEMS, write_report
from scorekit.results import ScorerRunResult
from scorekit.run_log import RunLog
from scorekit.scorers.registry import list_scorers
from scorekit.store import Store

__all__ = ["TINY_MODELS", "app", "main"]

app = typer.Typer(
    name="scorekit",
    help="Score LLM, agent and RAG outputs (a Python port of Mastra's evals scorers).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

TINY_MODELS = frozenset({"local/smollm2"})
"""Judge models that only demonstrate the pipeline; using one prints a note."""


def _out() -> Console:
    # made per use, so the terminal width (COLUMNS) is read when the command runs; off a
    # terminal (pipes, CI logs) tables get room instead of cutting numbers to "0.55…"
    out = Console()
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out = Console(width=160)
    return out


def _err() -> Console:
    return Console(stderr=True, soft_wrap=True)


def _fail(exc: BaseException, code: int = 2) -> typer.Exit:
    _err().print(f"[red]error:[/red] {escape(str(exc))}")
    return typer.Exit(code)


def _note_tiny_models(models: set[str]) -> None:
    for model in sorted(models & TINY_MODELS):
        _err().print(
            f"[yellow]note:[/yellow] the judge {model} is a tiny demonstration model: it shows "
            "the LLM scorers working end to end on this machine, but its verdicts are not a "
            "reliable measure. Set SCOREKIT_MODEL or --model to a capable judge "
            "(e.g. openai/gpt-4o-mini) for real evaluations."
        )


def _count_records(path: Path, header: bool) -> int | None:
    try:
        with path.open("rb") as handle:
            lines = sum(1 for line in handle if line.strip())
    except OSError:
        return None
    return max(lines - (1 if header and path.suffix.lower() in (".csv", ".tsv") else 0), 0)


def _open_sink(out: Path, *inputs: Path) -> TextIO:
    """Open the results file, refusing an input (dataset, config) and unwritable paths."""
    for source in inputs:
        if out.exists() and source.exists() and out.resolve() == source.resolve():
            what = "config" if source.suffix.lower() in (".yaml", ".yml") else "dataset"
            raise ConfigError(f"--out {out} is the {what} itself; choose another file", field="out")
    if out.is_dir():
        raise ConfigError(f"--out {out} is a directory; give a file name", field="out")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        # backslashreplace writes a lone surrogate (legal in JSON text) as its JSON escape
        return out.open("w", encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot write there ({exc.strerror})", field="out") from exc


DbOption = Annotated[
    str | None,
    typer.Option(help="Results database: SQLAlchemy URL or SQLite file [.scorekit/scorekit.db]"),
]


@app.command()
def run(
    data: Annotated[
        Path, typer.Argument(help="A run config (.yaml/.yml), or a dataset (.jsonl/.csv/.tsv)")
    ],
    scorer: Annotated[
        list[str] | None,
        typer.Option(
            "--scorer",
            "-s",
            metavar="NAME",
            help="Scorer: a name from `scorekit scorers`, or module:factory (repeatable)",
        ),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option", "-o", metavar="[SCORER:]KEY=VALUE", help="Scorer option, read as JSON"
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            envvar="SCOREKIT_MODEL",
            help="Judge model of the LLM scorers, e.g. openai/gpt-4o-mini (wins over the config)",
        ),
    ] = None,
    threshold: Annotated[
        list[str] | None,
        typer.Option("--threshold", "-t", help="scorer=minimum mean (repeatable)"),
    ] = None,
    db: DbOption = None,
    no_store: Annotated[
        bool, typer.Option("--no-store", help="Do not store the run in the database")
    ] = False,
    resume: Annotated[
        str | None, typer.Option(help="Continue a stored run (id or prefix): re-run what failed")
    ] = None,
    name: Annotated[str | None, typer.Option(help="A name for the run")] = None,
    report: Annotated[
        Path | None, typer.Option(help="Write the HTML report of the run here")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write one JSON line per (item, scorer) here")
    ] = None,
    input_field: Annotated[
        str | None, typer.Option(help="Field (or column number) of the input [input]")
    ] = None,
    output_field: Annotated[str, typer.Option(help="Field (or column number) of the output")] = (
        "output"
    ),
    ground_truth_field: Annotated[
        str | None,
        typer.Option(help="Field (or column number) of the ground truth [ground_truth]"),
    ] = None,
    id_field: Annotated[
        str | None, typer.Option(help="Field (or column number) of the id [id]")
    ] = None,
    data_format: Annotated[
        str | None,
        typer.Option("--format", help="jsonl, csv or tsv (default: from the file's suffix)"),
    ] = None,
    context_field: Annotated[
        str, typer.Option(help="Field (or column number) of the context pieces")
    ] = "context",
    no_header: Annotated[
        bool, typer.Option("--no-header", help="CSV/TSV: no header row; fields are numbers")
    ] = False,
    no_quote: Annotated[
        bool, typer.Option("--no-quote", help="CSV/TSV: quote characters are plain text")
    ] = False,
    delimiter: Annotated[str | None, typer.Option(help="CSV/TSV: field delimiter")] = None,
    correlate: Annotated[
        str | None,
        typer.Option(help="Report Pearson/Spearman of each scorer against this label field"),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Items scored at once [config, else 8]")
    ] = None,
    judge_timeout: Annotated[
        float | None, typer.Option(min=0.001, help="Seconds one judge call may take [60]")
    ] = None,
    judge_max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Judge reply budget in tokens")
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not use the judge-call cache")
    ] = False,
) -> None:
    """Score a dataset with scorers: from a YAML config, or a dataset file and --scorer flags."""
    is_config = data.suffix.lower() in (".yaml", ".yml")
    judge_options: dict[str, Any] = {
        key: value
        for key, value in (
            ("timeout", judge_timeout),
            ("max_tokens", judge_max_tokens),
            ("cache", False if no_cache else None),
        )
        if value is not None
    }
    try:
        if is_config:
            flags = {
                "--scorer": scorer,
                "--option": option,
                "--input-field": input_field,
                "--ground-truth-field": ground_truth_field,
                "--id-field": id_field,
                "--format": data_format,
                "--no-header": no_header,
                "--no-quote": no_quote,
                "--delimiter": delimiter,
            }
            given = [flag for flag, value in flags.items() if value]
            if given:
                raise ConfigError(
                    f"{', '.join(given)} belong(s) in the config file, not on the command line",
                    field=given[0],
                )
            plan = plan_from_config(
                load_config(data),
                model=model,
                concurrency=concurrency,
                correlate=correlate,
                judge_options=judge_options,
            )
            if threshold:
                plan.thresholds.update(
                    threshold_ids(
                        _parse_pairs(threshold, flag="--threshold", what="scorer=minimum"),
                        plan.scorers,
                    )
                )
            plan.name = name or plan.name
            plan.db = db or plan.db
            plan.report = report or plan.report
        else:
            if "" not in sys.path:  # `-s module:factory` imports from the working directory
                sys.path.insert(0, "")
            plan = plan_from_flags(
                data,
                scorers=scorer or [],
                options=option or [],
                model=model,
                thresholds=threshold or [],
                flags=DataFlags(
                    input_field=input_field,
                    output_field=output_field,
                    ground_truth_field=ground_truth_field,
                    id_field=id_field,
                    context_field=context_field,
                    data_format=data_format,
                    header=not no_header,
                    quoting=not no_quote,
                    delimiter=delimiter,
                ),
                correlate=correlate,
                concurrency=concurrency,
                judge_options=judge_options,
                name=name,
                db=db,
                report=report,
            )
        plan.check()
        if resume is not None and no_store:
            raise ConfigError("--resume needs the store; drop --no-store", field="resume")
        if plan.report is not None and no_store:
            raise ConfigError(
                "--report reads the stored run; drop --no-store (or --report)", field="report"
            )
        sink = _open_sink(out, plan.path, data) if out is not None else None
        store = None if no_store else Store(plan.db)
    except ScorekitError as exc:
        raise _fail(exc) from exc
    _note_tiny_models(plan.models)
    try:
        result = _execute(plan, store, resume, correlate, out, sink)
    finally:
        if store is not None:
            store.close()
    if plan.thresholds:
        _print_verdict(result)
    if result.unmeasured:
        _err().print(f"[red]no ok result for {escape(', '.join(result.unmeasured))}")
    raise typer.Exit(0 if result.verdict == "passed" else 1)


def _execute(
    plan: RunPlan,
    store: Store | None,
    resume: str | None,
    correlate: str | None,
    out: Path | None,
    sink: TextIO | None,
) -> EvalRunResult:
    log = RunLog([s.id for s in plan.scorers], correlate, sink)
    progress = Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err(),
        transient=True,
    )
    task = progress.add_task("scoring", total=_count_records(plan.path, plan.header))

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        log(item, output, results)
        progress.advance(task)

    try:
        with progress:
            result = run_evals_sync(
                plan.items,
                plan.scorers,
                target=plan.target,
                concurrency=plan.concurrency,
                on_item_complete=on_item,
                thresholds=plan.thresholds,
                store=store,
                resume=resume,
                run_name=plan.name,
                keep_items=False,
                config=plan.config,
            )
        if sink is not None:
            sink.close()
    except EvalInterrupted as stopped:
        partial = stopped.result
        _out().print(console.summary_table(partial.summaries, title=f"{partial.total_items} items"))
        where = (
            f"; stored as run {partial.run_id}. Continue it with the same command and "
            f"--resume {partial.run_id[:8]}"
            if store is not None
            else ""
        )
        _err().print(f"[yellow]interrupted[/yellow] after {partial.total_items} items{where}")
        raise typer.Exit(130) from None
    except ScorekitError as exc:
        raise _fail(exc) from exc
    except OSError as exc:
        _err().print(f"[red]error:[/red] cannot write the results to {out}: {exc.strerror}")
        raise typer.Exit(2) from exc
    finally:
        if sink is not None and not sink.closed:
            with contextlib.suppress(OSError):
                sink.close()

    log.report(_err())
    if result.total_items == 0:
        _err().print(f"[yellow]{escape(str(plan.path))} holds no records")
    _out().print(console.summary_table(result.summaries, title=f"{result.total_items} items"))
    _print_usage(result.judge_usage.to_dict())
    if correlate:
        _out().print(console.correlation_table(list(result.summaries), log.pairs, correlate))
    if out is not None:
        _out().print(f"results: {out}")
    if store is not None:
        _out().print(f"stored: run {result.run_id} in {store.url}")
        if plan.report is not None:
            path = write_report(store, result.run_id, plan.report)
            _out().print(f"report: {path}")
    return result


def _print_usage(usage: dict[str, Any]) -> None:
    line = console.usage_text(usage)
    if line is not None:
        _out().print(line, markup=False)


def _print_verdict(result: EvalRunResult) -> None:
    for scorer_id, minimum in result.thresholds.items():
        mean = result.summaries[scorer_id].mean
        passed = mean is not None and mean >= minimum
        mark = "[green]pass[/green]" if passed else "[red]FAIL[/red]"
        _out().print(
            f"threshold {escape(scorer_id)}: mean {console.format_score(mean)} >= {minimum:g}  "
            f"{mark}"
        )
    colour = "green" if result.verdict == "passed" else "red"
    _out().print(f"verdict: [{colour}]{result.verdict}[/{colour}]")


def _open_store(db: str | None) -> Store:
    try:
        return Store(db)
    except ScorekitError as exc:
        raise _fail(exc) from exc


@app.command()
def runs(
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="Most runs to list")] = 20,
) -> None:
    """List stored runs, newest first, with each scorer's mean (as ``show`` prints it)."""
    with _open_store(db) as store:
        try:
            found = [(record, store.run_summaries(record)) for record in store.list_runs(limit)]
        except ScorekitError as exc:
            raise _fail(exc) from exc
    _out().print(console.runs_table(found, title=f"runs in {store.url}"))


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(help="Run id, unique prefix, or 'latest'")],
    db: DbOption = None,
) -> None:
    """Print a stored run's summary: counts and statistics per scorer, judge usage, verdict."""
    with _open_store(db) as store:
        try:
            record = store.get_run(run_id)
            summaries = store.run_summaries(record)
            items = store.item_count(record.id)
        except ScorekitError as exc:
            raise _fail(exc) from exc
    for line in console.run_heading(record, items):
        _out().print(line, markup=False, highlight=False)
    _out().print(console.summary_table(summaries, thresholds=record.thresholds))
    _print_usage(record.judge_usage)


@app.command()
def compare(
    run_a: Annotated[str, typer.Argument(help="The baseline run (id, prefix or 'latest')")],
    run_b: Annotated[str, typer.Argument(help="The run to compare with it")],
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="Regressed items to list")] = 10,
) -> None:
    """Show each scorer's mean change from RUN_A to RUN_B and the items that regressed most."""
    with _open_store(db) as store:
        try:
            a, b = store.get_run(run_a), store.get_run(run_b)
            changes, regressions = store.compare(a.id, b.id, limit=limit)
        except ScorekitError as exc:
            raise _fail(exc) from exc
    _out().print(console.compare_table(a, b, changes))
    if not regressions:
        _out().print("no item scored lower in B")
        return
    _out().print(console.regressions_table(regressions))


@app.command()
def report(
    run_id: Annotated[str, typer.Argument(help="Run id, unique prefix, or 'latest'")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write")] = Path(
        "report.html"
    ),
    db: DbOption = None,
    max_items: Annotated[
        int, typer.Option(min=0, help="Items listed in the per-item table")
    ] = DEFAULT_MAX_ITEMS,
) -> None:
    """Write a stored run as one self-contained HTML file (no network requests)."""
    with _open_store(db) as store:
        try:
            path = write_report(store, run_id, output, max_items=max_items)
        except (ScorekitError, OSError) as exc:
            raise _fail(exc) from exc
    _out().print(f"report: {path}")


@app.command()
def scorers() -> None:
    """List the registered scorers (built-in and installed plugins) with options and defaults."""
    try:
        entries = list_scorers()
    except ScorekitError as exc:
        raise _fail(exc) from exc
    _out().print(console.scorers_table(entries))


@app.command()
def judges() -> None:
    """List the judge providers: model-string prefix, endpoint, API-key variable, output mode."""
    from scorekit.judge.providers import list_providers

    _out().print(console.providers_table(list_providers()))


def main() -> None:
    """Console-script entry point."""
    app()
