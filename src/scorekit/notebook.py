"""HTML for notebooks: table cells, score colours, and the ``_repr_html_`` of one result.

Jupyter shows a value through its ``_repr_html_``. A single result renders as a small table
(its score, status, reason and error with the judge's raw reply); a run's table
(:meth:`scorekit.evals.result.EvalRunResult._repr_html_`) is built from the same cells. Scores
are coloured from red (0) to green (1). All text from data is HTML-escaped; the HTML is
self-contained (inline styles, no scripts, no network). A ground-floor module: it imports
nothing else of scorekit (results are read through the :class:`Shown` protocol).
"""

from __future__ import annotations

from html import escape
from typing import Any, Protocol

__all__ = [
    "MAX_ITEMS",
    "TABLE",
    "Shown",
    "cell",
    "dollars_text",
    "head",
    "result_html",
    "score_colour",
    "score_text",
    "short",
]


class _ShownError(Protocol):
    type: str
    message: str
    step: str | None
    raw_output: str | None


class Shown(Protocol):
    """What :func:`result_html` reads of a result (:class:`scorekit.results.ScorerRunResult`)."""

    @property
    def scorer_id(self) -> str:
        """The scorer's id."""

    @property
    def status(self) -> str:
        """``ok``, ``skipped`` or ``error``."""

    @property
    def score(self) -> float | None:
        """The score, ``None`` when not ``ok``."""

    @property
    def reason(self) -> str | None:
        """The reason, if any."""

    @property
    def error(self) -> _ShownError | None:
        """The error of an ``error`` result."""


MAX_ITEMS = 10
"""Items listed under a run's summary (the lowest-scoring ``ok`` ones, then the others)."""

TABLE = 'style="border-collapse:collapse;font-family:sans-serif;font-size:13px"'
_CELL = 'style="border:1px solid #ccc;padding:2px 6px;text-align:{align}"'
_MAX_TEXT = 300  # characters of a reason or error shown


def score_colour(score: float | None) -> str:
    """A background colour for a score in [0, 1]: red at 0, yellow at 0.5, green at 1.

    ``None`` (no score) is grey; scores outside [0, 1] are clamped.

    Example:
        >>> score_colour(0.0), score_colour(1.0), score_colour(None)
        ('hsl(0, 70%, 80%)', 'hsl(120, 70%, 80%)', '#eee')
    """
    if score is None:
        return "#eee"
    share = min(max(score, 0.0), 1.0)
    return f"hsl({round(share * 120)}, 70%, 80%)"


def short(value: Any) -> str:
    """``value`` as text (``repr`` unless a string), cut to 300 characters with an ellipsis."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def cell(value: Any, *, align: str = "left", colour: str | None = None) -> str:
    """A ``<td>`` of ``str(value)``, escaped, aligned, with an optional background colour."""
    style = _CELL.format(align=align)
    if colour is not None:
        style = style[:-1] + f';background:{colour}"'
    return f"<td {style}>{escape(str(value))}</td>"


def head(*names: str) -> str:
    """A header row of ``names``, escaped."""
    cells = "".join(f"<th {_CELL.format(align='left')}>{escape(n)}</th>" for n in names)
    return f"<tr>{cells}</tr>"


def score_text(score: float | None, digits: int = 4) -> str:
    """A score or a mean as every view shows it: ``digits`` decimals, ``—`` for none.

    The one formatter of the terminal, the notebook, the CI summaries, the report and the
    viewer (their ``number`` template filter).

    Example:
        >>> score_text(0.625), score_text(None), score_text(0.625, 2)
        ('0.6250', '—', '0.62')
    """
    return "—" if score is None else f"{score:.{digits}f}"


def dollars_text(amount: float | None) -> str:
    """Money in US dollars as every view shows it.

    Cents above a dollar, four decimals below, ``<$0.0001`` for a positive amount that rounds
    to nothing, ``—`` for unknown.

    Example:
        >>> dollars_text(12.345), dollars_text(0.00425), dollars_text(0.0), dollars_text(None)
        ('$12.35', '$0.0043', '$0', '—')
        >>> dollars_text(0.00001)
        '<$0.0001'
    """
    if amount is None:
        return "—"
    if amount == 0:
        return "$0"
    if amount >= 1:
        return f"${amount:,.2f}"
    if amount < 0.00005:
        return "<$0.0001"
    return f"${amount:.4f}"


def result_html(result: Shown) -> str:
    """One scorer run result as an HTML table: scorer, status, score, reason, error."""
    rows = [
        ("scorer", result.scorer_id, None),
        ("status", result.status, None),
        ("score", score_text(result.score), score_colour(result.score)),
    ]
    if result.reason is not None:
        rows.append(("reason", short(result.reason), None))
    if result.error is not None:
        where = f" (step {result.error.step})" if result.error.step else ""
        rows.append(("error", short(f"{result.error.type}{where}: {result.error.message}"), None))
        if result.error.raw_output is not None:
            rows.append(("judge's raw reply", short(result.error.raw_output), None))
    body = "".join(f"<tr>{cell(k)}{cell(v, colour=c)}</tr>" for k, v, c in rows)
    return f"<table {TABLE}>{body}</table>"
