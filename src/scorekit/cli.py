"""The ``scorekit`` command line: thin; it parses, calls the API and prints.

Exit codes: 0 success, 1 a run finished but a threshold failed, 2 a usage error (bad option,
missing file or column).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from scorekit.dataset import FieldMap, read_dataset
from scorekit.errors import ConfigError, ScorekitError
from scorekit.evals import EvalItem, EvalRunResult, run_evals_sync
from scorekit.metrics import ScorerSummary, pearson, spearman
from scorekit.pipeline import Scorer, ScorerRunResult
from scorekit.scorers import SCORERS, ScorerEntry, get_scorer_entry

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


def _build_scorers(names: list[str], options: list[str], model: str | None) -> list[Scorer]:
    entries = [get_scorer_entry(name) for name in names]
    assigned = _scorer_options(entries, options)
    scorers = []
    for entry in entries:
        kwargs = assigned[entry.name]
        if entry.kind == "llm":
            if model is None:
                raise ConfigError(
                    f"scorer {entry.name!r} needs a judge: pass --model provider/name",
                    field="model",
                )
            kwargs.setdefault("model", model)
        scorers.append(entry.factory(**kwargs))
    return scorers


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


def _open_sink(out: Path, data: Path) -> TextIO:
    """Open the results file, refusing the dataset itself and paths that cannot be written."""
    if out.exists() and data.exists() and out.resolve() == data.resolve():
        raise ConfigError(f"--out {out} is the dataset itself; choose another file", field="out")
    if out.is_dir():
        raise ConfigError(f"--out {out} is a directory; give a file name", field="out")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        # backslashreplace writes a lone surrogate (legal in JSON text) as its JSON escape
        return out.open("w", encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot write there ({exc.strerror})", field="out") from exc


@app.command()
def run(
    data: Annotated[Path, typer.Argument(help="Dataset: .jsonl, .csv or .tsv")],
    scorer: Annotated[
        list[str], typer.Option("--scorer", "-s", metavar="NAME", help="Scorer (repeatable)")
    ],
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option", "-o", metavar="[SCORER:]KEY=VALUE", help="Scorer option, read as JSON"
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Judge model for LLM scorers, e.g. openai/gpt-4o-mini")
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
    concurrency: Annotated[int, typer.Option(min=1, help="Items scored at once")] = 8,
) -> None:
    """Score a dataset with one or more scorers and print a summary.

    Exit code 0 when the run finished, 1 when a scorer produced no ok result at all, 2 on a
    usage error (bad option, file or column).
    """
    sink: TextIO | None = None
    try:
        if data_format not in (None, "jsonl", "csv", "tsv"):
            raise ConfigError(
                f"--format must be jsonl, csv or tsv, not {data_format!r}", field="format"
            )
        scorers = _build_scorers(scorer, option or [], model)
        ids = [s.id for s in scorers]
        if len(set(ids)) != len(ids):
            raise ConfigError("a scorer is named twice in --scorer", field="scorer")
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
            extra=(correlate,) if correlate else (),
            required=frozenset(explicit),
        )
        items = read_dataset(
            data,
            fields=fields,
            format=data_format,  # type: ignore[arg-type]
            header=not no_header,
            quoting=not no_quote,
            delimiter=delimiter,
        )
        if out is not None:
            sink = _open_sink(out, data)
    except ScorekitError as exc:
        _err().print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc

    collector = _Collector([s.id for s in scorers], correlate, sink)
    progress = Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err(),
        transient=True,
    )
    task = progress.add_task("scoring", total=_count_records(data, not no_header))

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        collector(item, output, results)
        progress.advance(task)

    try:
        with progress:
            result = run_evals_sync(
                items, scorers, concurrency=concurrency, on_item_complete=on_item, keep_items=False
            )
        if sink is not None:
            sink.close()
    except OSError as exc:
        _err().print(f"[red]error:[/red] cannot write the results to {out}: {exc.strerror}")
        raise typer.Exit(2) from exc
    finally:
        if sink is not None and not sink.closed:
            with contextlib.suppress(OSError):
                sink.close()

    collector.report()
    if result.total_items == 0:
        _err().print(f"[yellow]{data} holds no records")
    _out().print(_summary_table(result))
    if correlate:
        _print_correlation(result.summaries, collector.pairs, correlate)
    if out is not None:
        _out().print(f"results: {out}")
    failed = [s.scorer_id for s in result.summaries.values() if s.counts["error"] and not s.scores]
    if failed:
        _err().print(f"[red]no ok result for {', '.join(failed)}")
        raise typer.Exit(1)


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
