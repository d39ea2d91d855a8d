"""``scorekit scorers`` and ``scorekit judges``: what can score, and what can judge."""

from __future__ import annotations

from importlib.metadata import entry_points

from scorekit import console
from scorekit.commands.common import app, out
from scorekit.errors import ConfigError
from scorekit.scorers.registry import ENTRY_POINT_GROUP, SCORERS, ScorerEntry, get_entry

__all__ = ["judges", "registered_scorers", "scorers"]


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
