"""The HTML report of a stored run: one self-contained file (``scorekit report``)."""

from scorekit.report.histogram import Bin, histogram
from scorekit.report.render import DEFAULT_MAX_ITEMS, render_report, write_report

__all__ = ["DEFAULT_MAX_ITEMS", "Bin", "histogram", "render_report", "write_report"]
