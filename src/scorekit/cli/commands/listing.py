"""``scorekit scorers`` and ``scorekit judges``: what can score, and what can judge.

Also the ``--source`` option of ``scorekit runs`` (:data:`SourceOption`, :func:`run_source`):
which runs to list, by where their items came from.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Annotated

import typer

from scorekit.cli import console
from scorekit.cli.commands.common import app, out
from scorekit.errors import ConfigError
from scorekit.scorers.registry import ENTRY_POINT_GROUP, SCORERS, ScorerEntry, get_entry
from scorekit.store.records import RUN_SOURCES, RunSource

__all__ = ["SourceOption", "judges", "registered_scorers", "run_source", "scorers"]

SourceOption = Annotated[
    str | None,
    typer.Option(
        "--source",
        metavar="live|trace|test",
        help="Only runs of this source: live (sampled calls), trace (traces), test (datasets)",
    ),
]


def run_source(value: str | None) -> RunSource | None:
    """The stored source a ``--source`` value names (``live`` → ``LIVE``), ``None`` for all.

    Raises:
        ConfigError: not one of live, trace, test (any case; ``field="source"``).
    """
    if value is None:
        return None
    for source in RUN_SOURCES:
        if value.strip().upper() == source:
            return source
    raise ConfigError(f"--source must be live, trace or test, not {value!r}", field="source")


def registered_scorers() -> tuple[list[ScorerEntry], list[tuple[str, str]]]:
    """Every registered scorer that loads, and (name, error) of each one that does not.

    The built-ins, then the entry points of other packages by name; a broken entry point is
    listed as broken, never hiding the others.
    """
    entries = list(SCORERS.values())
    broken: list[tuple[str, str]] = []
    names = sorted({point.name for point in entry_points(group=ENTRY_POINT_GROUP)})
    for name in names:
        if name in SCORERS:
            continue
        try:
            entries.append(get_entry(name))
        except ConfigError as exc:
            broken.append((name, str(exc)))
    return entries, broken


@app.command()
def scorers() -> None:
    """List the registered scorers (built-in and installed plugins) with options and defaults."""
    entries, broken = registered_scorers()
    out().print(console.scorers_table(entries, broken))


@app.command()
def judges() -> None:
    """List the judge providers: model-string prefix, endpoint, API-key variable, output mode."""
    from scorekit.judge.providers import list_providers

    out().print(console.providers_table(list_providers()))
