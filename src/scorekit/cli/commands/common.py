"""What every command shares: the Typer ``app``, the two consoles, errors → exit codes."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from scorekit.cli import exit_codes
from scorekit.errors import ConfigError, ScorekitError, StoreError
from scorekit.evals.gates import resolve_scorer_keys
from scorekit.store import Store
from scorekit.store.tables import OLDER_SCHEMA

__all__ = [
    "DbOption",
    "ScorerOptions",
    "Scorers",
    "app",
    "err",
    "fail",
    "open_store",
    "out",
    "scorer_numbers",
]

app = typer.Typer(
    name="scorekit",
    help="Score LLM, agent and RAG outputs (a Python port of Mastra's evals scorers).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DbOption = Annotated[
    str | None,
    typer.Option(help="Results database: SQLAlchemy URL or SQLite file [.scorekit/scorekit.db]"),
]
Scorers = Annotated[
    list[str] | None,
    typer.Option(
        "--scorer",
        "-s",
        metavar="NAME",
        help="Scorer: a name from `scorekit scorers`, or module:factory (repeatable)",
    ),
]
"""``--scorer/-s``, repeatable: the commands that score (``run``, ``score-traces``)."""
ScorerOptions = Annotated[
    list[str] | None,
    typer.Option(
        "--option", "-o", metavar="[SCORER:]KEY=VALUE", help="Scorer option, read as JSON"
    ),
]
"""``--option/-o``, repeatable: a scorer option (``[scorer:]key=value``, the value JSON)."""


def out() -> Console:
    """The console of results (stdout), made per use so ``COLUMNS`` is read when it runs."""
    # off a terminal (pipes, CI logs) tables get room instead of cutting numbers to "0.55…"
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=200)
    return console


def err() -> Console:
    """The console of notes and errors (stderr)."""
    return Console(stderr=True, soft_wrap=True)


MAX_ERROR_CHARS = 2000
"""Characters of one error message printed; a longer one (a huge value echoed back) is cut."""


def fail(exc: BaseException, code: int = exit_codes.USAGE) -> typer.Exit:
    """Print ``error: <exc>`` on stderr; return the ``typer.Exit`` to raise (default 2).

    A message over :data:`MAX_ERROR_CHARS` characters is cut there, saying how much was left.
    """
    text = str(exc)
    if len(text) > MAX_ERROR_CHARS:
        text = f"{text[:MAX_ERROR_CHARS]}… ({len(text) - MAX_ERROR_CHARS:,} more characters)"
    err().print(f"[red]error:[/red] {escape(text)}")
    return typer.Exit(code)


def open_store(db: str | None, *, create: bool = False) -> Store:
    """Open the store of a command; a reading command (``create=False``) opens it read-only.

    A reading command never makes a file and never writes its data: it reads a database on a
    read-only file system too. One exception: a database made by an older scorekit, whose
    file can be written, first gains the columns it lacks (what any writing command would do
    to it), and the command says so on stderr; a read-only one is refused, saying how to
    upgrade it.

    Raises:
        typer.Exit: 2, the database cannot be opened or (reading) does not exist.
    """
    try:
        return Store(db, create=create, read_only=not create)
    except StoreError as exc:
        if create or OLDER_SCHEMA not in str(exc):
            raise fail(exc) from exc
        try:
            with Store(db, create=False):  # adds the missing columns; refuses a read-only file
                pass
        except ScorekitError:
            raise fail(exc) from exc
        err().print(
            "note: the database was made by an older scorekit; its tables gained the columns "
            "this version reads"
        )
    except ScorekitError as exc:
        raise fail(exc) from exc
    try:
        return Store(db, create=False, read_only=True)
    except ScorekitError as exc:
        raise fail(exc) from exc


def scorer_numbers(
    given: Sequence[str], scorer_ids: Sequence[str], *, field: str
) -> dict[str, float]:
    """``SCORER=NUMBER`` options as scorer id → number (a scorer named by id or registry name).

    Raises:
        ConfigError: an entry is not ``SCORER=NUMBER`` or names no scorer of the run
            (``field=field``).
    """
    raw: dict[str, float] = {}
    for entry in given:
        name, sep, value = entry.partition("=")
        try:
            number = float(value)
        except ValueError:
            number, sep = math.nan, ""
        if not sep or not name or not math.isfinite(number):
            raise ConfigError(f"--{field} takes SCORER=NUMBER, not {entry!r}", field=field)
        raw[name] = number
    return resolve_scorer_keys(raw, list(scorer_ids), field=field)
