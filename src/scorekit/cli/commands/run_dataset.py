"""``scorekit run``: a dataset with flags, or a YAML config.

The run itself is planned by
:mod:`scorekit.cli.plan`, run by :func:`scorekit.evals.run_evals_sync`, logged by
:mod:`scorekit.cli.run_log` and printed by :mod:`scorekit.cli.console`.

Exit codes (one table for every command, :mod:`scorekit.cli.exit_codes`): 0 success (``run``:
the verdict passed), 1 the run finished and its verdict failed, 2 a usage error before
anything is scored, 3 the run began but stopped on an error, 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from scorekit import __version__
from scorekit.cli import console, exit_codes
from scorekit.cli.commands import ci_outputs, stored
from scorekit.cli.commands.common import DbOption, ScorerOptions, Scorers, app
from scorekit.cli.commands.common import err as _err
from scorekit.cli.commands.common import fail as _fail
from scorekit.cli.commands.common import out as _out
from scorekit.cli.commands.gate_options import (
    MaxCostOption,
    MaxErrorRateOption,
    MaxJudgeCallsOption,
    MaxJudgeTokensOption,
    MinAgreementOption,
    PriceOption,
    TrialsOption,
)
from scorekit.cli.commands.run_outcome import print_interrupted, print_verdict
from scorekit.cli.config import load_config
from scorekit.cli.correlation import AGREEMENT_KEY, agreement
from scorekit.cli.dataset_identity import IDENTITY_KEY, check_resumed_dataset, dataset_identity
from scorekit.cli.estimate_table import EstimateOption, plan_estimate, print_estimate
from scorekit.cli.option_texts import parse_agreement_gates, parse_error_rates, parse_pairs
from scorekit.cli.plan import (
    DataFlags,
    RunPlan,
    error_limits,
    plan_from_config,
    plan_from_flags,
    threshold_ids,
)
from scorekit.cli.run_log import RunLog
from scorekit.errors import ConfigError, ScorekitError
from scorekit.evals import EvalInterrupted, EvalItem, EvalRunResult, Executor, run_evals_sync
from scorekit.judge_grade import TEST_GRADE_JUDGES
from scorekit.report import check_report_target, write_report
from scorekit.results import ScorerRunResult
from scorekit.store import Store

__all__ = ["TINY_MODELS", "run"]

TINY_MODELS = TEST_GRADE_JUDGES
"""Judge models that only demonstrate the pipeline; using one prints a note
(:mod:`scorekit.judge_grade`)."""


def _show_version(value: bool) -> None:
    if value:
        _out().print(f"scorekit {__version__}", markup=False, highlight=False)
        raise typer.Exit(exit_codes.OK)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit"
        ),
    ] = False,
) -> None:
    """Score LLM, agent and RAG outputs (a Python port of Mastra's evals scorers)."""


def _note_tiny_models(models: set[str]) -> None:
    for model in sorted(models & TINY_MODELS):
        _err().print(
            f"[yellow]note:[/yellow] the judge {model} is a tiny demonstration model: it shows "
            "the LLM scorers working end to end on this machine, but its verdicts are not a "
            "reliable measure. Set SCOREKIT_MODEL or --model to a capable judge "
            "(e.g. openai/gpt-4o-mini) for real evaluations."
        )


def _count_records(path: Path, header: bool) -> int | None:
    if path.suffix.lower() == ".json":  # one array over any number of lines: no count here
        return None
    try:
        with path.open("rb") as handle:
            lines = sum(1 for line in handle if line.strip())
    except OSError:
        return None
    return max(lines - (1 if header and path.suffix.lower() in (".csv", ".tsv") else 0), 0)


def _check_outputs(named: dict[str, Path | None], *inputs: Path) -> None:
    """Refuse, before anything is scored, an output file that cannot be written as asked.

    Args:
        named: option name (``out``, ``report``, ``junit``, ``markdown``) → its path, if given.
        inputs: the files the run reads (dataset, config): never overwritten.

    Raises:
        ConfigError: (``field`` the option) a path is an input, a folder, the file of another
            output option, or in a place that cannot be written.
    """
    taken: dict[Path, str] = {}
    for option, path in named.items():
        if path is None:
            continue
        resolved = path.resolve()
        for source in inputs:
            if source.exists() and resolved == source.resolve():
                what = "config" if source.suffix.lower() in (".yaml", ".yml") else "dataset"
                raise ConfigError(
                    f"--{option} {path} is the {what} itself; choose another file", field=option
                )
        if resolved in taken:
            raise ConfigError(
                f"--{option} and --{taken[resolved]} name the same file {path}; give each its own",
                field=option,
            )
        taken[resolved] = option
        if path.is_dir():
            raise ConfigError(f"--{option} {path} is a directory; give a file name", field=option)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"--{option} {path}: cannot write there ({exc.strerror})", field=option
            ) from exc
        if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise ConfigError(f"--{option} {path}: cannot write there", field=option)
        if option == "report":
            check_report_target(path)


def _open_sink(out: Path) -> TextIO:
    """Open the results file (:func:`_check_outputs` has checked its path)."""
    try:
        # backslashreplace writes a lone surrogate (legal in JSON text) as its JSON escape
        return out.open("w", encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot write there ({exc.strerror})", field="out") from exc


def _executor(
    kind: str, address: str | None, workers: int | None, concurrency: int
) -> Executor | None:
    """The executor ``--executor`` names (``None``: the local one, with ``--concurrency``).

    Raises:
        ConfigError: an unknown executor (``field="executor"``); ``--ray-address`` or
            ``--workers`` without ``--executor ray``; Ray not installed (naming the extra).
    """
    if kind not in ("local", "ray"):
        raise ConfigError(f"--executor must be local or ray, not {kind!r}", field="executor")
    if kind == "local":
        given = [
            flag for flag, value in (("--ray-address", address), ("--workers", workers)) if value
        ]
        if given:
            raise ConfigError(f"{given[0]} needs --executor ray", field=given[0].lstrip("-"))
        return None
    from scorekit.distributed import RayExecutor  # Ray is imported only for a Ray run

    return RayExecutor(address, workers=workers or 2, concurrency=concurrency)


@app.command()
def run(
    data: Annotated[
        Path, typer.Argument(help="A run config (.yaml/.yml), or a dataset (.jsonl/.csv/.tsv)")
    ],
    scorer: Scorers = None,
    option: ScorerOptions = None,
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
    max_error_rate: MaxErrorRateOption = None,
    trials: TrialsOption = None,
    max_judge_calls: MaxJudgeCallsOption = None,
    max_judge_tokens: MaxJudgeTokensOption = None,
    max_cost: MaxCostOption = None,
    price: PriceOption = None,
    estimate: EstimateOption = False,
    min_agreement: MinAgreementOption = None,
    db: DbOption = None,
    no_store: Annotated[
        bool, typer.Option("--no-store", help="Do not store the run in the database")
    ] = False,
    resume: Annotated[
        str | None, typer.Option(help="Continue a stored run (id or prefix): re-run what failed")
    ] = None,
    resume_other_data: Annotated[
        bool,
        typer.Option(
            "--resume-other-data",
            help="Let --resume score a dataset whose content differs from the stored run's",
        ),
    ] = False,
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
        typer.Option("--format", help="jsonl, json, csv or tsv (default: from the file's suffix)"),
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
        int | None,
        typer.Option(min=1, help="Items scored at once (per worker on Ray) [config, else 8]"),
    ] = None,
    executor: Annotated[
        str,
        typer.Option(help="Where items are scored: local, or ray (a Ray cluster; scorekit[ray])"),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            help="--executor ray: the cluster, auto, host:port or ray://host:port "
            "[RAY_ADDRESS, else a new local cluster]"
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="--executor ray: worker processes [2]")
    ] = None,
    judge_timeout: Annotated[
        float | None, typer.Option(min=0.001, help="Seconds one judge call may take [60]")
    ] = None,
    judge_max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Judge reply budget in tokens")
    ] = None,
    scorer_timeout: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="Seconds one code-scorer call may take per item; 0: no limit [config, else 60]",
        ),
    ] = None,
    target_timeout: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="Seconds the config's target may take per item; 0: no limit [config, else 300]",
        ),
    ] = None,
    max_text_chars: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Characters one item field may hold; a longer one is that item's error; "
            "0: no limit [config, else 1000000]",
        ),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not use the judge-call cache")
    ] = False,
    junit: Annotated[
        Path | None, typer.Option(help="Write a JUnit XML file: a test case per scorer")
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option(help="Write the summary and verdict as Markdown (for CI)")
    ] = None,
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
            config = load_config(data)
            try:
                plan = plan_from_config(
                    config,
                    model=model,
                    concurrency=concurrency,
                    correlate=correlate,
                    judge_options=judge_options,
                )
            except ConfigError as exc:  # name the file, as load_config's own errors do
                raise ConfigError(f"{data}: {exc}", field=exc.field) from exc
            if threshold:
                plan.thresholds.update(
                    threshold_ids(
                        parse_pairs(threshold, flag="--threshold", what="scorer=minimum"),
                        plan.scorers,
                    )
                )
            if max_error_rate:  # the flags replace the config's limits
                overall, pairs = parse_error_rates(max_error_rate)
                plan.max_error_rate = error_limits(pairs or None, plan.scorers, overall)
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
                max_error_rate=max_error_rate or [],
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
        if scorer_timeout is not None:  # the flag wins over the config's
            plan.scorer_timeout = scorer_timeout or None
        if target_timeout is not None:
            plan.target_timeout = target_timeout or None
        if max_text_chars is not None:
            plan.max_text_chars = max_text_chars or None
        if min_agreement:  # the flags replace the config's agreement gates
            plan.min_agreement = parse_agreement_gates(min_agreement)
        if trials is not None:
            plan.trials = trials
        if max_judge_calls is not None:  # a flag wins over the config's limit of its kind
            plan.budget["max_judge_calls"] = max_judge_calls
        if max_judge_tokens is not None:
            plan.budget["max_judge_tokens"] = max_judge_tokens
        plan.price_run(max_cost, price or [], check=resume is None)
        if resume is not None and no_store:
            raise ConfigError("--resume needs the store; drop --no-store", field="resume")
        if plan.report is not None and no_store:
            raise ConfigError(
                "--report reads the stored run; drop --no-store (or --report)", field="report"
            )
        _check_outputs(
            {"out": out, "report": plan.report, "junit": junit, "markdown": markdown},
            plan.path,
            data,
        )
        plan.check()  # reads the first record: an empty dataset or a missing field stops here
        if estimate and resume is not None:
            raise ConfigError(
                "--estimate estimates a whole run; it cannot leave out what --resume would "
                "skip: drop --resume (the estimate's figures then cover every item)",
                field="estimate",
            )
        if estimate:  # sends nothing, writes nothing
            found = plan_estimate(plan, plan.db, use_store=not no_store)
            raise typer.Exit(print_estimate(found, _out()))
        chosen = _executor(executor, ray_address, workers, plan.concurrency)
        store = None if no_store else Store(plan.db)
    except ScorekitError as exc:
        raise _fail(exc) from exc
    try:
        try:
            identity = dataset_identity(plan.path, plan.fields)
        except OSError as exc:
            raise ConfigError(f"cannot read {plan.path}: {exc.strerror}", field="data") from exc
        plan.config[IDENTITY_KEY] = identity
        # the run's id is known before it starts: the --out rows carry it
        run_id = str(uuid.uuid4())
        if store is not None and resume:
            resumed = store.get_run(resume)
            run_id = resumed.id
            check_resumed_dataset(resumed.config, identity, run_id=run_id, allow=resume_other_data)
        sink = _open_sink(out) if out is not None else None
    except ScorekitError as exc:
        if store is not None:
            store.close()
        raise _fail(exc) from exc
    _note_tiny_models(plan.models)
    try:
        result = _execute(plan, store, resume, run_id, out, sink, chosen)
    finally:
        if store is not None:
            store.close()
    print_verdict(result)
    try:
        for line in ci_outputs.write_outputs(
            result, junit=junit, markdown=markdown, store_url=store.url if store else None
        ):
            _out().print(line, markup=False, highlight=False)
    except ScorekitError as exc:
        raise _fail(exc, exit_codes.STOPPED) from exc
    if result.budget_stop is not None:
        raise typer.Exit(exit_codes.BUDGET)
    raise typer.Exit(exit_codes.OK if result.verdict == "passed" else exit_codes.FAILED)


def _execute(
    plan: RunPlan,
    store: Store | None,
    resume: str | None,
    run_id: str,
    out: Path | None,
    sink: TextIO | None,
    executor: Executor | None = None,
) -> EvalRunResult:
    log = RunLog([s.id for s in plan.scorers], plan.correlate, sink, run_id=run_id)
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

    started = time.perf_counter()
    try:
        with progress:
            result = run_evals_sync(
                plan.items,
                plan.scorers,
                target=plan.target,
                concurrency=plan.concurrency if executor is None else None,
                executor=executor,
                on_item_complete=on_item,
                thresholds=plan.thresholds,
                max_error_rate=plan.max_error_rate,
                min_agreement=plan.min_agreement,
                trials=plan.trials,
                store=store,
                max_judge_calls=plan.budget.get("max_judge_calls"),
                max_judge_tokens=plan.budget.get("max_judge_tokens"),
                max_cost=plan.max_cost,
                prices=plan.prices,
                resume=run_id if resume else None,
                run_id=None if resume else run_id,
                run_name=plan.name,
                keep_items=False,
                config=plan.config,
                scorer_timeout=plan.scorer_timeout,
                target_timeout=plan.target_timeout,
                max_text_chars=plan.max_text_chars,
            )
        if sink is not None:
            sink.close()
    except EvalInterrupted as stopped:
        print_interrupted(stopped.result, store is not None)
        raise typer.Exit(exit_codes.INTERRUPTED) from None
    except ConfigError as exc:  # refused before the run began (resume with other scorers)
        raise _fail(exc) from exc
    except ScorekitError as exc:  # the data source or the database failed mid-run
        raise _fail(exc, exit_codes.STOPPED) from exc
    except OSError as exc:
        _err().print(f"[red]error:[/red] cannot write the results to {out}: {exc.strerror}")
        raise typer.Exit(exit_codes.STOPPED) from exc
    finally:
        if sink is not None and not sink.closed:
            with contextlib.suppress(OSError):
                sink.close()

    log.report(_err())
    _out().print(
        console.summary_table(
            result.summaries,
            title=f"{result.total_items} items",
            thresholds=result.thresholds,
            max_error_rates=result.max_error_rates,
            failures=result.failures,
        )
    )
    if plan.trials > 1:
        found = result.trial_summaries()
        if found:
            _out().print(console.trials_table(found))
        else:
            _out().print("trials: no item was scored ok in every trial", markup=False)
    stored.print_usage(result.judge_usage.to_dict(), time.perf_counter() - started)
    if plan.correlate:
        found = agreement(list(result.summaries), log.pairs, plan.correlate)
        _out().print(console.correlation_table(found))
        if store is not None:  # kept with the run: show, the report and the viewer show it
            try:
                store.update_config(result.run_id, {AGREEMENT_KEY: found})
            except ScorekitError as exc:
                _err().print(f"[yellow]warning:[/yellow] the agreement was not stored: {exc}")
    if out is not None:
        _out().print(f"results: {out}")
    if store is not None:
        _out().print(f"stored: run {result.run_id} in {store.url}")
        if plan.report is not None:
            path = write_report(store, result.run_id, plan.report)
            _out().print(f"report: {path}")
    return result
