"""A SQLite database on a read-only file system: the reading commands read it, the writing ones
say it is read-only (issue 34 #9). The file system is made read-only for real: a read-only bind
mount in a private mount namespace of the child process (``unshare -m``, as root)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.errors import StoreError
from scorekit.store import Store
from scorekit.store.engines import open_engine


def _can_mount_read_only(folder: Path) -> str | None:
    """Why a read-only bind mount cannot be made here, or ``None`` when it can."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount --bind -o ro {folder} {folder} && touch {folder}/x"],
        capture_output=True,
        text=True,
        check=False,
    )
    if "Read-only file system" in probe.stderr:
        return None
    return f"no read-only bind mount here (unshare -m needs root): {probe.stderr.strip()[:120]}"


def _under_read_only(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with ``folder`` mounted read-only (the rest of the system as it is)."""
    script = f'mount --bind -o ro "{folder}" "{folder}" && exec "$@"'
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", *command],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "input": "hello", "output": "hello"}) + "\n")
    scorekit = Path(sys.executable).with_name("scorekit")
    db = folder / "r.db"
    done = subprocess.run(
        [str(scorekit), "run", str(data), "-s", "content-similarity", "--db", str(db),
         "--name", "on-disk"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return db


def test_reading_commands_read_a_database_on_a_read_only_file_system(stored: Path) -> None:
    why = _can_mount_read_only(stored.parent)
    if why is not None:
        pytest.skip(why)
    scorekit = str(Path(sys.executable).with_name("scorekit"))
    before = sorted(p.name for p in stored.parent.iterdir())
    for command in (["runs"], ["show", "latest"], ["compare", "latest", "latest"]):
        result = _under_read_only(stored.parent, scorekit, *command, "--db", str(stored))
        assert result.returncode == 0, (command, result.stderr)
        assert "unable to open database file" not in result.stderr
    shown = _under_read_only(stored.parent, scorekit, "show", "latest", "--db", str(stored))
    assert "on-disk" in shown.stdout and "1.0000" in shown.stdout
    report = stored.parent.parent / "report.html"
    made = _under_read_only(stored.parent, scorekit, "report", "latest", "-o", str(report),
                            "--db", str(stored))  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "on-disk" in report.read_text()
    # a writing command says the database is read-only
    data = stored.parent.parent / "d.jsonl"
    run = _under_read_only(stored.parent, scorekit, "run", str(data), "-s", "tone", "--db",
                           str(stored))  # fmt: skip
    assert run.returncode == 2
    message = " ".join(run.stderr.split())
    assert f"the database {stored} is read-only" in message
    assert "runs, show, compare, report and view can read it" in message
    assert sorted(p.name for p in stored.parent.iterdir()) == before  # nothing written


def test_the_read_only_engine_is_immutable_only_where_the_folder_cannot_be_written(
    stored: Path,
) -> None:
    engine = open_engine(f"sqlite:///{stored}", read_only=True)
    database = str(engine.url.database)
    assert database.endswith("?mode=ro") and "immutable" not in database
    engine.dispose()
    with Store(stored, create=False, read_only=True) as store:
        assert store.read_only
        assert store.get_run("latest").name == "on-disk"
        with pytest.raises(StoreError, match=r"readonly|read-only"):
            store.start_run("x", name=None, scorers=[])
