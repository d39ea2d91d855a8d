"""Evaluation data in and out of files and DataFrames.

- :mod:`~scorekit.datasets.files`: JSON Lines, JSON, CSV and TSV files read as item records;
- :mod:`~scorekit.datasets.frames`: pandas DataFrames as a run's data, results as frames.
"""

from __future__ import annotations

__all__: list[str] = []  # nothing re-exported: import from the modules named above
