"""The figures of a variant run, the printed tables and the machine-readable results.

Per task and variant (every per-row figure is averaged over all the rows tried, errors
included: what they spent counts):

* ``ba``, ``kappa``, ``auroc``: balanced accuracy, Cohen's κ and AUROC of the oriented score
  against the human labels, over the rows scored (``ok``);
* ``error``: share of rows whose result is ``error``; ``skip``: share ``skipped``;
* ``calls``, ``prompt_tok``, ``compl_tok``: judge calls and tokens per row;
* ``s_row``, ``cpu_row``: wall and CPU seconds per row;
* ``same``: run-to-run agreement, the share of the repeated rows given the same predicted
  label by both runs (``seed`` and ``seed + 1``), over ``rep`` rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from judge_quality.metrics import auroc, balanced_accuracy, cohen_kappa, same_label_share
from judge_quality.runner import Outcome, VariantRun

__all__ = [
    "COLUMNS",
    "PROBE_COLUMNS",
    "figures",
    "format_probe_table",
    "format_table",
    "write_json",
]

COLUMNS = (
    "task", "variant", "rows", "pos", "ba", "kappa", "auroc", "error", "skip", "calls",
    "prompt_tok", "compl_tok", "s_row", "cpu_row", "same", "rep",
)  # fmt: skip
"""The table's columns, in order."""


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def figures(run: VariantRun) -> dict[str, Any]:
    """The figures of one variant run (``None`` where undefined), keyed as :data:`COLUMNS`."""
    done = [o for o in run.outcomes if o.status == "ok"]
    labels = [o.label for o in done]
    predicted = [o.predicted for o in done if o.predicted is not None]
    scores = [o.score for o in done if o.score is not None]
    rows = run.outcomes
    first = [o.predicted for o in rows[: len(run.repeat)]]
    again = [o.predicted for o in run.repeat]
    n = len(rows)
    return {
        "task": run.task,
        "variant": run.variant if run.skipped is None else f"{run.variant} (skipped)",
        "rows": n,
        "pos": sum(o.label for o in rows),
        "ba": balanced_accuracy(labels, predicted),
        "kappa": cohen_kappa(labels, predicted),
        "auroc": auroc(labels, scores),
        "error": sum(o.status == "error" for o in rows) / n if n else None,
        "skip": sum(o.status == "skipped" for o in rows) / n if n else None,
        "calls": _mean([o.calls for o in rows]),
        "prompt_tok": _mean([o.input_tokens for o in rows]),
        "compl_tok": _mean([o.output_tokens for o in rows]),
        "s_row": _mean([o.wall_s for o in rows]),
        "cpu_row": _mean([o.cpu_s for o in rows]),
        "same": same_label_share(first, again) if run.repeat else None,
        "rep": len(run.repeat),
    }


def _cell(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.0f}" if abs(value) >= 100 else f"{value:.2f}"
    return str(value)


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] = COLUMNS) -> str:
    """A Markdown table of figure dicts, one line per task and variant."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


PROBE_COLUMNS = (
    "variant", "factor", "rows", "auroc", "d_auroc", "d_lo", "d_hi", "ba_label", "ba_expected",
    "labels", "mass", "prompt_tok", "evaluated", "s_row",
)  # fmt: skip
"""The probe table's columns (:func:`judge_quality.probe.probe_figures`)."""


def format_probe_table(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table of the label probe's figures, one line per variant."""
    return format_table(rows, PROBE_COLUMNS)


def _outcome(o: Outcome) -> dict[str, Any]:
    return asdict(o)


def write_json(path: Path, meta: dict[str, Any], runs: Sequence[VariantRun]) -> None:
    """Write the run's settings, figures and per-row outcomes (ids, no row text) as JSON."""
    data = {
        "meta": meta,
        "figures": [figures(r) for r in runs],
        "runs": [
            {
                "task": r.task,
                "variant": r.variant,
                "skipped": r.skipped,
                "outcomes": [_outcome(o) for o in r.outcomes],
                "repeat": [_outcome(o) for o in r.repeat],
            }
            for r in runs
        ],
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
