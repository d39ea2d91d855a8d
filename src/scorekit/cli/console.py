"""Terminal rendering of score summaries, stored runs and run comparisons (with ``rich``).

The command line (``scorekit run``, ``runs``, ``show``, ``compare``) prints through these
functions, so a mean reads the same everywhere: four decimals, ``—`` for none. Each function
returns a renderable (a ``rich`` table or a line of text) and prints nothing; the caller picks
the console. Text from data (scorer ids, run names, item ids) is shown as plain text, never
read as ``rich`` markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from rich.table import Table
from rich.text import Text

from scorekit.judge.providers import Provider
from scorekit.notebook import score_text
from scorekit.scorers.entry import ScorerEntry
from scorekit.store.records import RunRecord, ScorerChange, ScoreRegression
from scorekit.summary import ScoreSummary
from scorekit.trust.agreement import Interval
from scorekit.trust.alignment import Alignment
from scorekit.trust.estimates import with_mean_interval
from scorekit.trust.paired import PairedComparison
from scorekit.trust.trials import TrialSummary
from scorekit.verdict import error_rate, format_rate

__all__ = [
    "alignment_table",
    "compare_table",
    "correlation_table",
    "format_change",
    "format_time",
    "interval_text",
    "means_text",
    "paired_table",
    "providers_table",
    "regressions_table",
    "run_heading",
    "runs_table",
    "scorers_table",
    "summary_table",
    "trials_table",
    "usage_text",
]

_STATISTICS = ("ok", "skipped", "error", "error rate", "mean", "mean 95 %", "median", "min", "max")


def format_change(value: float | None) -> str:
    """A change of score with its sign (``+0.1250``), ``—`` for ``None``."""
    return "—" if value is None else f"{value:+.4f}"


def format_time(value: datetime | None) -> str:
    """A stored time (UTC) as ``2026-01-31 12:00:00``, ``—`` for ``None``."""
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def summary_table(
    summaries: Mapping[str, ScoreSummary],
    *,
    title: str | None = None,
    thresholds: Mapping[str, float] | None = None,
    max_error_rates: Mapping[str, float] | None = None,
    failures: Mapping[str, Sequence[str]] | None = None,
    costs: Mapping[str, str] | None = None,
) -> Table:
    """One row per scorer: counts by status, error rate, mean and its interval, median, min, max.

    The interval is the mean's 95 % bootstrap interval over items; the gates follow.

    Args:
        summaries: scorer id → summary, in the order to show.
        title: the table's title.
        thresholds: scorer id → minimum mean; given, a column ``min. mean`` shows them (``—``
            for a scorer without one).
        max_error_rates: scorer id → error-rate limit; given, a column ``max. errors`` shows
            them next to the thresholds.
        failures: scorer id → the gates it failed (:func:`scorekit.verdict.scorer_failures`);
            given, a last column ``gate`` says ``pass`` or ``FAIL: why`` (a run with a verdict).
        costs: scorer id → its judge cost, as text (:func:`scorekit.report.costs.scorer_costs`);
            given, a column ``cost`` follows the statistics.
    """
    table = Table(title=title)
    width = max((len(sid) for sid in summaries), default=6)
    table.add_column("scorer", no_wrap=True, min_width=width)
    for column in _STATISTICS:
        table.add_column(column, justify="right")
    if costs is not None:
        table.add_column("cost", justify="right")
    if thresholds is not None:
        table.add_column("min. mean", justify="right")
    if max_error_rates is not None:
        table.add_column("max. errors", justify="right")
    if failures is not None:
        table.add_column("gate")
    for sid, summary in summaries.items():
        cells: list[str | Text] = [
            str(summary.counts["ok"]),
            str(summary.counts["skipped"]),
            str(summary.counts["error"]),
            format_rate(error_rate(summary)),
            score_text(summary.mean),
            interval_text(summary),
            score_text(summary.median),
            score_text(summary.minimum),
            score_text(summary.maximum),
        ]
        if costs is not None:
            cells.append(costs.get(sid, "—"))
        if thresholds is not None:
            minimum = thresholds.get(sid)
            cells.append("—" if minimum is None else f"{minimum:g}")
        if max_error_rates is not None:
            limit = max_error_rates.get(sid)
            cells.append("—" if limit is None else format_rate(limit))
        if failures is not None:
            failed = failures.get(sid, ())
            cells.append(Text("FAIL: " + "; ".join(failed)) if failed else "pass")
        table.add_row(Text(sid), *cells)
    return table


def interval_text(summary: ScoreSummary) -> str:
    """The mean's 95 % bootstrap interval over items, ``[0.6200, 0.8100]``.

    ``—`` without one: fewer than two ``ok`` scores.
    """
    found = summary.mean_interval or with_mean_interval(summary).mean_interval
    return "—" if found is None else f"[{found[0]:.4f}, {found[1]:.4f}]"


def means_text(summaries: Mapping[str, ScoreSummary]) -> str:
    """``scorer=mean`` pairs, comma-separated, with the error rate where there were errors.

    Example: ``a=0.6250, b=— (100% errors)``.
    """
    return ", ".join(
        f"{sid}={score_text(s.mean)}"
        + (f" ({format_rate(error_rate(s))} errors)" if s.counts["error"] else "")
        for sid, s in summaries.items()
    )


def runs_table(
    runs: Sequence[tuple[RunRecord, Mapping[str, ScoreSummary], int]],
    *,
    title: str | None = None,
    costs: Mapping[str, str] | None = None,
) -> Table:
    """One row per stored run: id prefix, name, source, start, status, verdict, items, means.

    Args:
        runs: each run with its summaries (from ``Store.run_summaries``) and its item count
            (as ``show`` counts them), in the order to show.
        title: the table's title.
        costs: run id → its judge cost, as text (:func:`scorekit.report.costs.total_text`);
            given, a column ``cost`` follows the items (``—`` for a run not in it).
    """
    table = Table(title=title)
    columns = ["id", "name", "source", "started (UTC)", "status", "verdict", "items", "means"]
    if costs is not None:
        columns.insert(7, "cost")
    for column in columns:
        table.add_column(column, no_wrap=column in ("id", "started (UTC)", "cost"))
    for record, summaries, items in runs:
        cells: list[str | Text] = [
            record.id[:8],
            Text(record.name or ""),
            record.source,
            format_time(record.started_at),
            record.shown_status(),
            record.verdict or "—",
            str(items),
        ]
        if costs is not None:
            cells.append(costs.get(record.id, "—"))
        table.add_row(*cells, Text(means_text(summaries)))
    return table


def run_heading(record: RunRecord, items: int) -> list[str]:
    """The lines above a stored run's summary table: its id and name, then how it went.

    The second line: status (``interrupted`` with the last heartbeat for a ``running`` run
    whose process died), verdict, source (``TEST``, ``LIVE`` or ``TRACE``), start and finish
    times, and the item count.

    Args:
        record: the run.
        items: distinct items with stored results.
    """
    status = record.shown_status()
    stale = record.stale_since()
    if stale is not None:  # the process writing it died without ending it
        status += f" (no heartbeat since {format_time(stale)} UTC)"
    return [
        f"run {record.id}  {record.name or ''}",
        f"status {status} · verdict {record.verdict or '—'} · source {record.source} · "
        f"started {format_time(record.started_at)} · finished {format_time(record.finished_at)} "
        f"UTC · {items} items",
    ]


def usage_text(usage: Mapping[str, Any], wall_s: float | None = None) -> str | None:
    """A run's judge usage in one line (``JudgeUsage.to_dict()`` shape); ``None`` without calls.

    The judge's latency is summed over its calls, which overlap when they run concurrently:
    it says how long the judge took in all, not how long the run took (``wall_s``, when known,
    is that). Example: ``judge: 40 calls (0 from cache), 9000 input + 800 output tokens,
    1583.9 s of judge latency summed over the calls; the run took 316.2 s``.
    """
    if not usage.get("calls"):
        return None
    line = (
        f"judge: {usage['calls']} calls ({usage.get('cache_hits', 0)} from cache), "
        f"{usage.get('input_tokens', 0)} input + {usage.get('output_tokens', 0)} output "
        f"tokens, {usage.get('latency_s', 0.0):.1f} s of judge latency summed over the calls"
    )
    return line if wall_s is None else f"{line}; the run took {wall_s:.1f} s"


def compare_table(a: RunRecord, b: RunRecord, changes: Sequence[ScorerChange]) -> Table:
    """Each scorer's mean in run A and run B, the change, and the paired and newly failing items.

    Args:
        a: the baseline run.
        b: the run compared with it.
        changes: from ``Store.compare``.
    """
    table = Table(
        title=Text(f"{a.id[:8]} ({a.name or '—'}) → {b.id[:8]} ({b.name or '—'})"),
        caption="change: over the paired items (scored ok in both runs); — without any",
    )
    for column in ("scorer", "mean A", "mean B", "change", "paired", "newly failing"):
        table.add_column(column, justify="left" if column == "scorer" else "right")
    for change in changes:
        table.add_row(
            Text(change.scorer_id),
            score_text(change.mean_a),
            score_text(change.mean_b),
            format_change(change.delta),
            str(change.paired),
            str(change.newly_failed),
        )
    return table


def paired_table(found: Mapping[str, PairedComparison]) -> Table:
    """Each scorer's paired change from run A to run B with its interval and tests.

    Args:
        found: from :func:`scorekit.trust.paired_runs.compare_runs`.
    """
    table = Table(
        title="paired change, B − A (95 % bootstrap interval)",
        caption="p: sign-flip permutation test; McNemar: pass/fail flips at the threshold",
    )
    for column in ("scorer", "paired", "change", "interval", "p", "McNemar p", "verdict"):
        table.add_column(column, justify="left" if column in ("scorer", "verdict") else "right")
    for scorer_id, one in found.items():
        flips = one.mcnemar
        table.add_row(
            Text(scorer_id),
            str(one.n),
            format_change(one.difference.value),
            f"[{one.difference.low:+.4f}, {one.difference.high:+.4f}]",
            f"{one.p_value:.4f}",
            "—" if flips is None else f"{flips.p_value:.4f} ({flips.only_a}↓ {flips.only_b}↑)",
            Text(one.verdict),
        )
    return table


def _figure(value: Interval | None) -> str:
    if value is None:
        return "—"
    return f"{value.value:.2f} [{value.low:.2f}, {value.high:.2f}]"


def alignment_table(found: Mapping[str, Alignment]) -> Table:
    """The terminal table of :func:`~scorekit.trust.alignment.align`'s result."""
    table = Table(title="agreement with human labels (95 % intervals)")
    for heading in ("scorer", "labelled", "balanced acc.", "κ", "AUROC", "best thr.",
                    "Spearman", "judge mean", "mean (method)"):  # fmt: skip
        table.add_column(heading)
    for sid, one in found.items():
        figures = one.agreement
        estimate = one.estimate
        mean = raw = "—"
        if estimate is not None:
            bounds = f"[{estimate.low:.3f}, {estimate.high:.3f}]"
            mean = f"{estimate.mean:.3f} {bounds} ({estimate.method})"
            raw = f"{estimate.raw_mean:.3f}"
        if figures.not_enough is not None:
            table.add_row(sid, f"{one.labelled}/{one.scored}", figures.not_enough, "", "", "", "",
                          raw, mean)  # fmt: skip
            continue
        table.add_row(
            sid,
            f"{one.labelled}/{one.scored}",
            _figure(figures.balanced_accuracy),
            _figure(figures.kappa),
            _figure(figures.auroc),
            _figure(figures.best_threshold),
            _figure(figures.spearman),
            raw,
            mean,
        )
    return table


def trials_table(found: Mapping[str, TrialSummary]) -> Table:
    """Each scorer's agreement with itself over repeated trials (``--trials K``)."""
    table = Table(title="the judge against itself (repeated trials; docs/trust.md)")
    for heading in ("scorer", "trials", "items", "self-consistency", "spread (mean, max)",
                    "mean [95 % with the judge's noise]"):  # fmt: skip
        table.add_column(heading, justify="left" if heading == "scorer" else "right")
    for sid, one in found.items():
        table.add_row(
            Text(sid),
            str(one.trials),
            str(one.items),
            f"{one.self_consistency:.1%}",
            f"{one.mean_spread:.4f}, {one.max_spread:.4f}",
            f"{one.mean.value:.4f} [{one.mean.low:.4f}, {one.mean.high:.4f}]",
        )
    return table


def regressions_table(regressions: Sequence[ScoreRegression]) -> Table:
    """The items whose score dropped most from run A to run B (from ``Store.compare``)."""
    table = Table(title="items that regressed most")
    for column in ("item", "scorer", "A", "B", "change"):
        table.add_column(column, justify="right" if column in ("A", "B", "change") else "left")
    for r in regressions:
        table.add_row(
            Text(r.item_id),
            Text(r.scorer_id),
            score_text(r.score_a),
            score_text(r.score_b),
            format_change(r.delta),
        )
    return table


def correlation_table(found: Mapping[str, Any]) -> Table:
    """Pearson's r and Spearman's rho of each scorer's scores against a human label.

    Args:
        found: :func:`scorekit.cli.correlation.agreement`'s data (as stored with a run); a
            correlation of ``None`` (fewer than two pairs, a constant sequence) shows ``—``.
    """
    table = Table(title=Text(f"agreement with {found.get('column')!r}"))
    for name in ("scorer", "pairs", "pearson", "spearman"):
        table.add_column(name, justify="left" if name == "scorer" else "right")
    for scorer_id, figures in dict(found.get("scorers") or {}).items():
        table.add_row(
            Text(str(scorer_id)),
            str(figures.get("pairs", 0)),
            score_text(figures.get("pearson")),
            score_text(figures.get("spearman")),
        )
    return table


def _option_text(name: str, required: bool, default: Any) -> str:
    if required:
        return f"{name} (required)"
    if default is None:  # no default value: the option is simply left out
        return f"{name} (optional)"
    return f"{name}={default!r}"


def scorers_table(entries: Sequence[ScorerEntry], broken: Sequence[tuple[str, str]] = ()) -> Table:
    """One row per registered scorer: name, id, kind, options with defaults, what it measures.

    Args:
        entries: the scorers that load.
        broken: (name, error) of registered scorers that do not (a broken plugin): listed
            with kind ``broken`` and the error, so one bad package hides no other scorer.
    """
    table = Table(title="scorers")
    for column in ("name", "id", "kind", "options (default)", "measures"):
        table.add_column(column)
    for entry in entries:
        options = [_option_text(opt.name, opt.required, opt.default) for opt in entry.options()]
        table.add_row(
            Text(entry.name),
            Text(entry.scorer_id or "—"),
            entry.kind,
            Text("\n".join(options)),
            Text(entry.summary),
        )
    for name, error in broken:
        table.add_row(Text(name), "—", "broken", "—", Text(error))
    return table


def providers_table(providers: Sequence[Provider]) -> Table:
    """One row per judge provider: prefix, endpoint, API-key variables, output mode, notes."""
    table = Table(title="judge providers (--model <provider>/<model>)")
    for column in ("provider", "endpoint", "API key", "structured output", "notes"):
        table.add_column(column)
    for row in providers:
        if row.protocol in ("local", "test"):
            endpoint = "in-process"
        else:
            endpoint = row.base_url or " or ".join(row.base_url_vars)
        keys = " / ".join(row.api_key_env) or "-"
        if row.api_key_env and not row.key_required:
            keys += " (optional)"
        table.add_row(row.name, endpoint, keys, row.mode, Text(row.note))
    return table
