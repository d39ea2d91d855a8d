"""The ``scorekit`` command line: thin; it parses, calls the API and prints.

Commands (:mod:`scorekit.cli.commands`): ``run`` (a dataset with flags, or a YAML config:
:mod:`~scorekit.cli.commands.run_dataset`), ``runs``, ``show``, ``compare``, ``report`` (the
stored runs: :mod:`~scorekit.cli.commands.stored`), ``view`` (the web viewer:
:mod:`~scorekit.cli.commands.viewer`), ``score-traces``
(:mod:`~scorekit.cli.commands.score_traces`), ``scorers``, ``judges``
(:mod:`~scorekit.cli.commands.listing`), ``label`` and ``align`` (human labels and agreement:
:mod:`~scorekit.cli.commands.labelling`).

The package also holds what only the command line uses: the run plan (:mod:`~scorekit.cli.plan`)
and its YAML form (:mod:`~scorekit.cli.config`), the terminal rendering
(:mod:`~scorekit.cli.console`), the ``--out`` bookkeeping (:mod:`~scorekit.cli.run_log`), the
exit codes (:mod:`~scorekit.cli.exit_codes`) and ``--correlate``'s agreement figures
(:mod:`~scorekit.cli.correlation`).
"""

from __future__ import annotations

from scorekit.cli.commands import (
    ci_outputs,
    labelling,
    listing,
    run_dataset,
    score_traces,
    stored,
    viewer,
)
from scorekit.cli.commands.common import app

__all__ = ["app", "main"]

_COMMAND_MODULES = (ci_outputs, labelling, listing, run_dataset, score_traces, stored, viewer)
"""Imported for their side effect: each registers its commands on ``app``."""

_ORDER = (
    "run",
    "runs",
    "show",
    "compare",
    "report",
    "label",
    "align_command",
    "view",
    "score_traces_command",
    "scorers",
    "judges",
)


def _rank(name: str) -> int:
    return _ORDER.index(name) if name in _ORDER else len(_ORDER)


# `scorekit --help` lists `run` first, though the other commands were registered before it
app.registered_commands.sort(key=lambda c: _rank(getattr(c.callback, "__name__", "")))


def main() -> None:
    """Console-script entry point."""
    app()
