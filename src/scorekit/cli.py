"""The ``scorekit`` command line: thin; it parses, calls the API and prints.

Commands: ``run`` (a dataset with flags, or a YAML config), ``runs``, ``show``, ``compare``,
``report`` (the stored runs), ``scorers`` (the prebuilt scorers).

Exit codes: 0 success, 1 a run finished but a threshold failed or a scorer produced no ok
result at all, 2 a usage error (bad option, missing file or column, unknown run), 130 the run
was interrupted by Ctrl-C (what finished is stored; ``--resume`` continues it).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from scorekit.config import RunConfig, load_config, load_target
from scorekit.dataset import FieldMap, read_dataset
from scorekit.errors import ConfigError, ScorekitError
from scorekit.evals import (
    EvalInterrupted,
    EvalItem,
    EvalRunResult,
    Target,
    item_context,
    run_evals_sync,
)
from scorekit.judge.judge import Judge
from scorekit.metrics import ScorerSummary, pearson, spearman
from scorekit.pipeline import Scorer, ScorerRunResult
from scorekit.report import DEFAULT_MAX_ITEMS, write_report
from scorekit.scorers import SCORERS, ScorerEntry, get_scorer_entry
from scorekit.store import Store

__all__ = ["app", "main"]

app = typer.Typer(
    name="scorekit",
    help="Score LLM, agent and RAG outputs (a Python port of Mastra's evals scorers).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _out() -> Console:
    # made per use, so the terminal width (COLUMNS) is read when the command runs; off a
    # terminal (pipes, CI logs) tables get room instead of cutting numbers to "0.55…"
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=160)
    return console


def _err() -> Console:
    return Console(stderr=True, soft_wrap=True)


def _parse_value(text: str) -> Any:
    """Read an option value as JSON (``false``, ``2.5``, ``["a"]``), else as a plain string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _scorer_options(entries: list[ScorerEntry], raw: list[str]) -> dict[str, dict[str, Any]]:
    """Assign ``[scorer:]key=value`` options to scorers.

    An option without a ``scorer:`` prefix goes to every chosen scorer that accepts it.

    Raises:
        ConfigError: malformed option, unknown scorer prefix, or no chosen scorer accepts it.
    """
    chosen = {entry.name: entry for entry in entries}
    assigned: dict[str, dict[str, Any]] = {name: {} for name in chosen}
    for option in raw:
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise ConfigError(f"--option {option!r}: expected key=value", field="option")
        target, _, name = key.rpartition(":")
        names = [get_scorer_entry(target).name] if target else list(chosen)
        if target and names[0] not in chosen:
            raise ConfigError(
                f"--option {option!r}: scorer {target!r} is not chosen", field="option"
            )
        takers = [n for n in names if name in {o.name for o in chosen[n].options()}]
        if not takers:
            raise ConfigError(
                f"--option {option!r}: no chosen scorer has an option {name!r}; "
                "see `scorekit scorers`",
                field="option",
            )
        for taker in takers:
            assigned[taker][name] = _parse_value(value)
    return assigned


TINY_MODELS = frozenset({"local/smollm2"})
"""Judge models that only demonstrate the pipeline; using one prints a note."""


class _Judges:
    """The judges of one CLI run: one per model string, shared by every LLM scorer using it.

    Made without instructions, so each prebuilt scorer keeps its own (``to_judge``).
    """

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self._made: dict[str, Judge] = {}

    def get(self, model: str) -> Judge | str:
        if not self.options:
            return model
        if model not in self._made:
            self._made[model] = Judge(model, **self.options)
        return self._made[model]


def _make_scorer(
    entry: ScorerEntry, options: dict[str, Any], model: str | None, judges: _Judges
) -> Scorer:
    kwargs = dict(options)
    takes = {option.name for option in entry.options()}
    if "context_extractor" in takes and not {"context", "context_extractor"} & set(kwargs):
        # context scorers judge each item's own context (the dataset's or the target's)
        kwargs["context_extractor"] = item_context
    if entry.kind == "llm":
        model = kwargs.pop("model", None) or model
        if model is None:
            raise ConfigError(
                f"scorer {entry.name!r} needs a judge: pass --model provider/name, set "
                "SCOREKIT_MODEL, or give model: in the config",
                field="model",
            )
        kwargs["model"] = judges.get(model) if isinstance(model, str) else model
    try:
        return entry.factory(**kwargs)
    except TypeError as exc:  # an option the factory does not take
        raise ConfigError(f"scorer {entry.name!r}: {exc}", field="options") from exc


def _build_scorers(
    names: list[str], options: list[str], model: str | None, judges: _Judges
) -> list[Scorer]:
    entries = [get_scorer_entry(name) for name in names]
    assigned = _scorer_options(entries, options)
    return [_make_scorer(entry, assigned[entry.name], model, judges) for entry in entries]


def _judge_models(entries: list[tuple[ScorerEntry, str | None]]) -> set[str]:
    return {model for entry, model in entries if entry.kind == "llm" and model is not None}


def _note_tiny_models(models: set[str]) -> None:
    for model in sorted(models & TINY_MODELS):
        _err().print(
            f"[yellow]note:[/yellow] the judge {model} is a tiny demonstration model: it shows "
            "the LLM scorers working end to end on this machine, but its verdicts are not a "
            "reliable measure. Set SCOREKIT_MODEL or --model to a capable judge "
            "(e.g. openai/gpt-4o-mini) for real evaluations."
        )


def _thresholds(raw: dict[str, Any], scorers: list[Scorer]) -> dict[str, float]:
    """Map threshold keys (short names or scorer ids) to scorer ids."""
    ids = {s.id for s in scorers}
    found: dict[str, float] = {}
    for key, value in raw.items():
        scorer_id = key if key in ids else get_scorer_entry(key).scorer_id
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(
                f"threshold {key!r} must be a number, got {value!r}", field="thresholds"
            )
        found[scorer_id] = float(value)
    return found


def _parse_thresholds(raw: list[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for text in raw:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise ConfigError(f"--threshold {text!r}: expected scorer=minimum", field="threshold")
        found[key] = _parse_value(value)
    return found


def _count_records(path: Path, header: bool) -> int | None:
    try:
        with path.open("rb") as handle:
            lines = sum(1 for line in handle if line.strip())
    except OSError:
        return None
    return max(lines - (1 if header and path.suffix.lower() in (".csv", ".tsv") else 0), 0)


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _summary_table(result: EvalRunResult) -> Table:
    table = Table(title=f"{result.total_items} items")
    width = max((len(sid) for sid in result.summaries), default=6)
    table.add_column("scorer", no_wrap=True, min_width=width)
    for column in ("ok", "skipped", "error", "mean", "median", "min", "max"):
        table.add_column(column, justify="right")
    for summary in result.summaries.values():
        table.add_row(
            summary.scorer_id,
            str(summary.counts["ok"]),
            str(summary.counts["skipped"]),
            str(summary.counts["error"]),
            _fmt(summary.mean),
            _fmt(summary.median),
            _fmt(summary.minimum),
            _fmt(summary.maximum),
        )
    return table


def _label(item: EvalItem, column: str) -> float | None:
    value = item.metadata.get(column)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


class _Collector:
    """Per-item bookkeeping of a CLI run: the JSONL sink, problems to report, label pairs."""

    def __init__(self, scorer_ids: list[str], correlate: str | None, sink: TextIO | None):
        self.correlate = correlate
        self.sink = sink
        self.pairs: dict[str, list[tuple[float, float]]] = {sid: [] for sid in scorer_ids}
        self.load_errors: list[str] = []
        self.result_errors: list[str] = []
        self.result_error_count = 0
        self.bad_labels: list[str] = []
        self.seen_ids: set[str] = set()
        self.duplicate_ids: list[str] = []

    def __call__(self, item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        if item.id in self.seen_ids:
            self.duplicate_ids.append(item.id)
        self.seen_ids.add(item.id)
        if item.load_error is not None:
            self.load_errors.append(item.load_error)
        label = None
        if self.correlate and item.load_error is None:
            label = _label(item, self.correlate)
            if label is None:
                where = item.metadata.get("line", item.id)
                self.bad_labels.append(f"line {where}: {item.metadata.get(self.correlate)!r}")
        for scorer_id, result in results.items():
            if self.sink is not None:
                record = {"item_id": item.id, **result.to_dict()}
                self.sink.write(json.dumps(record, ensure_ascii=False) + "\n")
            if result.status == "error" and item.load_error is None:
                self.result_error_count += 1
                if len(self.result_errors) < 10 and result.error is not None:
                    step = f" in {result.error.step}" if result.error.step else ""
                    self.result_errors.append(
                        f"item {item.id!r}, {scorer_id}{step}: {result.error.message}"
                    )
            if label is not None and result.status == "ok" and result.score is not None:
                self.pairs[scorer_id].append((result.score, label))

    def report(self) -> None:
        err = _err()
        for message in self.load_errors[:20]:
            err.print(f"[yellow]unreadable record:[/yellow] {escape(message)}")
        if len(self.load_errors) > 20:
            err.print(f"[yellow]… and {len(self.load_errors) - 20} more unreadable records")
        for message in self.result_errors:
            err.print(f"[yellow]error:[/yellow] {escape(message)}")
        if self.result_error_count > len(self.result_errors):
            more = self.result_error_count - len(self.result_errors)
            err.print(f"[yellow]… and {more} more failed results (see --out)")
        if self.bad_labels:
            err.print(
                f"[yellow]{len(self.bad_labels)} records have a {self.correlate!r} label that "
                f"is not a finite number and are left out of the correlation; first: "
                f"{escape(self.bad_labels[0])}"
            )
        if self.duplicate_ids:
            err.print(
                f"[yellow]{len(self.duplicate_ids)} records repeat an earlier id; first: "
                f"{escape(self.duplicate_ids[0])!r}"
            )


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
        typer.Option("--scorer", "-s", metavar="NAME", help="Scorer (repeatable; dataset form)"),
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
    db: Annotated[
        str | None,
        typer.Option(
            help="Results database: SQLAlchemy URL or SQLite file [.scorekit/scorekit.db]"
        ),
    ] = None,
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
    flag_judge: dict[str, Any] = {
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
            job = _job_from_config(load_config(data), model, concurrency, correlate, flag_judge)
        else:
            if not scorer:
                raise ConfigError("give --scorer (at least one), or a .yaml config", field="scorer")
            if data_format not in (None, "jsonl", "csv", "tsv"):
                raise ConfigError(
                    f"--format must be jsonl, csv or tsv, not {data_format!r}", field="format"
                )
            explicit = {
                name
                for name, value in (
                    ("input", input_field),
                    ("ground_truth", ground_truth_field),
                    ("id", id_field),
                )
                if value is not None
            }
            fields = FieldMap(
                input=input_field or "input",
                output=output_field,
                ground_truth=ground_truth_field or "ground_truth",
                id=id_field or "id",
                context=context_field,
                extra=(correlate,) if correlate else (),
                required=frozenset(explicit),
            )
            entries = [(get_scorer_entry(n), model) for n in scorer]
            scorers = _build_scorers(scorer, option or [], model, _Judges(flag_judge))
            job = _Job(
                name=name,
                path=data,
                items=read_dataset(
                    data,
                    fields=fields,
                    format=data_format,  # type: ignore[arg-type]
                    header=not no_header,
                    quoting=not no_quote,
                    delimiter=delimiter,
                ),
                header=not no_header,
                scorers=scorers,
                target=None,
                concurrency=concurrency or 8,
                thresholds=_thresholds(_parse_thresholds(threshold or []), scorers),
                models=_judge_models(entries),
                db=db,
                report=report,
                config={
                    "data": str(data),
                    "scorers": list(scorer),
                    "options": list(option or []),
                    "model": model,
                },
            )
        ids = [s.id for s in job.scorers]
        if len(set(ids)) != len(ids):
            raise ConfigError("a scorer is named twice", field="scorer")
        if is_config and threshold:
            job.thresholds.update(_thresholds(_parse_thresholds(threshold), job.scorers))
        job.name = name or job.name
        job.db = db or job.db
        job.report = report or job.report
        if resume is not None and no_store:
            raise ConfigError("--resume needs the store; drop --no-store", field="resume")
        if job.report is not None and no_store:
            raise ConfigError(
                "--report reads the stored run; drop --no-store (or --report)", field="report"
            )
        sink = _open_sink(out, job.path, data) if out is not None else None
        store = None if no_store else Store(job.db)
    except ScorekitError as exc:
        _err().print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    _note_tiny_models(job.models)
    try:
        result = _execute(job, store, resume, correlate, out, sink)
    finally:
        if store is not None:
            store.close()
    if job.thresholds:
        _print_verdict(result)
    failed = [s.scorer_id for s in result.summaries.values() if s.counts["error"] and not s.scores]
    if failed:
        _err().print(f"[red]no ok result for {', '.join(failed)}")
    raise typer.Exit(0 if result.verdict == "passed" and not failed else 1)


class _Job:
    """A run ready to go: items, scorers and settings from flags or a config."""

    def __init__(
        self,
        *,
        name: str | None,
        path: Path,
        items: Iterator[EvalItem],
        header: bool,
        scorers: list[Scorer],
        target: Target | None,
        concurrency: int,
        thresholds: dict[str, float],
        models: set[str],
        db: str | None,
        report: Path | None,
        config: dict[str, Any],
    ) -> None:
        self.name = name
        self.path = path
        self.items = items
        self.header = header
        self.scorers = scorers
        self.target = target
        self.concurrency = concurrency
        self.thresholds = thresholds
        self.models = models
        self.db = db
        self.report = report
        self.config = config


def _job_from_config(
    config: RunConfig,
    model: str | None,
    concurrency: int | None,
    correlate: str | None,
    judge_options: dict[str, Any],
) -> _Job:
    run_model = model or config.model
    # flags win over the config's judge settings
    judges = _Judges({**config.judge.options(), **judge_options})
    entries = [(get_scorer_entry(s.name), s.model or run_model) for s in config.scorers]
    scorers = [
        _make_scorer(entry, dict(spec.options), chosen, judges)
        for (entry, chosen), spec in zip(entries, config.scorers, strict=True)
    ]
    target = load_target(config.target, config.base_dir) if config.target else None
    fields = config.data.fields.field_map()
    if correlate:
        fields = FieldMap(**{**fields.__dict__, "extra": (*fields.extra, correlate)})
    path = config.resolve(config.data.path)
    items = read_dataset(
        path,
        fields=fields,
        format=config.data.format,
        header=config.data.header,
        quoting=config.data.quoting,
        delimiter=config.data.delimiter,
        require_output=target is None,
    )
    return _Job(
        name=config.name,
        path=path,
        items=items,
        header=config.data.header,
        scorers=scorers,
        target=target,
        concurrency=concurrency or config.concurrency,
        thresholds=_thresholds(config.thresholds, scorers),
        models=_judge_models(entries),
        db=config.database(),
        report=config.resolve(config.report) if config.report else None,
        config={
            **config.model_dump(mode="json", exclude={"base_dir"}),
            "model": run_model,
        },
    )


def _execute(
    job: _Job,
    store: Store | None,
    resume: str | None,
    correlate: str | None,
    out: Path | None,
    sink: TextIO | None,
) -> EvalRunResult:
    collector = _Collector([s.id for s in job.scorers], correlate, sink)
    progress = Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err(),
        transient=True,
    )
    task = progress.add_task("scoring", total=_count_records(job.path, job.header))

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        collector(item, output, results)
        progress.advance(task)

    try:
        with progress:
            result = run_evals_sync(
                job.items,
                job.scorers,
                target=job.target,
                concurrency=job.concurrency,
                on_item_complete=on_item,
                thresholds=job.thresholds,
                store=store,
                resume=resume,
                run_name=job.name,
                keep_items=False,
                config=job.config,
            )
        if sink is not None:
            sink.close()
    except EvalInterrupted as stopped:
        partial = stopped.result
        _out().print(_summary_table(partial))
        _err().print(
            f"[yellow]interrupted[/yellow] after {partial.total_items} items"
            + (
                f"; stored as run {partial.run_id}. Continue it with the same command and "
                f"--resume {partial.run_id[:8]}"
                if store is not None
                else ""
            )
        )
        raise typer.Exit(130) from None
    except ScorekitError as exc:
        _err().print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    except OSError as exc:
        _err().print(f"[red]error:[/red] cannot write the results to {out}: {exc.strerror}")
        raise typer.Exit(2) from exc
    finally:
        if sink is not None and not sink.closed:
            with contextlib.suppress(OSError):
                sink.close()

    collector.report()
    if result.total_items == 0:
        _err().print(f"[yellow]{job.path} holds no records")
    _out().print(_summary_table(result))
    _print_usage(result.judge_usage.to_dict())
    if correlate:
        _print_correlation(result.summaries, collector.pairs, correlate)
    if out is not None:
        _out().print(f"results: {out}")
    if store is not None:
        _out().print(f"stored: run {result.run_id} in {store.url}")
        if job.report is not None:
            path = write_report(store, result.run_id, job.report)
            _out().print(f"report: {path}")
    return result


def _print_usage(usage: dict[str, Any]) -> None:
    if usage.get("calls"):
        _out().print(
            f"judge: {usage['calls']} calls ({usage.get('cache_hits', 0)} from cache), "
            f"{usage.get('input_tokens', 0)} input + {usage.get('output_tokens', 0)} output "
            f"tokens, {usage.get('latency_s', 0.0):.1f} s waiting"
        )


def _print_verdict(result: EvalRunResult) -> None:
    for scorer_id, minimum in result.thresholds.items():
        mean = result.summaries[scorer_id].mean
        passed = mean is not None and mean >= minimum
        mark = "[green]pass[/green]" if passed else "[red]FAIL[/red]"
        _out().print(f"threshold {scorer_id}: mean {_fmt(mean)} >= {minimum:g}  {mark}")
    colour = "green" if result.verdict == "passed" else "red"
    _out().print(f"verdict: [{colour}]{result.verdict}[/{colour}]")


def _print_correlation(
    summaries: dict[str, ScorerSummary], pairs: dict[str, list[tuple[float, float]]], column: str
) -> None:
    table = Table(title=f"agreement with {column!r}")
    for name in ("scorer", "pairs", "pearson", "spearman"):
        table.add_column(name, justify="left" if name == "scorer" else "right")
    for scorer_id in summaries:
        found = pairs[scorer_id]
        if len(found) < 2:
            table.add_row(scorer_id, str(len(found)), "—", "—")
            continue
        scores = [p[0] for p in found]
        labels = [p[1] for p in found]
        table.add_row(
            scorer_id,
            str(len(found)),
            _fmt(pearson(scores, labels)),
            _fmt(spearman(scores, labels)),
        )
    _out().print(table)


def _open_store(db: str | None) -> Store:
    try:
        return Store(db)
    except ScorekitError as exc:
        _err().print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc


def _when(value: datetime | None) -> str:
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


@app.command()
def runs(
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="Most runs to list")] = 20,
) -> None:
    """List stored runs, newest first."""
    with _open_store(db) as store:
        try:
            found = store.list_runs(limit)
        except ScorekitError as exc:
            _err().print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
    table = Table(title=f"runs in {store.url}")
    for column in ("id", "name", "started (UTC)", "status", "verdict", "items", "means"):
        table.add_column(column, no_wrap=column in ("id", "started (UTC)"))
    for record in found:
        means = ", ".join(
            f"{sid}={_fmt(totals.get('mean'))}" for sid, totals in record.totals.items()
        )
        table.add_row(
            record.id[:8],
            record.name or "",
            _when(record.started_at),
            record.status,
            record.verdict or "—",
            str(record.total_items),
            means,
        )
    _out().print(table)


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(help="Run id, unique prefix, or 'latest'")],
    db: DbOption = None,
) -> None:
    """Print a stored run's summary: counts and statistics per scorer, judge usage, verdict."""
    with _open_store(db) as store:
        try:
            record = store.get_run(run_id)
            stats = store.scorer_stats(record.id)
            items = store.item_count(record.id)
        except ScorekitError as exc:
            _err().print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
    _out().print(f"run {record.id}  {record.name or ''}")
    _out().print(
        f"status {record.status} · verdict {record.verdict or '—'} · started "
        f"{_when(record.started_at)} · finished {_when(record.finished_at)} UTC · {items} items"
    )
    table = Table()
    for column in ("scorer", "ok", "skipped", "error", "mean", "median", "min", "max", "min."):
        table.add_column(column, justify="left" if column == "scorer" else "right")
    for sid, s in stats.items():
        minimum = record.thresholds.get(sid)
        table.add_row(
            sid,
            str(s.counts["ok"]),
            str(s.counts["skipped"]),
            str(s.counts["error"]),
            _fmt(s.mean),
            _fmt(s.median),
            _fmt(s.minimum),
            _fmt(s.maximum),
            "—" if minimum is None else f"{minimum:g}",
        )
    _out().print(table)
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
            _err().print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
    table = Table(title=f"{a.id[:8]} ({a.name or '—'}) → {b.id[:8]} ({b.name or '—'})")
    for column in ("scorer", "mean A", "mean B", "change", "paired", "newly failing"):
        table.add_column(column, justify="left" if column == "scorer" else "right")
    for change in changes:
        delta = "—" if change.delta is None else f"{change.delta:+.4f}"
        table.add_row(
            change.scorer_id,
            _fmt(change.mean_a),
            _fmt(change.mean_b),
            delta,
            str(change.paired),
            str(change.newly_failed),
        )
    _out().print(table)
    if not regressions:
        _out().print("no item scored lower in B")
        return
    worst = Table(title="items that regressed most")
    for column in ("item", "scorer", "A", "B", "change"):
        worst.add_column(column, justify="right" if column in ("A", "B", "change") else "left")
    for r in regressions:
        worst.add_row(r.item_id, r.scorer_id, _fmt(r.score_a), _fmt(r.score_b), f"{r.delta:+.4f}")
    _out().print(worst)


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
            _err().print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
    _out().print(f"report: {path}")


@app.command()
def scorers() -> None:
    """List the prebuilt scorers with their options and defaults."""
    table = Table(title="scorers")
    for column in ("name", "id", "kind", "options (default)", "measures"):
        table.add_column(column)
    for entry in SCORERS.values():
        options = []
        for opt in entry.options():
            if opt.required:
                options.append(f"{opt.name} (required)")
            else:
                options.append(f"{opt.name}={opt.default!r}")
        table.add_row(entry.name, entry.scorer_id, entry.kind, "\n".join(options), entry.summary)
    _out().print(table)


@app.command()
def judges() -> None:
    """List the judge providers: model-string prefix, endpoint, API-key variable, output mode."""
    from scorekit.judge.providers import list_providers

    table = Table(title="judge providers (--model <provider>/<model>)")
    for column in ("provider", "endpoint", "API key", "structured output", "notes"):
        table.add_column(column)
    for row in list_providers():
        if row.protocol in ("local", "test"):
            endpoint = "in-process"
        else:
            endpoint = row.base_url or " or ".join(row.base_url_vars)
        keys = " / ".join(row.api_key_env) or "-"
        if row.api_key_env and not row.key_required:
            keys += " (optional)"
        table.add_row(row.name, endpoint, keys, row.mode, escape(row.note))
    _out().print(table)


def main() -> None:
    """Console-script entry point."""
    app()
