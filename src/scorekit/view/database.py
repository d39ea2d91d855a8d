"""The viewer's database: the results store opened read-only.

The viewer never creates, upgrades or writes a database. A SQLite file is opened through a
``mode=ro`` URI with ``PRAGMA query_only`` on every connection, so even a bug could not write
to it; a PostgreSQL connection starts with ``default_transaction_read_only``. Other databases
are only ever sent ``SELECT`` statements.

Unlike :class:`~scorekit.store.Store`, nothing here adds the columns a database made by an older
scorekit lacks (that is a write): such a database is refused with a message saying how to
upgrade it (any reading command, ``scorekit runs``, does).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, inspect, select
from sqlalchemy.exc import SQLAlchemyError

from scorekit.errors import StoreError
from scorekit.store.engines import Database, short_error
from scorekit.store.records import RunRecord
from scorekit.store.run_refs import find_run
from scorekit.store.tables import results, runs

__all__ = ["ViewDatabase"]


class ViewDatabase(Database):
    """A results database opened read-only for the viewer.

    Args:
        db: ``None`` (the default SQLite file ``.scorekit/scorekit.db``), a path to a SQLite
            file, or any SQLAlchemy URL, as ``--db`` takes it.

    Raises:
        StoreError: the file does not exist or is a directory, the database cannot be read, it
            holds no scorekit tables, or it was made by an older scorekit (missing columns);
            the message holds the URL with any password masked.

    Example:
        >>> with ViewDatabase(".scorekit/scorekit.db") as database:  # doctest: +SKIP
        ...     with database.connect() as conn:
        ...         database.find_run(conn, "latest").name
        'nightly'
    """

    _opening = "read"

    def __init__(self, db: str | Path | None = None) -> None:
        super().__init__(db, create=False, read_only=True)
        self.source = db
        """What the database was opened from (``--db``), for a second read-only connection."""

    def _prepare(self, create: bool) -> None:
        """Refuse a database without scorekit's tables or with an older schema (no writes)."""
        found = inspect(self._engine)
        names = set(found.get_table_names())
        missing = {runs.name, results.name} - names
        if missing:
            raise StoreError(
                f"the database holds no scorekit runs (no {' or '.join(sorted(missing))} "
                "table): is it the right file?"
            )
        for table in (runs, results):
            have = {c["name"] for c in found.get_columns(table.name)}
            lacking = [c.name for c in table.columns if c.name not in have]
            if lacking:
                raise StoreError(
                    f"the database was made by an older scorekit (the {table.name} table lacks "
                    f"{', '.join(lacking)}); the viewer never writes, so upgrade it once with "
                    "`scorekit runs --db ...`"
                )
        with self._engine.connect() as conn:  # a file that is not a database fails here
            conn.execute(select(runs.c.id).limit(1)).all()

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A connection for one page's reads.

        Raises:
            StoreError: the database cannot be read (the cause without the SQL).
        """
        try:
            with self._engine.connect() as conn:
                yield conn
        except SQLAlchemyError as exc:
            raise StoreError(
                f"reading {self.url} failed: {short_error(exc)}", url=self.url
            ) from exc

    def find_run(self, conn: Connection, ref: str) -> RunRecord:
        """One run by its id, a unique prefix of it, its name, or ``"latest"`` (as the CLI).

        Raises:
            StoreError: no run matches, or several do (the message lists them).
        """
        return find_run(conn, ref, self.url)
