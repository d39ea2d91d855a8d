"""The progress bar of a run: what ``scorekit run`` shows, and ``run_evals(progress=...)``.

A ``rich`` progress bar on stderr: ``scoring``, the bar, items done of the total (when the data
has a length: a list, a DataFrame) and the time elapsed. ``rich`` renders it in Jupyter too
(as a live widget, with ``ipywidgets`` installed), so ``run_evals`` in a notebook shows it by
default; in a script or a test it is off unless asked for (``progress=True``).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from scorekit.errors import ConfigError

__all__ = ["check_progress", "run_progress", "total_of"]


def check_progress(progress: Any) -> bool:
    """Whether to show the bar: ``True``, ``False``, or ``None`` (in a notebook only).

    Raises:
        ConfigError: not a bool or ``None`` (``field="progress"``).
    """
    if progress is None:
        return Console(stderr=True).is_jupyter
    if not isinstance(progress, bool):
        raise ConfigError(
            f"progress must be true, false or None, not {progress!r}", field="progress"
        )
    return progress


def total_of(data: Any) -> int | None:
    """The number of items of ``data`` when it has a length (a list, a DataFrame), else ``None``."""
    try:
        return len(data)
    except TypeError:
        return None


def run_progress(console: Console | None = None) -> Progress:
    """The bar (not started), on ``console`` (default: stderr); it vanishes when the run ends."""
    return Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=True,
    )
