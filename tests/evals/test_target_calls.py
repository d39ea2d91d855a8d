"""Targets under a time limit, and a hung sync target never keeping the process alive."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from scorekit import create_scorer
from scorekit.errors import ConfigError
from scorekit.evals import run_evals_sync
from scorekit.evals.target_calls import MAX_STUCK_TARGETS, stuck_targets

RELEASE = threading.Event()


def _scorer():  # type: ignore[no-untyped-def]
    return create_scorer("len", description="length").generate_score(
        lambda ctx: min(len(str(ctx.run.output)), 10) / 10
    )


def sync_target(text: str) -> str:
    if text == "hang":
        RELEASE.wait(30)
    return text * 2


async def async_target(text: str) -> str:
    if text == "hang":
        await asyncio.sleep(30)
    return text * 2


@pytest.mark.parametrize("target", [sync_target, async_target])
def test_a_target_past_its_timeout_is_an_error_naming_it_and_the_run_goes_on(target) -> None:  # type: ignore[no-untyped-def]
    before = stuck_targets()
    started = time.perf_counter()
    result = run_evals_sync(
        [{"id": "a", "input": "ok"}, {"id": "b", "input": "hang"}, {"id": "c", "input": "yes"}],
        [_scorer()],
        target=target,
        target_timeout=0.5,
    )
    assert time.perf_counter() - started < 10
    by_id = {item.item.id: item for item in result.items}
    assert by_id["a"].scorer_results["len"].score == 0.4
    assert by_id["c"].scorer_results["len"].score == 0.6
    error = by_id["b"].target_error
    assert error is not None and error.type == "TargetTimeoutError" and error.step == "target"
    assert error.message.startswith("the target took longer than target_timeout=0.5 s on item 'b'")
    assert by_id["b"].scorer_results["len"].status == "error"
    assert stuck_targets() == before + (target is sync_target)  # its thread runs on
    RELEASE.set()
    deadline = time.monotonic() + 10
    while stuck_targets() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stuck_targets() == before  # returned: no longer stuck
    RELEASE.clear()


def test_target_timeout_is_checked() -> None:
    for bad in (0, -1, float("nan"), "10", True):
        with pytest.raises(ConfigError) as info:
            run_evals_sync([{"input": "x"}], [_scorer()], target=sync_target, target_timeout=bad)
        assert info.value.field == "target_timeout"
    done = run_evals_sync([{"input": "x"}], [_scorer()], target=sync_target, target_timeout=None)
    assert done.summaries["len"].mean == 0.2
    assert MAX_STUCK_TARGETS == 32


_HANGING = """
import time
from pathlib import Path


def answer(text):
    Path(__file__).with_name("started").write_text("yes")
    time.sleep(3600)  # a target that never answers
    return text
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_a_run_whose_sync_target_hangs(tmp_path: Path, signum: int) -> None:
    # issue 34 #2: SIGINT printed "interrupted ... stored" and the process never exited
    (tmp_path / "hanging_target.py").write_text(textwrap.dedent(_HANGING))
    (tmp_path / "d.jsonl").write_text('{"id": "1", "input": "q"}\n{"id": "2", "input": "r"}\n')
    (tmp_path / "run.yaml").write_text(
        "data: {path: d.jsonl}\ntarget: hanging_target:answer\nscorers: [content-similarity]\n"
    )
    scorekit = Path(sys.executable).with_name("scorekit")
    process = subprocess.Popen(
        [str(scorekit), "run", str(tmp_path / "run.yaml"), "--db", str(tmp_path / "r.db")],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (tmp_path / "started").exists(), "the target was never called"
        pressed = time.monotonic()
        process.send_signal(signum)  # SIGTERM: what a CI system sends to cancel a job
        code = process.wait(timeout=20)
        took = time.monotonic() - pressed
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    stderr = process.stderr.read().decode() if process.stderr else ""
    assert code == 130, stderr
    assert took < 15, f"exited {took:.1f} s after Ctrl-C"
    assert "interrupted" in stderr
    from scorekit.store import Store

    with Store(tmp_path / "r.db") as store:
        assert store.get_run("latest").status == "interrupted"  # stored as such, not running
