"""Which database a ``--db`` / ``store=`` value names, the engine that opens it, its lifecycle.

:class:`Database` is the base of the Store and of the viewer's read-only database.

Two backends are supported and tested: SQLite (the default, a file under the working
directory) and PostgreSQL (``postgresql://`` or ``postgresql+psycopg://`` URLs, through the
psycopg 3 driver of the ``scorekit[postgres]`` extra). Any other SQLAlchemy URL is handed to
SQLAlchemy as it is.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, Table, bindparam, create_engine, delete, event, insert
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError
from typing_extensions import Self

from scorekit.errors import StoreError

__all__ = [
    "DEFAULT_DB_PATH",
    "POSTGRES_EXTRA",
    "Database",
    "driver_url",
    "open_engine",
    "resolve_url",
    "short_error",
]

DEFAULT_DB_PATH = Path(".scorekit") / "scorekit.db"
"""Where the default SQLite database lives, relative to the working directory."""

POSTGRES_EXTRA = "pip install 'scorekit[postgres]'"
"""What installs the PostgreSQL driver."""


def _sqlite_path(db: str | Path | None) -> Path | None:
    """The file of a SQLite ``db`` value, ``None`` for in-memory and other databases."""
    if db is None:
        return DEFAULT_DB_PATH
    if isinstance(db, Path) or "://" not in db:
        return Path(db)
    try:
        url = make_url(db)
    except ArgumentError:
        return None
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(url.database)
    return None


def resolve_url(db: str | Path | None, *, create: bool = True) -> str:
    """Turn a ``--db`` / ``store=`` value into a SQLAlchemy URL.

    Args:
        db: ``None`` for the default SQLite file, a filesystem path (``str`` without ``://``,
            or a ``Path``) for a SQLite file there, or a SQLAlchemy URL
            (``postgresql://user:password@host:5432/db``).
        create: for a SQLite file, create its directory when missing; ``False``: the file
            must exist (reading commands never create a database).

    Returns:
        The URL, as given for URLs.

    Raises:
        StoreError: the URL cannot be parsed; the SQLite file's directory cannot be made (a
            file in the way, no permission); ``create=False`` and the SQLite file does not
            exist or is a directory.
    """
    path = _sqlite_path(db)
    if db is not None and not isinstance(db, Path) and "://" in db:
        try:
            make_url(db)
        except ArgumentError as exc:
            raise StoreError(f"not a database URL: {db!r} ({exc})") from exc
    if path is not None:
        if path.is_dir():
            raise StoreError(f"the database {path} is a directory; give a file name")
        if not create and not path.exists():
            raise StoreError(f"no database at {path} (nothing is stored there yet)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot make the folder of the database {path}: {exc.strerror or exc}"
            ) from exc
    if db is None or isinstance(db, Path) or "://" not in db:
        return f"sqlite:///{path}"
    return db


def driver_url(url: str | URL) -> URL:
    """The URL with the driver scorekit uses for its backend.

    ``postgresql://`` (no driver named) becomes ``postgresql+psycopg://``: psycopg 3, the
    driver of the ``scorekit[postgres]`` extra (SQLAlchemy's own default would be psycopg2).
    Other URLs are returned unchanged.

    Args:
        url: a SQLAlchemy URL.

    Returns:
        The parsed URL.

    Raises:
        StoreError: a PostgreSQL URL whose driver is psycopg while psycopg is not installed;
            the message names ``pip install 'scorekit[postgres]'`` (callers add the URL).
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        return parsed
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_driver_name() == "psycopg" and importlib.util.find_spec("psycopg") is None:
        raise StoreError(
            f"a PostgreSQL database needs the psycopg 3 driver, which is not installed: "
            f"{POSTGRES_EXTRA}",
            url=parsed.render_as_string(hide_password=True),
        )
    return parsed


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the CLI read a run while run_evals writes it; NORMAL sync is durable across
    # process crashes (only an OS crash can lose the last transactions)
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _set_sqlite_read_only(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA query_only=ON")
    cursor.execute("PRAGMA busy_timeout=30000")  # a run being written holds short locks
    cursor.close()


def open_engine(url: str | URL, *, read_only: bool = False) -> Engine:
    """Create the engine the store reads and writes through (no connection made yet).

    SQLite connections get WAL, ``synchronous=NORMAL``, foreign keys and a 30 s busy
    timeout; PostgreSQL goes through psycopg 3 (see :func:`driver_url`).

    Args:
        url: a SQLAlchemy URL (:func:`resolve_url`'s result).
        read_only: an engine that cannot write (the viewer, the reading commands): a SQLite
            file is opened through a ``mode=ro`` URI (never created; ``immutable=1`` too where
            its folder cannot be written) with ``PRAGMA query_only`` on every connection; a
            PostgreSQL connection starts with ``default_transaction_read_only``; other
            backends are opened as they are.

    Raises:
        StoreError: the PostgreSQL driver is missing (see :func:`driver_url`); ``read_only``
            and an in-memory SQLite database.
        ImportError: another backend's driver is missing.
        sqlalchemy.exc.ArgumentError: SQLAlchemy knows no such backend.
    """
    parsed = driver_url(url)
    backend = parsed.get_backend_name()
    if not read_only:
        engine = create_engine(parsed)
        if backend == "sqlite":
            event.listen(engine, "connect", _set_sqlite_pragmas)
        return engine
    if backend == "sqlite":
        database = parsed.database
        if database in (None, "", ":memory:"):
            raise StoreError("a read-only database is a file, not an in-memory database")
        # a URI filename: mode=ro opens the file read-only (never creating it); where its
        # folder cannot be written (a read-only file system, a shared folder), SQLite could not
        # make the WAL index beside it either: immutable=1 reads the file as it is
        path = Path(str(database)).resolve()
        uri = f"file:{quote(str(path))}?mode=ro"
        if not os.access(path.parent, os.W_OK):
            uri += "&immutable=1"
        engine = create_engine(parsed.set(database=uri, query={"uri": "true"}))
        event.listen(engine, "connect", _set_sqlite_read_only)
        return engine
    if backend == "postgresql":
        options = {"options": "-c default_transaction_read_only=on"}
        return create_engine(parsed, connect_args=options)
    return create_engine(parsed)


def _refuse_read_only(db: str | Path | None) -> None:
    """Refuse to open for writing a SQLite file (or folder) that cannot be written.

    Raises:
        StoreError: the file, or its folder, is read-only; the message says that the
            reading commands can still read it.
    """
    path = _sqlite_path(db)
    if path is None or not path.exists():
        return
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        raise StoreError(
            f"the database {path} is read-only (its file or folder cannot be written): runs, "
            "show, compare, report and view can read it; give --db a writable place to write "
            "a run"
        )


def short_error(exc: BaseException) -> str:
    """The cause of a database error, without the SQL statement and its parameters."""
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return f"{type(exc.orig).__name__}: {exc.orig}"
    return str(exc).split("\n", 1)[0]


class Database:
    """A results database behind one engine: the URL (password masked), closing, errors.

    Subclasses (:class:`~scorekit.store.Store`, the viewer's database) check or prepare the
    schema in :meth:`_prepare`; any failure while opening becomes one :class:`StoreError`
    that holds the masked URL.

    Args:
        db: as ``--db`` takes it (see :func:`resolve_url`).
        create: a SQLite file (and its folder) may be created; ``False``: it must exist.
        read_only: open an engine that cannot write (see :func:`open_engine`).
    """

    _opening = "open"  # the verb of the error when opening fails ("cannot open the database")

    def __init__(
        self, db: str | Path | None = None, *, create: bool = True, read_only: bool = False
    ) -> None:
        url = resolve_url(db, create=create and not read_only)
        self.url = make_url(url).render_as_string(hide_password=True)
        """The database URL, password masked."""
        self.read_only = read_only
        """Whether the database is opened read-only."""
        if not read_only:
            _refuse_read_only(db)
        try:
            self._engine: Engine = open_engine(url, read_only=read_only)
            self._prepare(create)
        except StoreError as exc:  # not a scorekit database, no PostgreSQL driver: say which
            raise StoreError(f"{self.url}: {exc}", url=self.url) from exc
        except (SQLAlchemyError, ImportError) as exc:
            raise StoreError(
                f"cannot {self._opening} the database {self.url}: {short_error(exc)}",
                url=self.url,
            ) from exc

    def _prepare(self, create: bool) -> None:
        """Check (or make) the schema; called once the engine exists."""

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for the store's own modules, such as its labels)."""
        return self._engine

    def insert(
        self,
        table: Table,
        rows: Sequence[Mapping[str, Any]],
        *,
        what: str,
        replace: bool = False,
    ) -> None:
        """Insert ``rows`` into ``table`` in one transaction (none: nothing is done).

        Args:
            table: one of the store's tables.
            rows: column name → value, one mapping per row.
            what: what the rows are, for the error (``"results"``).
            replace: first delete the table's rows of the same (run, item, scorer) pairs
                (a resumed run scoring again what failed before); the table has ``run_id``,
                ``item_id`` and ``scorer_id`` columns.

        Raises:
            StoreError: the write failed; none of the rows is stored (nor deleted).
        """
        if not rows:
            return
        try:
            with self._engine.begin() as conn:
                if replace:
                    conn.execute(
                        delete(table).where(
                            table.c.run_id == bindparam("r"),
                            table.c.item_id == bindparam("i"),
                            table.c.scorer_id == bindparam("s"),
                        ),
                        [{"r": r["run_id"], "i": r["item_id"], "s": r["scorer_id"]} for r in rows],
                    )
                conn.execute(insert(table), [dict(row) for row in rows])
        except SQLAlchemyError as exc:
            raise StoreError(
                f"writing {what} failed on {self.url}: {short_error(exc)}", url=self.url
            ) from exc

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()
