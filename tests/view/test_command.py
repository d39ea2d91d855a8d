"""``scorekit view``: refuses what it cannot read (exit 2), serves a real port, stays read-only."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.errors import StoreError
from scorekit.view import ViewDatabase

from .data import ViewerRuns


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["view", *args])
    return result.exit_code, result.output


def test_a_missing_database_is_a_usage_error(tmp_path: Path) -> None:
    code, output = _run("--db", str(tmp_path / "none.db"))
    assert code == 2
    assert f"error: no database at {tmp_path / 'none.db'} (nothing is stored there yet)" in (
        " ".join(output.split())
    )
    assert not (tmp_path / "none.db").exists()


def test_a_file_that_is_not_a_database_is_a_usage_error(tmp_path: Path) -> None:
    junk = tmp_path / "notes.db"
    junk.write_text("these are notes, not a database\n" * 100)
    code, output = _run("--db", str(junk))
    assert code == 2
    assert "cannot read the database" in output and "file is not a database" in output


def test_a_database_without_scorekit_tables_is_a_usage_error(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE things (x)")
    code, output = _run("--db", str(other))
    assert code == 2
    assert "holds no scorekit runs (no results or runs table)" in " ".join(output.split())


def test_a_database_of_an_older_scorekit_is_refused_not_upgraded(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    with sqlite3.connect(old) as conn:
        conn.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT)")
        conn.execute("CREATE TABLE results (id INTEGER PRIMARY KEY, run_id TEXT)")
    with pytest.raises(StoreError, match="made by an older scorekit") as caught:
        ViewDatabase(old)
    assert "scorekit runs --db" in str(caught.value)
    with sqlite3.connect(old) as conn:  # untouched: no column was added
        assert [r[1] for r in conn.execute("PRAGMA table_info(runs)")] == ["id", "name"]


def test_an_in_memory_database_is_refused() -> None:
    with pytest.raises(StoreError, match="not an in-memory database"):
        ViewDatabase("sqlite:///:memory:")


def test_a_port_in_use_is_a_usage_error(runs: ViewerRuns) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = _run("--db", str(runs.db), "--port", str(port))
    assert code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in output


def test_the_cli_imports_no_web_framework() -> None:
    code = "import sys, scorekit.cli; assert 'starlette' not in sys.modules, 'starlette'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_view_serves_the_database_until_ctrl_c(runs: ViewerRuns) -> None:
    scorekit = Path(sys.executable).with_name("scorekit")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "300"}
    process = subprocess.Popen(
        [scorekit, "view", "--db", str(runs.db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("scorekit view: http://127.0.0.1:"), line
        assert "read-only; Ctrl-C stops" in line
        url = line.split()[2]
        with urllib.request.urlopen(url, timeout=30) as response:
            html = response.read().decode()
            assert response.status == 200
            assert response.headers["content-security-policy"].startswith("default-src 'none'")
        assert ">candidate</a>" in html and ">baseline</a>" in html
    finally:
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=30)
    assert process.returncode == 0, errors
