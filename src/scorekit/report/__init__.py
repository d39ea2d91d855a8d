"""The HTML report of a stored run: one self-contained file (``scorekit report``)."""

from scorekit.report.histogram import Bin, bins_of, histogram
from scorekit.report.render import (
    DEFAULT_MAX_ITEMS,
    check_report_target,
    render_report,
    write_report,
)

__all__ = [
    "DEFAULT_MAX_ITEMS",
    "Bin",
    "bins_of",
    "check_report_target",
    "histogram",
    "render_report",
    "write_report",
]
