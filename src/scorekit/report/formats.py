"""How the HTML views (the static report, the web viewer) write values: text, scores, bands.

One set of filters for every template, and one way to load the templates (:func:`templates`),
so a score or a stored value reads the same in the report and in the viewer. The filters
return plain strings: the templates' autoescaping escapes them.
"""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic_core import to_jsonable_python

from scorekit.notebook import dollars_text, score_text
from scorekit.verdict import format_rate

__all__ = ["BAND_LEGEND", "HIGH_BAND", "MID_BAND", "band", "pretty", "templates"]


def pretty(value: Any) -> str:
    """A stored value as text: a string as it is, anything else as indented JSON (``""``: none).

    The result is a plain string, so autoescaping escapes it (Jinja's own ``tojson`` would
    mark it safe).
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(
        to_jsonable_python(value, fallback=repr), indent=2, ensure_ascii=False, sort_keys=True
    )


HIGH_BAND = 0.75
"""The least score coloured ``high`` (green)."""
MID_BAND = 0.4
"""The least score coloured ``mid`` (amber); lower is ``low`` (red)."""
BAND_LEGEND = (
    f"Score colours: green from {HIGH_BAND}, amber from {MID_BAND}, red below; they read the "
    "raw score, so for a scorer where lower is better (hallucination, bias, toxicity) red is "
    "the good end."
)
"""What the score colours mean, as the report and the viewer state it."""


def band(score: float | None) -> str:
    """The CSS class of a score: ``high``, ``mid``, ``low`` or ``none`` (:data:`HIGH_BAND`)."""
    if score is None:
        return "none"
    if score >= HIGH_BAND:
        return "high"
    return "mid" if score >= MID_BAND else "low"


def templates(package: str) -> Environment:
    """The Jinja2 environment of ``package``'s ``templates`` folder, with these filters.

    Autoescaped, undefined names an error, blocks trimmed; the filters ``pretty``, ``number``,
    ``band``, ``rate`` (an error rate as a percentage) and ``money`` (US dollars,
    :func:`scorekit.notebook.dollars_text`); callers add their own.

    Args:
        package: the package holding a ``templates`` folder (``"scorekit.report"``).
    """
    env = Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        pretty=pretty, number=score_text, band=band, rate=format_rate, money=dollars_text
    )
    env.globals.update(band_legend=BAND_LEGEND)
    return env
