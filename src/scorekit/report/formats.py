"""How the HTML views (the static report, the web viewer) write values: text, scores, bands.

One set of filters for every template, so a score or a stored value reads the same in the
report and in the viewer. They return plain strings: the templates' autoescaping escapes them.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import to_jsonable_python

__all__ = ["band", "number", "pretty"]


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


def number(value: float | None, digits: int = 4) -> str:
    """A score with ``digits`` decimals; ``—`` for none."""
    return "—" if value is None else f"{value:.{digits}f}"


def band(score: float | None) -> str:
    """The CSS class of a score: ``high`` (>= 0.75), ``mid`` (>= 0.4), ``low``, ``none``."""
    if score is None:
        return "none"
    if score >= 0.75:
        return "high"
    return "mid" if score >= 0.4 else "low"
