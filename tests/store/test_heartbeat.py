"""A run's heartbeat: a run whose process was killed outright is shown as interrupted (issue 34:
a run killed with ``kill -9`` stayed ``running`` for ever)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.store import Store
from scorekit.store import records as records_module
from scorekit.store.records import STALE_AFTER_S, RunRecord
from scorekit.store.writer import ResultWriter

T0 = datetime(2026, 12, 5, 9, 0, tzinfo=timezone.utc)


def _record(status: str, heartbeat: datetime | None) -> RunRecord:
    return RunRecord("r", None, status, T0, None, {}, [], {}, 0, {}, {}, None,  # type: ignore[arg-type]
                     heartbeat_at=heartbeat)  # fmt: skip


def test_a_running_run_is_stale_once_its_heartbeat_is_older_than_the_limit() -> None:
    beat = T0 + timedelta(seconds=50)
    alive = _record("running", beat)
    assert alive.stale_since(beat + timedelta(seconds=STALE_AFTER_S)) is None
    late = beat + timedelta(seconds=STALE_AFTER_S + 1)
    assert alive.stale_since(late) == beat
    assert alive.shown_status(late) == "interrupted"
    assert alive.shown_status(beat) == "running"
    # a run stored before heartbeats counts from its start; an ended run is never stale
    assert _record("running", None).stale_since(T0 + timedelta(days=1)) == T0
    assert _record("finished", beat).shown_status(T0 + timedelta(days=1)) == "finished"


def test_the_writer_beats_while_nothing_is_written(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        store.start_run("run-1", name=None, scorers=[{"id": "s"}])
        first = store.get_run("run-1").heartbeat_at
        assert first == store.get_run("run-1").started_at
        writer = ResultWriter(store, "run-1", heartbeat_s=0.05)
        time.sleep(0.5)
        writer.close()
        later = store.get_run("run-1").heartbeat_at
        assert first is not None and later is not None and later > first


_SLOW = """
import time
from pathlib import Path


def answer(text):
    Path(__file__).with_name("started").write_text("yes")
    time.sleep(3600)
    return text
"""


def test_a_run_killed_outright_is_shown_as_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_target.py").write_text(_SLOW)
    (tmp_path / "d.jsonl").write_text(json.dumps({"id": "1", "input": "q"}) + "\n")
    (tmp_path / "run.yaml").write_text(
        "data: {path: d.jsonl}\ntarget: slow_target:answer\nscorers: [content-similarity]\n"
        "name: doomed\n"
    )
    db = tmp_path / "r.db"
    scorekit = Path(sys.executable).with_name("scorekit")
    process = subprocess.Popen(
        [str(scorekit), "run", str(tmp_path / "run.yaml"), "--db", str(db)],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (tmp_path / "started").exists()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    runner = CliRunner()
    listed = runner.invoke(app, ["runs", "--db", str(db)], env={"COLUMNS": "200"})
    assert "doomed" in listed.output and "running" in listed.output  # its heartbeat is recent
    monkeypatch.setattr(records_module, "STALE_AFTER_S", 0.2)
    time.sleep(0.5)
    listed = runner.invoke(app, ["runs", "--db", str(db)], env={"COLUMNS": "200"})
    row = next(line for line in listed.output.splitlines() if "doomed" in line)
    assert "interrupted" in row and "running" not in row
    shown = runner.invoke(app, ["show", "doomed", "--db", str(db)], env={"COLUMNS": "200"})
    text = " ".join(shown.output.split())
    assert "status interrupted (no heartbeat since " in text
    assert "no verdict: the run is interrupted" in text
    with Store(db) as store:
        assert store.get_run("doomed").status == "running"  # the stored row is left as it is
