"""Render one stored run as a self-contained HTML page.

The page reads only the store. It makes no network request: CSS, the few lines of JavaScript
(a filter box) and the SVG histograms are inline. Every text that comes from data, the
application or a judge is escaped by Jinja2's autoescaping; nothing is marked safe.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from jinja2 import Environment
from pydantic_core import to_jsonable_python

from scorekit.errors import ConfigError
from scorekit.judge.spending import stored_budget_text
from scorekit.judge_grade import judge_lines
from scorekit.report.costs import cost_line, scorer_costs, stored_run_cost
from scorekit.report.formats import pretty, templates
from scorekit.report.histogram import Bin, bins_of
from scorekit.store.alignments import latest_alignments
from scorekit.store.labels import has_labels
from scorekit.store.records import ResultRecord, RunRecord, stored_error_limits
from scorekit.store.store import Store
from scorekit.summary import ScoreSummary
from scorekit.trust.alignment import align, stored_alignment_notes
from scorekit.trust.min_agreement import stored_agreement_failures
from scorekit.verdict import error_rate, format_rate, scorer_failures

__all__ = [
    "SUB_RESULT_KEYS",
    "ItemView",
    "SubResult",
    "check_report_target",
    "render_report",
    "write_report",
]

DEFAULT_MAX_ITEMS = 2000
"""Items shown in the per-item table unless the caller asks for another number."""


@dataclass
class ItemView:
    """One item of the per-item table: its data and its results by scorer id."""

    item_id: str
    first: ResultRecord
    results: dict[str, ResultRecord] = field(default_factory=dict)

    @property
    def lowest(self) -> float | None:
        """The lowest ``ok`` score of the item (for sorting), ``None`` when it has none."""
        scores = [r.score for r in self.results.values() if r.score is not None]
        return min(scores) if scores else None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable_python(value, fallback=repr), ensure_ascii=False)


def _short(value: Any, limit: int = 140) -> str:
    text = " ".join(_text(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


SUB_RESULT_KEYS = ("accuracy", "efficiency", "blacklist", "tool_failures")
"""Step-result keys holding a scorer's parts (the unified trajectory scorer's sub-results)."""


@dataclass(frozen=True)
class SubResult:
    """One row of a result's parts table.

    Its part's name (indented by nesting depth), score, and other fields in short form.
    """

    name: str
    depth: int
    score: float | None
    details: str


def _sub_results(step_result: Any) -> list[SubResult]:
    """The parts of a step result, in order, nested results depth first.

    ``[]`` when it has none; else each key of :data:`SUB_RESULT_KEYS` whose value has a
    ``score``, and each entry of ``nested`` (``{"step_name", "score", ...parts, "nested"?}``).
    """
    value = to_jsonable_python(step_result, fallback=repr)
    rows: list[SubResult] = []
    stack: list[tuple[Any, int, str | None]] = [(value, 0, None)]
    while stack:
        current, depth, title = stack.pop()
        if not isinstance(current, dict):
            continue
        if title is not None:
            rows.append(SubResult(title, depth - 1, _score_of(current), ""))
        for key in SUB_RESULT_KEYS:
            part = current.get(key)
            if isinstance(part, dict) and "score" in part:
                rest = {k: v for k, v in part.items() if k != "score"}
                rows.append(SubResult(key, depth, _score_of(part), _short(rest, 200)))
        nested = current.get("nested")
        if isinstance(nested, list):
            for entry in reversed(nested):
                if isinstance(entry, dict):
                    stack.append((entry, depth + 1, f"nested: {entry.get('step_name', '?')}"))
    return rows


def _score_of(value: dict[str, Any]) -> float | None:
    score = value.get("score")
    return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None


def _items(records: Iterable[ResultRecord], max_items: int) -> list[ItemView]:
    views: dict[str, ItemView] = {}
    for record in records:
        view = views.get(record.item_id)
        if view is None:
            if len(views) >= max_items:
                continue
            view = views[record.item_id] = ItemView(record.item_id, record)
        view.results[record.scorer_id] = record
    return list(views.values())


def _environment() -> Environment:
    env = templates("scorekit.report")
    env.filters.update(short=_short, text=_text, subresults=_sub_results)
    return env


def render_report(store: Store, run_ref: str, *, max_items: int = DEFAULT_MAX_ITEMS) -> str:
    """Return the HTML report of a stored run.

    Args:
        store: the store holding the run.
        run_ref: the run's id, a unique prefix of it, or ``"latest"``.
        max_items: the most items shown in the per-item table (>= 0); summary and
            histograms always cover the whole run.

    Returns:
        One self-contained HTML document.

    Raises:
        StoreError: no such run, or the database cannot be read.
    """
    run: RunRecord = store.get_run(run_ref)
    # the summaries every view shows (Store.run_summaries), histograms included
    stats: dict[str, ScoreSummary] = store.run_summaries(run)
    bins: dict[str, list[Bin]] = {sid: bins_of(s.histogram()) for sid, s in stats.items()}
    items = _items(store.results(run.id), max_items)
    total = store.item_count(run.id)
    names = {str(s["id"]): str(s.get("name") or s["id"]) for s in run.scorers}
    ended = run.finished_at or datetime.now(timezone.utc)
    limits = stored_error_limits(run.config)
    # the gates the verdict used (evals.gates), per scorer; an unfinished run has no verdict
    failures = (
        scorer_failures(stats, run.thresholds, limits, stored_agreement_failures(run.config))
        if run.status == "finished"
        else {}
    )
    trust = align(store, run.id) if has_labels(store, run.id) else {}
    notes = stored_alignment_notes(latest_alignments(store, run), own=run.id)
    cost = stored_run_cost(run, store.scorer_usage)
    template = _environment().get_template("report.html.j2")
    return template.render(
        costs=scorer_costs(cost, run.scorers),
        cost_line=cost_line(cost, run.scorers),
        budget_stop=stored_budget_text(run.config),
        trust=trust,
        trust_notes=notes,
        judges=judge_lines(run.scorers),
        run=run,
        stats=stats,
        failures=failures,
        error_limits=limits,
        error_rates={sid: format_rate(error_rate(s)) for sid, s in stats.items()},
        bins=bins,
        names=names,
        items=items,
        total_items=total,
        duration_s=(ended - run.started_at).total_seconds(),
        generated=datetime.now(timezone.utc),
        config=pretty(run.config),
    )


_REPORT_MARKS = ('<meta name="generator" content="scorekit">', "<title>scorekit · ")
"""What the head of a scorekit report holds (the second: reports written before the first)."""


def check_report_target(path: str | Path, *, option: str = "report") -> None:
    """Refuse to overwrite a file that is not a scorekit report.

    A report is written over an earlier report of the same name (a CI job's), never over
    another file that happens to have its name (notes, another tool's page).

    Args:
        path: where the report would go.
        option: the option that named it, for the error.

    Raises:
        ConfigError: ``path`` is an existing, non-empty file whose first 4 KiB hold no mark of a
            scorekit report (``field=option``).
    """
    target = Path(path)
    if not target.is_file() or target.stat().st_size == 0:
        return
    try:
        with target.open("rb") as handle:
            head = handle.read(4096).decode("utf-8", errors="replace")
    except OSError:
        return  # unreadable: writing it will say why
    if not any(mark in head for mark in _REPORT_MARKS):
        raise ConfigError(
            f"--{option} {path} exists and is not a scorekit report; it is left as it is: "
            "remove it or choose another file",
            field=option,
        )


def write_report(
    store: Store, run_ref: str, path: str | Path, *, max_items: int = DEFAULT_MAX_ITEMS
) -> Path:
    """Write the HTML report of a stored run to ``path`` (folders are created).

    Returns:
        The path written.

    Raises:
        ConfigError: ``path`` is a file that is not a scorekit report
            (:func:`check_report_target`).
        StoreError: no such run, or the database cannot be read.
        OSError: the file cannot be written.
    """
    check_report_target(path, option="output")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_report(store, run_ref, max_items=max_items), encoding="utf-8")
    return target
