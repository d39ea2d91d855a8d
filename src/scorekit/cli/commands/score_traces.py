"""``scorekit score-traces FILE... -s NAME``: score recorded OpenTelemetry traces.

Reads OTLP JSON files (the Collector's ``file`` exporter's JSON lines, or one request), turns
each trace into items (:mod:`scorekit.traces`), scores them and stores one run with source
``TRACE``. Every problem met in the files is printed per trace; none stops the command.
Exit codes: 0 scored (problems or not), 2 a usage error before anything is scored, 3 the store
failed mid-run, 130 interrupted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from scorekit.cli import console, exit_codes
from scorekit.cli.commands.common import DbOption, ScorerOptions, Scorers, app, err, fail, out
from scorekit.cli.commands.stored import print_usage
from scorekit.cli.plan import JudgePool, build_scorers
from scorekit.errors import ConfigError, ScorekitError
from scorekit.store import Store
from scorekit.traces import TraceRunResult, score_traces_sync

__all__ = ["score_traces_command"]

_SHOWN_PROBLEMS = 20  # problems printed one by one; the rest are counted


@app.command("score-traces")
def score_traces_command(
    files: Annotated[
        list[Path], typer.Argument(help="OTLP JSON files (JSON lines or one request)")
    ],
    scorer: Scorers = None,
    option: ScorerOptions = None,
    model: Annotated[
        str | None,
        typer.Option(envvar="SCOREKIT_MODEL", help="Judge model of the LLM scorers"),
    ] = None,
    target: Annotated[
        str,
        typer.Option(help="Which spans become items: root, or a span kind (LLM, AGENT, ...)"),
    ] = "root",
    db: DbOption = None,
    no_store: Annotated[
        bool, typer.Option("--no-store", help="Do not store the run in the database")
    ] = False,
    name: Annotated[str | None, typer.Option(help="A name for the run")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Items scored at once")] = 8,
) -> None:
    """Score the traces of OTLP JSON files (OpenInference or GenAI conventions) with scorers."""
    try:
        if not scorer:
            raise ConfigError("give --scorer (at least one)", field="scorer")
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise ConfigError(f"no trace file {', '.join(missing)}", field="files")
        if "" not in sys.path:  # `-s module:factory` imports from the working directory
            sys.path.insert(0, "")
        scorers = build_scorers(scorer, option or [], model, JudgePool({}))
        store = None if no_store else Store(db)
    except ScorekitError as exc:
        raise fail(exc) from exc
    try:
        result = score_traces_sync(
            files,
            scorers,
            target=target,
            store=store,
            run_name=name,
            concurrency=concurrency,
            keep_items=False,
        )
        if result.total_items == 0 and store is not None:
            store.delete_empty_run(result.run_id)  # exit 2 means nothing was stored
    except KeyboardInterrupt:
        err().print("[yellow]interrupted[/yellow]; what was scored is stored")
        raise typer.Exit(exit_codes.INTERRUPTED) from None
    except ConfigError as exc:
        raise fail(exc) from exc
    except ScorekitError as exc:
        raise fail(exc, exit_codes.STOPPED) from exc
    finally:
        if store is not None:
            store.close()
    if result.total_items == 0:  # as `run` refuses an empty dataset: nothing was measured
        files_named = ", ".join(str(f) for f in files)
        what = "no trace" if result.traces == 0 else "no span that becomes an item"
        for problem in result.problems[:_SHOWN_PROBLEMS]:
            err().print(f"[yellow]{escape(str(problem))}[/yellow]")
        err().print(
            f"[red]error:[/red] {what} in {escape(files_named)}: nothing was scored or stored"
        )
        raise typer.Exit(exit_codes.USAGE)
    _print(result, store)


def _print(result: TraceRunResult, store: Store | None) -> None:
    for problem in result.problems[:_SHOWN_PROBLEMS]:
        level = "[red]error[/red]" if problem.fatal else "[yellow]warning[/yellow]"
        err().print(f"{level}: {escape(str(problem))}")
    if len(result.problems) > _SHOWN_PROBLEMS:
        err().print(f"... and {len(result.problems) - _SHOWN_PROBLEMS} more problems")
    out().print(
        console.summary_table(
            result.summaries, title=f"{result.traces} traces, {result.total_items} items"
        )
    )
    print_usage(result.judge_usage.to_dict())
    if store is not None:
        out().print(f"stored: run {result.run_id} in {store.url}")
