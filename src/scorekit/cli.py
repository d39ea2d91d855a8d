"""The ``scorekit`` command line: thin; it parses, calls the API and prints.

Exit codes: 0 success, 1 a run finished but a threshold failed, 2 a usage error (bad option,
missing file or column).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
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
    # made per use, so the terminal width (COLUMNS) is read when the command runs
    return Console()


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


@app.command()
def run(
    data: Annotated[Path, typer.Argument(help="Dataset: .jsonl, .csv or .tsv")],
    scorer: Annotated[list[str], typer.Option("--scorer", "-s", help="Scorer name (repeatable)")],
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help="[scorer:]key=value, value read as JSON"),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Judge model for LLM scorers, e.g. openai/gpt-4o-mini")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write one JSON line per (item, scorer) here")
    ] = None,
    input_field: Annotated[str, typer.Option(help="Field (or column number) of the input")] = (
        "input"
    ),
    output_field: Annotated[str, typer.Option(help="Field (or column number) of the output")] = (
        "output"
    ),
    ground_truth_field: Annotated[
        str, typer.Option(help="Field (or column number) of the ground truth")
    ] = "ground_truth",
    id_field: Annotated[str, typer.Option(help="Field (or column number) of the id")] = "id",
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
    """Score a dataset with one or more scorers and print a summary."""
    try:
        scorers = _build_scorers(scorer, option or [], model)
        fields = FieldMap(
            input=input_field,
            output=output_field,
            ground_truth=ground_truth_field,
            id=id_field,
            extra=(correlate,) if correlate else (),
        )
        items = read_dataset(
            data, fields=fields, header=not no_header, quoting=not no_quote, delimiter=delimiter
        )
    except ScorekitError as exc:
        _err().print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc

    pairs: dict[str, list[tuple[float, float]]] = {s.id: [] for s in scorers}
    load_errors: list[str] = []
    sink = None
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        sink = out.open("w", encoding="utf-8")
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
        if item.load_error is not None:
            load_errors.append(item.load_error)
        label = _label(item, correlate) if correlate else None
        for scorer_id, result in results.items():
            if sink is not None:
                record = {"item_id": item.id, **result.to_dict()}
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
            if label is not None and result.status == "ok" and result.score is not None:
                pairs[scorer_id].append((result.score, label))
        progress.advance(task)

    try:
        with progress:
            result = run_evals_sync(
                items, scorers, concurrency=concurrency, on_item_complete=on_item, keep_items=False
            )
    finally:
        if sink is not None:
            sink.close()

    for message in load_errors[:20]:
        _err().print(f"[yellow]skipped record:[/yellow] {message}")
    if len(load_errors) > 20:
        _err().print(f"[yellow]… and {len(load_errors) - 20} more unreadable records[/yellow]")
    _out().print(_summary_table(result))
    if correlate:
        _print_correlation(result.summaries, pairs, correlate)
    if out is not None:
        _out().print(f"results: {out}")


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


def main() -> None:
    """Console-script entry point."""
    app()
