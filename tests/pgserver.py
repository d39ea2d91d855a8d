"""A throw-away PostgreSQL server for the tests, started from the installed binaries.

The session's first test that asks for PostgreSQL runs ``initdb`` in a temporary folder, then
``pg_ctl start`` with the server listening on 127.0.0.1 on a free port (and its unix socket in
that folder); each test gets a database of its own, dropped after it; the server is stopped
(``pg_ctl stop -m fast``) and the folder removed when the session ends, failed or not.

initdb and postgres refuse to run as root (CI runs as root): then they run as the ``postgres``
system user that Debian's package creates (``runuser -u postgres --``), in a folder it owns.
Where no binaries are found, or the psycopg driver is missing, the PostgreSQL tests skip with
the reason.

Our own fixture rather than pytest-postgresql: a page of code, no further dependency, and
the root case (running as another user) handled here, where pytest-postgresql would need it
worked around anyway.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SKIP_REASON = (
    "no PostgreSQL binaries (initdb, pg_ctl) on PATH or under /usr/lib/postgresql/*/bin: "
    "install Debian's `postgresql` package (apt-get install postgresql)"
)
SERVER_TIMEZONE = "America/New_York"  # not UTC, so that a time read back unconverted shows


def find_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: from PATH, else the newest Debian version."""
    initdb = shutil.which("initdb")
    if initdb is not None and shutil.which("pg_ctl") is not None:
        return Path(initdb).resolve().parent
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[3]) if Path(p).parts[3].isdigit() else 0,
    )
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """One running server; :meth:`create_database` hands out databases on it."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = _free_port()
        # not under pytest's tmp folder: that one is 0700 root's, unreachable for postgres
        self.base = Path(tempfile.mkdtemp(prefix="scorekit-pg-"))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.base, user="postgres", group="postgres")
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self._as, *args], capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(
                f"{' '.join(args)} failed ({done.returncode}): {done.stderr}{done.stdout}{log}"
            )

    def start(self) -> None:
        """Run initdb and start the server (waits until it accepts connections)."""
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        )
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.base}'",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "timezone": f"'{SERVER_TIMEZONE}'",
            "max_connections": "100",
        }
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
        pg_ctl = str(self.bindir / "pg_ctl")
        self._run(pg_ctl, "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")

    def stop(self) -> None:
        """Stop the server (fast: open sessions are ended) and remove its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """The URL of a database on this server, in the form users type (no driver named)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname="postgres", autocommit=True
        ) as conn:
            conn.execute(statement)  # type: ignore[arg-type]

    def create_database(self) -> str:
        """Create an empty database; returns its name."""
        name = f"t_{uuid.uuid4().hex[:16]}"
        self._admin(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        """Drop a database, ending any session still connected to it."""
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def plain_query(db: str | Path, sql: str) -> list[tuple[Any, ...]]:
    """Run ``sql`` through the plain driver (sqlite3 or psycopg), not SQLAlchemy."""
    if isinstance(db, Path):
        with sqlite3.connect(db) as conn:
            return list(conn.execute(sql).fetchall())
    import psycopg

    with psycopg.connect(db.replace("postgresql+psycopg://", "postgresql://")) as conn:
        return list(conn.execute(sql).fetchall())  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the session (skips when no binaries or no psycopg)."""
    pytest.importorskip("psycopg", reason="the PostgreSQL driver: pip install 'scorekit[postgres]'")
    bindir = find_binaries()
    if bindir is None:
        pytest.skip(SKIP_REASON)
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: initdb cannot run as another user")
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a fresh, empty database on the session's server, dropped after the test."""
    name = postgres_server.create_database()
    try:
        yield postgres_server.url(name)
    finally:
        postgres_server.drop_database(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """A results database on each backend: a SQLite file path, then a PostgreSQL URL."""
    if request.param == "sqlite":
        return tmp_path / "store.db"
    return str(request.getfixturevalue("postgres_url"))
