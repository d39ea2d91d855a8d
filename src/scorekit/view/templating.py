"""The viewer's Jinja2 environment: the page templates and the filters they format with.

Autoescaping is on for every template and nothing from data is ever marked safe: every text
from data, the application or a judge reaches the page escaped (an XSS payload shows as text).
Values become plain strings here (JSON for structured ones), and the templates print them.
"""

from __future__ import annotations

from datetime import datetime

from jinja2 import Environment

from scorekit.cli.console import usage_text
from scorekit.judge_grade import judge_lines
from scorekit.report.formats import templates
from scorekit.view.params import address

__all__ = ["environment", "rate_change", "seconds", "signed"]


def signed(value: float | None, digits: int = 4) -> str:
    """A change with its sign (``+0.1250``, ``−0.0500``, ``0.0000``); ``—`` for none."""
    if value is None:
        return "—"
    if value == 0:
        return f"{0:.{digits}f}"
    text = f"{abs(value):.{digits}f}"
    return f"+{text}" if value > 0 else f"−{text}"  # a real minus sign


def rate_change(value: float | None) -> str:
    """A change of error rate in percentage points (``+12.5 pp``); ``—`` for none."""
    if value is None:
        return "—"
    if value == 0:
        return "0 pp"
    text = f"{abs(value) * 100:.3g} pp"
    return f"+{text}" if value > 0 else f"−{text}"


def seconds(value: float) -> str:
    """A duration: ``0.42 s``, ``12.3 s``, ``4 min 05 s``, ``2 h 03 min``."""
    if value < 10:
        return f"{value:.2f} s"
    if value < 60:
        return f"{value:.1f} s"
    minutes, secs = divmod(int(value), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _when(value: datetime | None) -> str:
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def environment() -> Environment:
    """The environment of the viewer's templates (``scorekit/view/templates``), autoescaped."""
    env = templates("scorekit.view")
    env.filters.update(
        signed=signed,
        rate_change=rate_change,
        seconds=seconds,
        when=_when,
        usage=usage_text,
        judge_lines=judge_lines,
    )
    env.globals.update(address=address)
    return env
